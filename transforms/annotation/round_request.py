"""One line of ``annotate next``'s ``requests.jsonl``: ``more`` judgments of one item."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Request:
    """``more`` judgments of one item's ``stage`` (and ``paragraph``)."""

    item: str
    split: str
    stage: str
    paragraph: int | None
    more: int

    def record(self, base: str) -> dict[str, Any]:
        """The JSON line (the item under ``example_id`` for NQ, else ``question_id``)."""
        return self.fields("question_id" if base != "nq" else "example_id")

    def fields(self, id_key: str, marks: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The item (under ``id_key``), split, stage, ``more``, then ``marks`` (as the gold
        flag), then ``paragraph`` when it has one."""
        record: dict[str, Any] = {id_key: self.item, "split": self.split, "stage": self.stage,
                                  "more": self.more, **(marks or {})}
        if self.paragraph is not None:
            record["paragraph"] = self.paragraph
        return record
