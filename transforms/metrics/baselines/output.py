"""Writing a baseline's predictions file: checked before any work, replaced atomically.

:func:`check_output` refuses an existing path (unless ``overwrite``; never a directory) and
a missing parent directory, so a long run does not fail at its end. :func:`write_json`
writes the predictions (sorted keys, one trailing newline: the same inputs give the same
bytes) to a new temporary file beside the target, opened with ``O_EXCL | O_NOFOLLOW``, and
moves it into place: without ``overwrite`` by a hard link, which fails if the path appeared
meanwhile (on a file system without hard links: checked again, then renamed); with it by
``os.replace``, which replaces a symbolic link at the path rather than writing through it.
A reader never sees half a file.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any


class OutputError(ValueError):
    """An unusable ``--out`` path."""


def check_output(path: str, overwrite: bool = False) -> Path:
    """``path`` as a :class:`Path` if a predictions file may be written there."""
    out = Path(path)
    if not out.name or out.name in (".", ".."):
        raise OutputError(f"--out {path} names no file")
    if not out.parent.is_dir():
        raise OutputError(f"--out {path}: the directory {out.parent} does not exist")
    if out.is_dir() and not out.is_symlink():
        raise OutputError(f"--out {path} is a directory")
    if os.path.lexists(out) and not overwrite:
        raise OutputError(f"--out {path} exists (pass --overwrite to replace it)")
    return out


def write_json(path: str, data: Any, overwrite: bool = False) -> int:
    """Write ``data`` as JSON (sorted keys, UTF-8) to ``path`` atomically; bytes written."""
    out = check_output(path, overwrite)
    payload = (json.dumps(data, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    temporary = out.parent / f".{out.name}.{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(temporary, flags, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        if overwrite:
            os.replace(temporary, out)
        else:
            try:
                os.link(temporary, out, follow_symlinks=False)
            except FileExistsError as err:
                raise OutputError(f"--out {path} exists (pass --overwrite to replace "
                                  "it)") from err
            except OSError:  # a file system without hard links: check, then rename
                check_output(path)
                os.replace(temporary, out)
    finally:
        if temporary.exists():
            temporary.unlink()
    return len(payload)
