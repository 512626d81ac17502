"""The id of an NQ example, from its normalized question: in a module of its own so that the
readers of a release (``release browse``'s NQ renderer, through ``transforms.nq.examples``)
need not import the linking stages, and Beam with them."""

from __future__ import annotations

import hashlib


def example_id(question: str) -> int:
    """Stable signed 64-bit id of a normalized question (NQ ids are int64)."""
    return int.from_bytes(hashlib.sha256(question.encode("utf-8")).digest()[:8], "big",
                          signed=True)
