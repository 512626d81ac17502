"""What ``evaluate TASK`` and ``evaluate baseline TASK`` read, as typed options."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EvaluationOptions:
    """``evaluate TASK``: the gold and predictions paths and the task's options."""

    gold: str
    predictions: str
    split: str | None = None
    strict: bool = False
    threshold: int | None = None  # nq: non-null annotations for a gold answer (None: 2)
    legacy_tokenizer: str = "regex"  # nlquad: "regex" or "nltk"


@dataclass(frozen=True)
class BaselineOptions:
    """``evaluate baseline TASK``: the release to predict for, the method and the output."""

    task: str
    gold: str
    out: str
    method: str
    split: str | None = None
    top: int | None = None  # reqa: the first N candidates of each ranking (None: all)
    overwrite: bool = False
    verify: bool = True
