"""The ``.gitattributes`` a new Hub dataset repository gets, which paths git sends through
its LFS filter, and which paths a ``.gitignore`` leaves out: what the fake Hub
(``tests.fakes.hub_server``) answers preupload and commits by."""

from __future__ import annotations

import re

LFS_ATTRS = "filter=lfs diff=lfs merge=lfs -text"

# The .gitattributes the Hub commits into a new dataset repository: these patterns to LFS.
_DEFAULT_LFS = {
    "": "*.7z *.arrow *.bin *.bz2 *.ckpt *.ftz *.gz *.h5 *.joblib *.lfs.* *.lz4 *.mds *.mlmodel "
        "*.model *.msgpack *.npy *.npz *.onnx *.ot *.parquet *.pb *.pickle *.pkl *.pt *.pth "
        "*.rar *.safetensors saved_model/**/* *.tar.* *.tar *.tflite *.tgz *.wasm *.xz *.zip "
        "*.zst *tfevents*",
    "Audio files - uncompressed": "*.pcm *.sam *.raw",
    "Audio files - compressed": "*.aac *.flac *.mp3 *.ogg *.wav",
    "Image files - uncompressed": "*.bmp *.gif *.png *.tiff",
    "Image files - compressed": "*.jpg *.jpeg *.webp",
    "Video files - compressed": "*.mp4 *.webm",
}
GITATTRIBUTES = "".join(
    (f"# {section}\n" if section else "") + "".join(f"{p} {LFS_ATTRS}\n" for p in patterns.split())
    for section, patterns in _DEFAULT_LFS.items())


def lfs_rules(text: str) -> list[tuple[re.Pattern[str], bool]]:
    """The ``filter`` rules of a ``.gitattributes`` (pattern, sends to LFS), in file order."""
    rules = []
    for line in text.splitlines():
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        for attribute in fields[1:]:
            if attribute in ("-filter", "!filter") or attribute.startswith("filter="):
                rules.append((glob_pattern(fields[0]), attribute == "filter=lfs"))
    return rules


def routes_to_lfs(rules: list[tuple[re.Pattern[str], bool]], path: str) -> bool:
    """Whether git would send ``path`` through the LFS filter: the last matching rule wins; a
    pattern without ``/`` matches the file name at any depth."""
    verdict = False
    for pattern, lfs in rules:
        if pattern.fullmatch(path):
            verdict = lfs
    return verdict


def glob_pattern(pattern: str) -> re.Pattern[str]:
    anchored = "/" in pattern.rstrip("/")
    out = []
    for token in re.split(r"(\*\*/|/\*\*|\*|\?)", pattern.lstrip("/")):
        out.append({"**/": "(?:.*/)?", "/**": "/.*", "*": "[^/]*", "?": "[^/]"}.get(
            token, re.escape(token)))
    return re.compile(("" if anchored else "(?:.*/)?") + "".join(out))


def gitignore_rules(text: str) -> list[tuple[re.Pattern[str], bool, bool]]:
    """The rules of a ``.gitignore`` (pattern, ignores, directories only), in file order:
    ``!`` re-includes, a trailing ``/`` matches directories only, blank lines and ``#``
    comments are skipped."""
    rules = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = line[1:] if negated else line
        directory = line.endswith("/")
        rules.append((glob_pattern(line.rstrip("/")), not negated, directory))
    return rules


def is_ignored(rules: list[tuple[re.Pattern[str], bool, bool]], path: str) -> bool:
    """Whether git leaves ``path`` out: a file under an ignored directory is ignored (git
    never looks inside it), otherwise the last rule matching the file decides."""
    parts = path.split("/")
    for depth in range(1, len(parts)):
        if _verdict(rules, "/".join(parts[:depth]), directory=True):
            return True
    return _verdict(rules, path, directory=False)


def _verdict(rules: list[tuple[re.Pattern[str], bool, bool]], path: str,
             directory: bool) -> bool:
    verdict = False
    for pattern, ignores, directories_only in rules:
        if (directory or not directories_only) and pattern.fullmatch(path):
            verdict = ignores
    return verdict
