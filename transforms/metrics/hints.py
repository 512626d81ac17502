"""Likely causes of predictions that match no gold id or score all zeros, one line each.

``evaluate`` prints these after its error (no prediction id in the gold, exit 2) or as
warnings (every score 0, exit 0): a first attempt that scores nothing is nearly always a
format mistake the numbers alone do not show. Each function returns the hints it can
support from the inputs, possibly none; none changes a score.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

from transforms.metrics.jnq import paragraph_set
from transforms.metrics.nq import NqLabel, gold_has_long_answer

_FLOAT = re.compile(r"^-?\d+(\.\d*)?(e[+-]?\d+)?$", re.IGNORECASE)
_INT = re.compile(r"^-?\d+$")
WRAPPERS = ("predictions", "data", "answers", "results", "rankings")
OFFSETS = ("start_byte", "end_byte", "start_token", "end_token")


def _sample(ids: Iterable[Any], limit: int = 3) -> str:
    ids = sorted(map(str, ids))
    return ", ".join(ids[:limit]) + (", ..." if len(ids) > limit else "")


def unmatched_id_hints(predicted: Collection[str], gold: Collection[str],
                       other_splits: Mapping[str, Collection[str]] | None = None,
                       questions: Mapping[str, str] | None = None) -> list[str]:
    """Why no predicted id is a gold id: ids of another split (``other_splits``: split ->
    its ids), floats, case or spaces, question texts (``questions``: id -> text) or a
    wrapping key; else what the ids of each side look like."""
    predicted, gold = set(map(str, predicted)), set(map(str, gold))
    hints = []
    if len(predicted) == 1 and next(iter(predicted)) in WRAPPERS:
        hints.append(f"the file wraps everything in {next(iter(predicted))!r}: the ids must be "
                     "the top-level keys of the JSON object")
    for split, ids in sorted((other_splits or {}).items()):
        shared = predicted & set(map(str, ids))
        if shared:
            hints.append(f"{len(shared)} of the prediction ids are ids of split {split!r}: "
                         f"pass --split {split}")
    if (any(_INT.match(g) for g in gold)
            and any(_FLOAT.match(p) and not _INT.match(p) for p in predicted)):
        hints.append("the prediction ids are floating-point numbers (e.g. "
                     f"{_sample(p for p in predicted if not _INT.match(p))}), which lose digits "
                     "past 2**53: write the ids as JSON integers or strings, as the gold has them")
    folded = {g.strip().lower() for g in gold}
    if sum(p.strip().lower() in folded for p in predicted) > len(predicted) / 2:
        hints.append("the ids differ from the gold ids only in case or surrounding spaces")
    if questions:
        texts = {text.strip() for text in questions.values()}
        if sum(p.strip() in texts for p in predicted) > len(predicted) / 2:
            hints.append("the keys are question texts: key each ranking by the question's qid")
    if not hints:
        hints.append(f"gold ids look like {_sample(gold)}; prediction ids like "
                     f"{_sample(predicted)}")
    return hints


def nq_zero_hints(records: Sequence[Mapping[str, Any]], gold: Mapping[str, Sequence[NqLabel]],
                  predictions: Mapping[str, NqLabel], threshold: int) -> list[str]:
    """Why no NQ long answer is correct: gold without answers at ``threshold``, long answers
    given by ``candidate_index`` or unread keys, offsets in the wrong fields, or spans that
    are no annotated long answer. ``records``: the predictions JSON's entries."""
    hints = []
    most = max((sum(label.has_long_answer for label in labels) for labels in gold.values()),
               default=0)
    if not any(gold_has_long_answer(labels, threshold) for labels in gold.values()):
        hints.append(f"no gold example has a long answer at --threshold {threshold} (the most "
                     f"non-null long-answer annotations of one example is {most}): NQ train is "
                     "annotated once, so score train with --threshold 1, or pass --split dev")
    scored = [p for example_id, p in predictions.items() if example_id in gold]
    non_null = [p for p in scored if p.has_long_answer]
    long_answers = [r.get("long_answer") for r in records if isinstance(r, Mapping)]
    by_index = sum(isinstance(a, Mapping) and _number(a, "candidate_index") >= 0
                   and all(_number(a, k) < 0 for k in OFFSETS) for a in long_answers)
    if by_index:
        hints.append(f"{by_index} long answer(s) give only candidate_index: the evaluator (as "
                     "nq_eval) reads start_token/end_token and start_byte/end_byte; copy the "
                     "candidate's offsets from long_answer_candidates")
    unread = sorted({k for a in long_answers if isinstance(a, Mapping) for k in a}
                    - {*OFFSETS, "candidate_index"})
    if unread:
        hints.append(f"long_answer keys {', '.join(unread)} are not read: a span is "
                     f"{', '.join(OFFSETS)}")
    if not non_null and not by_index and not unread:
        if not any(long_answers):
            hints.append("no prediction has a long_answer: every prediction is null")
        else:
            hints.append("every long_answer is null (all four offsets -1 or missing)")
    if non_null and not hints:
        annotated = [label.long_answer for labels in gold.values() for label in labels
                     if label.has_long_answer]
        tokens = {(s.start_token, s.end_token) for s in annotated}
        byte_spans = {(s.start_byte, s.end_byte) for s in annotated}
        swapped = sum((s.has_bytes and (s.start_byte, s.end_byte) in tokens)
                      or (s.has_tokens and (s.start_token, s.end_token) in byte_spans)
                      for s in (p.long_answer for p in non_null))
        if swapped:
            hints.append(f"{swapped} long answer(s) have token offsets in start_byte/end_byte "
                         "or byte offsets in start_token/end_token: tokens index "
                         "document_tokens, bytes are UTF-8 byte offsets of document_html")
        else:
            hints.append(f"none of the {len(non_null)} non-null long answers equals an "
                         "annotated long answer: a long answer is a whole candidate of "
                         "long_answer_candidates (same start and end token, or byte), not a "
                         "sentence inside one")
    return hints


def _number(record: Mapping[str, Any], key: str) -> float:
    value = record.get(key)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else -1


def nlquad_zero_hints(predictions: Mapping[str, Any], result: Mapping[str, Any],
                      as_words: Mapping[str, Any] | None = None) -> list[str]:
    """Why NLQuAD predictions score (nearly) nothing: empty answers, texts not found in the
    context, or word positions given as character offsets (``as_words``: the scores of the
    character offsets read as ``answer_word_start/end``, when all fit in the words)."""
    hints = []
    values = list(predictions.values())
    if values and all(v == "" or v is None for v in values):
        hints.append("every prediction is the empty answer")
    n = result.get("n") or 0
    if n and result.get("n_unlocated_text_predictions") == n - result.get(
            "n_missing_predictions", 0):
        hints.append("none of the answer texts occurs in its context (or as its words): "
                     "predict text copied from the release's context, or give offsets")
    if as_words and as_words.get("iou", 0) > result.get("iou", 0):
        hints.append("answer_start/answer_end are character offsets into context; read as "
                     f"word positions they score IoU {as_words['iou']:.3f} and F1 "
                     f"{as_words['f1']:.3f}: name them answer_word_start/answer_word_end")
    return hints


def as_word_offsets(predictions: Mapping[str, Any], word_counts: Mapping[str, int]
                    ) -> dict[str, dict[str, int]]:
    """The character-offset predictions renamed as word offsets (for the check above), or
    ``{}`` when an end is past its context's word count (``word_counts``: id -> words)."""
    renamed = {}
    for qid, p in predictions.items():
        if (qid in word_counts and isinstance(p, Mapping)
                and {"answer_start", "answer_end"} <= p.keys()):
            start, end = p["answer_start"], p["answer_end"]
            if not (isinstance(start, int) and isinstance(end, int)
                    and 0 <= start <= end <= word_counts[qid]):
                return {}
            renamed[qid] = {"answer_word_start": start, "answer_word_end": end}
    return renamed


def reqa_unknown_hints(rankings: Mapping[str, Sequence[str]],
                       paragraph_of: Mapping[str, tuple[str, str]]) -> list[str]:
    """Why ranked ids are not candidate ids: paragraph ids, positions, or something else."""
    ranked = {c for ranking in rankings.values() for c in ranking}
    unknown = ranked - set(paragraph_of)
    if not unknown or len(unknown) < len(ranked) / 2:
        return []
    paragraphs = {p for _, p in paragraph_of.values()}
    if len(unknown & paragraphs) > len(unknown) / 2:
        return ["the rankings hold paragraph ids: rank the candidate_id of candidate sentences "
                "(candidates/*.parquet)"]
    if all(_INT.match(c) for c in unknown) and not all(_INT.match(c) for c in paragraph_of):
        return ["the ranked ids are numbers (positions?): rank candidate_id values of "
                f"candidates/*.parquet, e.g. {_sample(paragraph_of)}"]
    return [f"most ranked ids are not candidate ids: candidate ids look like "
            f"{_sample(paragraph_of)}, ranked ids like {_sample(unknown)}"]


def jnq_zero_hints(gold: Mapping[Any, Any], predictions: Mapping[str, Any],
                   result: Mapping[str, Any]) -> list[str]:
    """Why no predicted JNQ paragraph is a gold paragraph: all NONE, or other ids."""
    if result.get("tp") or not result.get("fn"):
        return []
    if result.get("n_predicted_none") == result.get("n_questions"):
        return ["every prediction is NONE (an empty list, null or \"NONE\")"]
    for qid, value in sorted(gold.items(), key=lambda item: str(item[0])):
        predicted, expected = paragraph_set(predictions.get(str(qid))), paragraph_set(value)
        if predicted and expected:
            return ["none of the predicted paragraph ids is a gold paragraph of its question "
                    f"(e.g. {qid}: predicted {sorted(predicted)}, gold {sorted(expected)}): "
                    "paragraph ids are the ids of the row's paragraphs "
                    "(candidate_paragraph_ids), not candidate ranks or list positions"]
    return []
