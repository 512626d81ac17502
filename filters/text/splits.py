"""Stable split assignment by hashing a group key.

A record's split depends only on ``(salt, group key)``, never on the other records, the run or
the runner, so an article stays in the same split in every future version (NLQuAD issue §6).
All records of a group (every question of one article) share one split: no leakage.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from filters.text.names import name_problem

# Entries of a version directory besides its splits (``transforms.release`` layout): a split
# of one of these names would mix with them or be overwritten by them.
RESERVED_SPLIT_NAMES = frozenset({"rejected", "dataset_info.json", "stats.json", "readme.md",
                                  "croissant.json", "_success", "latest", ".staging"})
DEFAULT_SPLITS: tuple[tuple[str, float], ...] = (("train", 0.8), ("dev", 0.1), ("test", 0.1))


def parse_split_ratios(spec: str) -> tuple[tuple[str, float], ...]:
    """Parse ``train=0.8,dev=0.1,test=0.1`` (or ``80/10/10`` for train/dev/test).

    Split names become directories of the release, so each must be a plain name
    (``filters.text.names``) and not one of ``RESERVED_SPLIT_NAMES``; ratios must be finite,
    non-negative, with a positive sum. Anything else is a ``ValueError``."""
    spec = spec.strip()
    if "=" in spec:
        pairs = [part.split("=", 1) for part in spec.split(",") if part.strip()]
        ratios = [(name.strip(), float(value)) for name, value in pairs]
    else:
        values = [float(v) for v in spec.replace(",", "/").split("/")]
        if len(values) != 3:
            raise ValueError(f"expected three ratios train/dev/test, got {spec!r}")
        ratios = list(zip(("train", "dev", "test"), values, strict=True))
    if not all(math.isfinite(v) for _, v in ratios):
        raise ValueError(f"split ratios must be finite numbers (no nan or inf): {spec!r}")
    for name, _ in ratios:
        problem = name_problem(name, RESERVED_SPLIT_NAMES)
        if problem:
            raise ValueError(f"invalid split name {name!r}: {problem}")
    total = sum(v for _, v in ratios)
    if total <= 0 or any(v < 0 for _, v in ratios):
        raise ValueError(f"split ratios must be non-negative with a positive sum: {spec!r}")
    names = [n for n, _ in ratios]
    if len(set(names)) != len(names) or not all(names):
        raise ValueError(f"split names must be unique and non-empty: {spec!r}")
    return tuple((name, value / total) for name, value in ratios)


def stable_unit_interval(key: str, salt: str) -> float:
    """Map ``(salt, key)`` to [0, 1) with SHA-256 (stable across processes and Python builds)."""
    digest = hashlib.sha256(f"{salt}\x00{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def assign_split(key: str, salt: str,
                 ratios: Sequence[tuple[str, float]] = DEFAULT_SPLITS) -> str:
    """Return the split of a group key; cumulative ratios cut the unit interval in order."""
    point = stable_unit_interval(key, salt)
    cumulative = 0.0
    for name, ratio in ratios:
        cumulative += ratio
        if point < cumulative:
            return name
    return ratios[-1][0]
