"""Paths as a release may record them: never an absolute local path.

A release is published and moved between machines, so the files it holds name local paths
relative to the directory the job was started from (``../data/pages/*.html``), and code
locations in tracebacks relative to the project or ``site-packages``. Remote paths
(``gs://...``) are kept as they are.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_TRACEBACK_FILE = re.compile(r'File "([^"]+)"')
_ABSOLUTE_IN_TEXT = re.compile(r"(?<![\w.:/~-])/[^\s\"',;]+")


def portable_path(path: str, base: str | None = None) -> str:
    """``path`` relative to ``base`` (the working directory) when it is an absolute local
    path; otherwise unchanged."""
    if "://" in path or not os.path.isabs(path):
        return path
    return os.path.relpath(path, base or os.getcwd())


def portable_value(value: Any) -> Any:
    """Every absolute local path in a string (an option, ``--flag=/path``, a description
    naming its input) made ``portable_path``; also inside lists and dicts."""
    if isinstance(value, str):
        return _ABSOLUTE_IN_TEXT.sub(lambda m: portable_path(m.group(0)), value)
    if isinstance(value, list | tuple):
        return [portable_value(v) for v in value]
    if isinstance(value, dict):
        return {k: portable_value(v) for k, v in value.items()}
    return value


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
