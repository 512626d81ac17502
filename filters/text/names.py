"""Names that become one path component: a dataset, a version, a split.

A plain name is 1 to 64 characters of ``[0-9A-Za-z._-]`` starting with a letter or digit,
without ``..``: never a separator, an absolute path, ``.``, ``..`` or a hidden name, on any
platform. ``name_problem`` says why a name is not plain (or not allowed because a layout
reserves it, compared case-insensitively), ``None`` when it is fine.
"""

from __future__ import annotations

import re
from collections.abc import Collection

PLAIN_NAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z._-]{0,63}")
PLAIN_NAME_RULE = ("1-64 characters of letters, digits, '.', '_' and '-', starting with a "
                   "letter or digit")


def name_problem(name: object, reserved: Collection[str] = ()) -> str | None:
    """Why ``name`` cannot be one path component, or ``None`` when it can. ``reserved``
    holds lower-case names a layout keeps for itself."""
    if not isinstance(name, str) or not PLAIN_NAME.fullmatch(name):
        return f"use {PLAIN_NAME_RULE}"
    if ".." in name:
        return "'..' is not allowed"
    if name.lower() in reserved:
        return "reserved by the release layout"
    return None
