"""Paths as a release records them: as the user gave them when that re-runs, never a path of
this machine's directory layout.

The rule (``recorded_path``, a pure function of the path and the working directory):

- a URL or any other ``scheme://`` path (``gs://``, ``https://``, ``hf://``) is kept as given;
- a relative path or glob that stays inside the working directory is kept exactly as given
  (``pag*/*.html``, ``./corpus/*.jsonl``), so the recorded command re-runs from there;
- an absolute path inside the working directory is made relative to it;
- any other local path, absolute or climbing out with ``..``, becomes ``<local>/`` and its
  last component, or for a glob the directory above its first wildcard and what follows
  (``/home/me/data/pages/*.html`` and ``../data/pages/*.html`` are both
  ``<local>/pages/*.html``): the same on every machine, whatever its checkout or temp dir.

The manifest's options and source, the card's "How it was built" and dead-letter records all
use it. Code locations in tracebacks are relative to the project or ``site-packages``.
"""

from __future__ import annotations

import os
import posixpath
import re
import sys
from typing import Any

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOCAL = "<local>"
_WILDCARD = re.compile(r"[*?\[]")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_TRACEBACK_FILE = re.compile(r'File "([^"]+)"')
# a local path in free text: ``/...``, ``./...`` or ``../...`` starting the text or after a
# space, ``=``, ``(``, a quote, ``,`` or ``;`` (not after ``*``: ``pag*/*.html`` is one glob)
_PATH_IN_TEXT = re.compile(r"(?<![^\s=(\"',;])(?:/|\.\.?/)[^\s\"',;]+")


def _tail(parts: list[str]) -> str:
    """The last component, or from the directory above the first wildcard component."""
    wild = next((i for i, part in enumerate(parts) if _WILDCARD.search(part)), None)
    return "/".join(parts[max(wild - 1, 0):] if wild is not None else parts[-1:])


def recorded_path(path: str, cwd: str | None) -> str:
    """``path`` as a release records it, the working directory being ``cwd`` (``None``: not
    known, every absolute path is reduced); the rule is the module docstring's."""
    if _SCHEME.match(path):
        return path
    normal = posixpath.normpath(path)
    if not posixpath.isabs(path):
        if normal != ".." and not normal.startswith("../"):
            return path
    elif cwd is not None:
        base = posixpath.normpath(cwd).rstrip("/")
        if normal == (base or "/"):
            return "."
        if normal.startswith(base + "/"):
            return normal[len(base) + 1:]
    parts = [p for p in normal.split("/") if p and p != ".."]
    return posixpath.join(LOCAL, _tail(parts)) if parts else LOCAL


def recorded_value(value: Any, cwd: str | None) -> Any:
    """``value`` with every local path in its strings (an option, ``--flag=/path``, a
    description naming its input) made ``recorded_path``; also inside lists and dicts."""
    if isinstance(value, str):
        return _PATH_IN_TEXT.sub(lambda m: recorded_path(m.group(0), cwd), value)
    if isinstance(value, list | tuple):
        return [recorded_value(v, cwd) for v in value]
    if isinstance(value, dict):
        return {k: recorded_value(v, cwd) for k, v in value.items()}
    return value


def portable_path(path: str, base: str | None = None) -> str:
    """``recorded_path`` from ``base``, by default the working directory."""
    return recorded_path(path, base or os.getcwd())


def portable_value(value: Any) -> Any:
    """``recorded_value`` from the working directory."""
    return recorded_value(value, os.getcwd())


def code_location(path: str) -> str:
    """A source file as a traceback may name it in a release: relative to the project, to
    ``site-packages`` or to Python's own library."""
    if not os.path.isabs(path):
        return path
    if path.startswith(PROJECT_ROOT + os.sep):
        return os.path.relpath(path, PROJECT_ROOT)
    marker = f"{os.sep}site-packages{os.sep}"
    if marker in path:
        return "site-packages/" + path.split(marker, 1)[1]
    for prefix in {sys.base_prefix, sys.prefix}:
        if path.startswith(prefix + os.sep):
            return "python/" + os.path.relpath(path, prefix)
    return os.path.basename(path)


def portable_traceback(text: str) -> str:
    """A formatted traceback with every ``File "..."`` made a ``code_location``."""
    return _TRACEBACK_FILE.sub(lambda m: f'File "{code_location(m.group(1))}"', text)
