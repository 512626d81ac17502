"""Which files of a release a publish sends to the Hub's large-file storage, as ``--dry-run``
predicts it with no network access.

The Hub decides per file when asked (``preupload``): ``lfs`` for a file the repository's
``.gitattributes`` sends to LFS and for any file over 10 MiB, ``regular`` (inside the commit)
otherwise. A dry run cannot ask, so it applies the ``.gitattributes`` the Hub gives a new
dataset repository (``DEFAULT_LFS_PATTERNS``: ``*.parquet``, ``*.gz``, ``*.arrow``, ...) and
the size rule. A repository whose own ``.gitattributes`` differs may decide otherwise; the
publish itself always follows the Hub's answer.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

LFS = "lfs"
REGULAR = "regular"
LFS_SIZE_LIMIT = 10 * 1024 * 1024  # bytes: a larger file goes to LFS whatever its name
# the patterns of the .gitattributes a new Hugging Face dataset repository starts with
DEFAULT_LFS_PATTERNS = (
    "*.7z", "*.arrow", "*.bin", "*.bz2", "*.ckpt", "*.ftz", "*.gz", "*.h5", "*.joblib",
    "*.lfs.*", "*.lz4", "*.mds", "*.mlmodel", "*.model", "*.msgpack", "*.npy", "*.npz",
    "*.onnx", "*.ot", "*.parquet", "*.pb", "*.pickle", "*.pkl", "*.pt", "*.pth", "*.rar",
    "*.safetensors", "saved_model/**/*", "*.tar.*", "*.tar", "*.tflite", "*.tgz", "*.wasm",
    "*.xz", "*.zip", "*.zst", "*tfevents*", "*.pcm", "*.sam", "*.raw", "*.aac", "*.flac",
    "*.mp3", "*.ogg", "*.wav", "*.bmp", "*.gif", "*.png", "*.tiff", "*.jpg", "*.jpeg",
    "*.webp", "*.mp4", "*.webm")


@dataclass(frozen=True)
class UploadMode:
    """How one file is expected to travel: ``lfs`` or ``regular``, and why."""

    mode: str
    reason: str


def upload_mode(path: str, size: int,
                patterns: tuple[str, ...] = DEFAULT_LFS_PATTERNS) -> UploadMode:
    """The expected upload mode of the release file at relative ``path`` of ``size`` bytes: a
    pattern without ``/`` matches the file name (as in ``.gitattributes``), one with ``/`` the
    whole path."""
    name = path.rsplit("/", 1)[-1]
    for pattern in patterns:
        if fnmatch.fnmatchcase(path if "/" in pattern else name, pattern):
            return UploadMode(LFS, pattern)
    if size > LFS_SIZE_LIMIT:
        return UploadMode(LFS, "over 10 MiB")
    return UploadMode(REGULAR, "in the commit")
