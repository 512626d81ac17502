"""Prediction ids against gold ids: an error when none matches (or, strict, any does not)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from transforms.evaluation.errors import EvaluationError, warn
from transforms.metrics.hints import unmatched_id_hints


def examples(ids: Iterable[Any], limit: int = 5) -> str:
    """The first ``limit`` ids, sorted, for a message."""
    ids = sorted(map(str, ids))
    return ", ".join(ids[:limit]) + (", ..." if len(ids) > limit else "")


def refuse_repeated(counts: Mapping[str, int], where: str, what: str = "id",
                    limit: int = 5) -> None:
    """:class:`EvaluationError` (exit 2) when any of ``counts`` (``{id: times given}``) is
    above 1, naming the first ``limit`` repeats (sorted, with their counts) and how many:
    an id predicted twice would be scored on one of its answers, silently."""
    repeated = sorted((str(key), n) for key, n in counts.items() if n > 1)
    if not repeated:
        return
    shown = ", ".join(f"{key} ({n} times)" for key, n in repeated[:limit])
    more = f" and {len(repeated) - limit} more" if len(repeated) > limit else ""
    raise EvaluationError(f"{len(repeated)} {what}(s) given more than once in {where}: "
                          f"{shown}{more}; give each {what} once (one of its values would "
                          "be scored, silently)")


def check_ids(predicted: Collection[str], gold: Collection[str], strict: bool,
              what: str = "prediction",
              hints: Callable[[], list[str]] | None = None) -> None:
    """Fail when no predicted id is in the gold (or, strict, any is not), with ``hints()``
    (default: :func:`transforms.metrics.hints.unmatched_id_hints`); warn otherwise."""
    unknown = set(predicted) - set(gold)
    missing = set(gold) - set(predicted)
    if predicted and len(unknown) == len(set(predicted)):
        raise EvaluationError(f"none of the {len(unknown)} {what} ids is in the gold "
                              f"(e.g. {examples(unknown, 3)}): wrong files?",
                              hints() if hints else unmatched_id_hints(predicted, gold))
    if strict and (unknown or missing):
        raise EvaluationError(f"--strict: {len(unknown)} {what} ids not in the gold "
                              f"({examples(unknown)}), {len(missing)} gold ids without a "
                              f"{what} ({examples(missing)})")
    if unknown:
        warn(f"{len(unknown)} {what} ids are not in the gold and were ignored: "
             f"{examples(unknown)}")
    if missing:
        warn(f"{len(missing)} gold ids have no {what} and score as unanswered: "
             f"{examples(missing)}")
