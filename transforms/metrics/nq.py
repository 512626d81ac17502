"""Natural Questions long- and short-answer precision, recall and F1 (Kwiatkowski et al. 2019).

NQ §5.1 scores a prediction against the 5-way annotated dev/test data:

* the gold *has* a long (short) answer iff at least ``min_non_null`` (2) of its annotations
  are non-null; a short answer is non-null when it has a non-null span **or** a yes/no answer;
* a non-null long answer is correct iff its span equals the span of any non-null long-answer
  annotation; a non-null short answer is correct iff its yes/no answer equals any annotation's
  yes/no answer, or (when it is not yes/no) its *set* of spans equals the set of spans of any
  annotation (null spans ignored on both sides);
* precision = correct / non-null predictions, recall = correct / gold with an answer;
* every prediction carries a score (``long_answer_score``, ``short_answers_score``); the
  evaluator sweeps the score threshold from high to low, counting only the predictions scored
  at or above it, and reports the F1 at the threshold that maximises it ("best threshold"),
  with the precision, recall and threshold there, and the maximum recall at precision >= 0.5,
  0.75 and 0.9.

This is our implementation of the semantics of the official ``natural_questions.nq_eval``
(v1.0.6), including its quirks, and it returns exactly its keys (:data:`METRIC_KEYS`):

* two spans are equal if both have byte offsets and the bytes are equal, **or** both have
  token offsets and the tokens are equal (bytes that differ do not stop the token comparison);
* a span is null when all four offsets are negative; byte offsets are used when both are >= 0;
* of tied scores, all are counted before the threshold is evaluated; among thresholds with the
  same F1 the highest wins (strictly greater F1 replaces); with no F1 > 0 the threshold is 0.0.

Differences from the official script, all outside its inputs' domain: it raises when a gold
example has no prediction or a prediction has no gold; :func:`score_answers` scores a missing
prediction as null and reports unknown ids instead (``strict=True`` raises as it does). A
prediction without a score gets 0.0 (the official reader raises ``KeyError``; its docstring says
unscored predictions are all kept, which a common score achieves). Span offsets missing from a
dict are -1 (token-only predictions need no byte keys). Example ids are compared as strings.
Gold may be the original format (``.jsonl.gz`` or plain ``.jsonl``) or the simplified one (no
byte offsets): only ``example_id`` and ``annotations`` are read.
"""

from __future__ import annotations

import glob
import gzip
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filters.text import safe_json

DEFAULT_MIN_NON_NULL = 2
PRECISION_TARGETS: tuple[float, ...] = (0.5, 0.75, 0.9)


def _metric_keys() -> tuple[str, ...]:
    keys = []
    for prefix in ("long-", "short-"):
        keys += [prefix + k for k in ("best-threshold-f1", "best-threshold-precision",
                                      "best-threshold-recall", "best-threshold")]
        for target in PRECISION_TARGETS:
            keys += [f"{prefix}recall-at-precision>={target:.2}",
                     f"{prefix}precision-at-precision>={target:.2}"]
    return tuple(keys)


#: The keys of ``nq_eval.get_metrics_with_answer_stats`` (what ``nq_eval`` prints), in order.
METRIC_KEYS: tuple[str, ...] = _metric_keys()

YES_NO_VALUES = ("yes", "no", "none")


@dataclass(frozen=True)
class Span:
    """A byte and/or token span; -1 offsets mean "not given" (all four -1: a null span)."""

    start_byte: int = -1
    end_byte: int = -1
    start_token: int = -1
    end_token: int = -1

    def __post_init__(self) -> None:
        if (self.start_byte < 0) != (self.end_byte < 0):
            raise ValueError(f"inconsistent null span (bytes): {self}")
        if (self.start_token < 0) != (self.end_token < 0):
            raise ValueError(f"inconsistent null span (tokens): {self}")
        if 0 <= self.start_byte and self.start_byte >= self.end_byte:
            raise ValueError(f"invalid byte span (start_byte >= end_byte): {self}")
        if 0 <= self.start_token and self.start_token >= self.end_token:
            raise ValueError(f"invalid token span (start_token >= end_token): {self}")

    @classmethod
    def from_dict(cls, record: Mapping[str, Any] | None) -> Span:
        """The span of an NQ ``long_answer``/``short_answers`` entry (missing keys are -1)."""
        if not record:
            return NULL_SPAN
        return cls(*(_offset(record, key) for key in ("start_byte", "end_byte", "start_token",
                                                      "end_token")))

    @property
    def is_null(self) -> bool:
        return (self.start_byte < 0 and self.end_byte < 0 and self.start_token < 0
                and self.end_token < 0)

    @property
    def has_bytes(self) -> bool:
        return self.start_byte >= 0 and self.end_byte >= 0

    @property
    def has_tokens(self) -> bool:
        return self.start_token >= 0 and self.end_token >= 0


def _offset(record: Mapping[str, Any], key: str) -> int:
    value = record.get(key, -1)
    if value is None:
        return -1
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{key} must be an integer, got {value!r}")
    return value


NULL_SPAN = Span()


def spans_equal(a: Span, b: Span) -> bool:
    """NQ's span equality of two non-null spans: equal bytes, or else equal tokens."""
    if a.is_null or b.is_null:
        raise ValueError("spans_equal compares non-null spans only")
    if a.has_bytes and b.has_bytes and (a.start_byte, a.end_byte) == (b.start_byte, b.end_byte):
        return True
    return (a.has_tokens and b.has_tokens
            and (a.start_token, a.end_token) == (b.start_token, b.end_token))


def span_sets_equal(gold: Sequence[Span], predicted: Sequence[Span]) -> bool:
    """Every non-null predicted span equals a gold one and vice versa (NQ short answers)."""
    gold = [s for s in gold if not s.is_null]
    predicted = [s for s in predicted if not s.is_null]
    return (all(any(spans_equal(p, g) for g in gold) for p in predicted)
            and all(any(spans_equal(p, g) for p in predicted) for g in gold))


def is_null_span_list(spans: Sequence[Span]) -> bool:
    return all(s.is_null for s in spans)


@dataclass(frozen=True)
class NqLabel:
    """One annotation of a gold example, or one prediction (with its scores)."""

    example_id: str
    long_answer: Span = NULL_SPAN
    short_answers: tuple[Span, ...] = ()
    yes_no_answer: str = "none"
    long_score: float = 0.0
    short_score: float = 0.0

    @property
    def has_long_answer(self) -> bool:
        return not self.long_answer.is_null

    @property
    def has_short_answer(self) -> bool:
        """A non-null short span or a yes/no answer (NQ counts yes/no as a short answer)."""
        return not is_null_span_list(self.short_answers) or self.yes_no_answer != "none"


@dataclass(frozen=True)
class AnswerStat:
    """One example's outcome for long or short answers, as ``nq_eval`` tabulates it."""

    gold_has_answer: bool
    pred_has_answer: bool
    is_correct: bool
    score: float


@dataclass
class ScoreReport:
    """Per-example stats plus the id bookkeeping of :func:`score_answers`."""

    long: list[AnswerStat]
    short: list[AnswerStat]
    missing_predictions: list[str] = field(default_factory=list)
    unknown_prediction_ids: list[str] = field(default_factory=list)


def _yes_no(value: Any) -> str:
    answer = "none" if value is None else str(value).lower()
    if answer not in YES_NO_VALUES:
        raise ValueError(f"invalid yes_no_answer {value!r}")
    return answer


def gold_labels(example: Mapping[str, Any]) -> tuple[str, list[NqLabel]]:
    """``(example id, one label per annotation)`` of an NQ example (original or simplified)."""
    if not isinstance(example, Mapping) or not {"example_id", "annotations"} <= example.keys():
        raise ValueError("an NQ gold example needs example_id and annotations")
    example_id = str(example["example_id"])
    labels = []
    for annotation in example["annotations"] or []:
        try:
            labels.append(NqLabel(
                example_id=example_id,
                long_answer=Span.from_dict(annotation.get("long_answer")),
                short_answers=tuple(Span.from_dict(s)
                                    for s in annotation.get("short_answers") or ()),
                yes_no_answer=_yes_no(annotation.get("yes_no_answer")),
            ))
        except (AttributeError, TypeError, ValueError) as err:
            raise ValueError(f"gold example {example_id}: malformed annotation: {err}") from err
    return example_id, labels


def gold_from_examples(examples: Iterable[Mapping[str, Any]]) -> dict[str, list[NqLabel]]:
    """``{example id: annotations}`` of NQ examples (a repeated id keeps the last one)."""
    return dict(gold_labels(example) for example in examples)


def _score(record: Mapping[str, Any], key: str) -> float:
    value = record.get(key)
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ValueError(f"{key} must be a number, got {value!r}")
    return float(value)


def prediction_label(record: Mapping[str, Any]) -> NqLabel:
    """One entry of the official predictions JSON as a label (validated like ``nq_eval``)."""
    if not isinstance(record, Mapping) or "example_id" not in record:
        raise ValueError(f"a prediction needs an example_id: {str(record)[:200]}")
    example_id = str(record["example_id"])
    where = f"prediction {example_id}"
    try:
        short = tuple(Span.from_dict(s) for s in record.get("short_answers") or ())
        label = NqLabel(
            example_id=example_id,
            long_answer=Span.from_dict(record.get("long_answer")),
            short_answers=short,
            yes_no_answer=_yes_no(record.get("yes_no_answer")),
            long_score=_score(record, "long_answer_score"),
            short_score=_score(record, "short_answers_score"),
        )
    except (AttributeError, TypeError, ValueError) as err:
        raise ValueError(f"{where}: malformed prediction: {err}") from err
    if label.yes_no_answer != "none" and not is_null_span_list(label.short_answers):
        raise ValueError(f"{where}: yes/no prediction and short answers cannot coexist")
    return label


def predictions_from_json(data: Mapping[str, Any]) -> dict[str, NqLabel]:
    """``{example id: prediction}`` of ``{"predictions": [...]}`` (a repeated id: last wins)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("predictions"), list):
        raise ValueError('NQ predictions must be a JSON object {"predictions": [...]}')
    return {label.example_id: label
            for label in (prediction_label(record) for record in data["predictions"])}


def gold_has_long_answer(labels: Sequence[NqLabel], min_non_null: int = DEFAULT_MIN_NON_NULL
                         ) -> bool:
    """NQ §5.1: at least ``min_non_null`` annotations have a non-null long answer."""
    return bool(labels) and sum(label.has_long_answer for label in labels) >= min_non_null


def gold_has_short_answer(labels: Sequence[NqLabel], min_non_null: int = DEFAULT_MIN_NON_NULL
                          ) -> bool:
    """NQ §5.1: at least ``min_non_null`` annotations have short spans or a yes/no answer."""
    return bool(labels) and sum(label.has_short_answer for label in labels) >= min_non_null


def score_long_answer(gold: Sequence[NqLabel], prediction: NqLabel,
                      min_non_null: int = DEFAULT_MIN_NON_NULL) -> AnswerStat:
    """A non-null prediction is correct iff it equals any non-null annotated long answer."""
    gold_has = gold_has_long_answer(gold, min_non_null)
    pred_has = prediction.has_long_answer
    correct = gold_has and pred_has and any(
        spans_equal(label.long_answer, prediction.long_answer)
        for label in gold if label.has_long_answer)
    return AnswerStat(gold_has, pred_has, correct, prediction.long_score)


def score_short_answer(gold: Sequence[NqLabel], prediction: NqLabel,
                       min_non_null: int = DEFAULT_MIN_NON_NULL) -> AnswerStat:
    """Correct iff the yes/no answer, or else the set of spans, equals any annotation's."""
    gold_has = gold_has_short_answer(gold, min_non_null)
    pred_has = prediction.has_short_answer
    correct = False
    if gold_has and pred_has:
        if prediction.yes_no_answer != "none":
            correct = any(label.yes_no_answer == prediction.yes_no_answer for label in gold)
        else:
            correct = any(span_sets_equal(label.short_answers, prediction.short_answers)
                          for label in gold)
    return AnswerStat(gold_has, pred_has, correct, prediction.short_score)


def score_answers(gold: Mapping[str, Sequence[NqLabel]], predictions: Mapping[str, NqLabel],
                  min_non_null: int = DEFAULT_MIN_NON_NULL,
                  short_min_non_null: int | None = None, strict: bool = False) -> ScoreReport:
    """Long and short :class:`AnswerStat` of every gold example, best score first.

    A gold example without a prediction is scored as a null prediction (score -inf: it never
    becomes a threshold); predictions of ids not in the gold are ignored and listed.
    ``strict=True`` raises ``ValueError`` on either, as ``nq_eval`` does.
    """
    short_min = min_non_null if short_min_non_null is None else short_min_non_null
    missing = sorted(set(gold) - set(predictions))
    unknown = sorted(set(predictions) - set(gold))
    if strict and (missing or unknown):
        raise ValueError(f"the example ids of gold and predictions differ: {len(missing)} gold "
                         f"ids without prediction, {len(unknown)} prediction ids not in gold")
    long_stats, short_stats = [], []
    for example_id, labels in gold.items():
        prediction = predictions.get(example_id)
        if prediction is None:
            prediction = NqLabel(example_id, long_score=-math.inf, short_score=-math.inf)
        long_stats.append(score_long_answer(labels, prediction, min_non_null))
        short_stats.append(score_short_answer(labels, prediction, short_min))
    long_stats.sort(key=lambda stat: stat.score, reverse=True)
    short_stats.sort(key=lambda stat: stat.score, reverse=True)
    return ScoreReport(long_stats, short_stats, missing, unknown)


def _safe_divide(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


@dataclass(frozen=True)
class ThresholdResult:
    """The best-F1 point of the score sweep and the maximum recall at each precision target."""

    f1: float
    precision: float
    recall: float
    threshold: float
    recall_at_precision: tuple[tuple[float, float, float, float | None], ...]
    """``(target, recall, precision, threshold)`` per target; zeros/None when never reached."""


def best_threshold(stats: Sequence[AnswerStat],
                   targets: Sequence[float] = PRECISION_TARGETS) -> ThresholdResult:
    """Sweep the score threshold from the highest score down (``stats`` in that order)."""
    total_gold = sum(stat.gold_has_answer for stat in stats)
    correct = predicted = 0
    points: dict[float, tuple[float, float]] = {}  # insertion order: descending score
    for stat in stats:
        correct += stat.is_correct
        predicted += stat.pred_has_answer
        # a tie is overwritten until all its predictions are counted
        points[stat.score] = (_safe_divide(correct, predicted), _safe_divide(correct, total_gold))
    best = (0.0, 0.0, 0.0, 0.0)
    at_target: list[tuple[float, float, float | None]] = [(0.0, 0.0, None) for _ in targets]
    for threshold, (precision, recall) in points.items():
        for i, target in enumerate(targets):
            if precision >= target and recall > at_target[i][0]:
                at_target[i] = (recall, precision, threshold)
        f1 = _safe_divide(2 * precision * recall, precision + recall)
        if f1 > best[0]:
            best = (f1, precision, recall, threshold)
    return ThresholdResult(*best, recall_at_precision=tuple(
        (target, *point) for target, point in zip(targets, at_target, strict=True)))


def metrics_from_stats(long_stats: Sequence[AnswerStat], short_stats: Sequence[AnswerStat]
                       ) -> dict[str, float]:
    """The official metric dict (:data:`METRIC_KEYS`) of sorted long and short stats."""
    metrics: dict[str, float] = {}
    for prefix, stats in (("long-", long_stats), ("short-", short_stats)):
        result = best_threshold(stats)
        metrics[prefix + "best-threshold-f1"] = result.f1
        metrics[prefix + "best-threshold-precision"] = result.precision
        metrics[prefix + "best-threshold-recall"] = result.recall
        metrics[prefix + "best-threshold"] = result.threshold
        for target, recall, precision, _ in result.recall_at_precision:
            metrics[f"{prefix}recall-at-precision>={target:.2}"] = recall
            metrics[f"{prefix}precision-at-precision>={target:.2}"] = precision
    return metrics


def nq_metrics(gold: Mapping[str, Sequence[NqLabel]], predictions: Mapping[str, NqLabel],
               min_non_null: int = DEFAULT_MIN_NON_NULL,
               short_min_non_null: int | None = None, strict: bool = False
               ) -> dict[str, float]:
    """NQ long/short best-threshold F1, P, R, threshold and R@P, keyed as ``nq_eval``."""
    report = score_answers(gold, predictions, min_non_null, short_min_non_null, strict)
    return metrics_from_stats(report.long, report.short)


# ---------------------------------------------------------------------------------------------
# Files: gold (jsonl / jsonl.gz, globs) and the official predictions JSON


def expand_paths(patterns: str | Iterable[str]) -> list[str]:
    """Files matching glob patterns (a directory: its ``*.jsonl`` and ``*.jsonl.gz``)."""
    paths: list[str] = []
    for pattern in [patterns] if isinstance(patterns, str) else patterns:
        if Path(pattern).is_dir():
            found = [str(p) for p in sorted(Path(pattern).rglob("*"))
                     if p.name.endswith((".jsonl", ".jsonl.gz"))]
        else:
            found = sorted(glob.glob(pattern))
        if not found:
            raise FileNotFoundError(f"no gold file matches {pattern}")
        paths.extend(found)
    return paths


def iter_jsonl(path: str) -> Iterator[dict[str, Any]]:
    """JSON objects of a JSON-lines file (gunzipped when it ends in ``.gz``)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                yield safe_json.loads(line)
            except ValueError as err:  # malformed, or nested too deeply (JsonTooDeep)
                raise ValueError(f"{path}:{number}: not JSON: {err}") from err


def read_gold(patterns: str | Iterable[str]) -> dict[str, list[NqLabel]]:
    """Gold annotations of NQ files (glob patterns, ``.jsonl.gz`` or ``.jsonl``)."""
    gold: dict[str, list[NqLabel]] = {}
    for path in expand_paths(patterns):
        gold.update(gold_from_examples(iter_jsonl(path)))
    return gold


def read_predictions(path: str) -> dict[str, NqLabel]:
    """Predictions of an official predictions JSON file."""
    with open(path, encoding="utf-8") as handle:
        try:
            data = safe_json.load(handle)
        except ValueError as err:  # malformed, or nested too deeply (JsonTooDeep)
            raise ValueError(f"{path}: not JSON: {err}") from err
    return predictions_from_json(data)
