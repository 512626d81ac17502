"""The JSON record of one line of ``annotate next``'s ``requests.jsonl``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def request_record(id_key: str, item: str, split: str, stage: str, more: int,
                   paragraph: int | None, marks: Mapping[str, Any] | None = None
                   ) -> dict[str, Any]:
    """``more`` judgments of ``item`` (under ``id_key``) at ``stage``: the item, split, stage,
    ``more``, then ``marks`` (as the gold flag), then ``paragraph`` when it has one."""
    record: dict[str, Any] = {id_key: item, "split": split, "stage": stage, "more": more,
                              **(marks or {})}
    if paragraph is not None:
        record["paragraph"] = paragraph
    return record
