"""Answer-span checks a release kind declares (``TableInvariants.spans``): does each answer
still match the text it points into?

Each check names the columns it reads (dotted paths) and gives the rows of a record batch
that break it; ``transforms.release.invariants`` reads the columns and names the rows. A
check with ``select`` first reads those (cheap) columns of a row group and reads the heavy
ones only for the rows ``needs`` picks: NQ's token columns only for annotated examples.
Rows are checked in Python, one at a time, over columns decoded once per batch
(``BatchValues``): ``str`` slicing and ``split`` run in C, and measured faster than the same
checks vectorized over Arrow's UTF-8 buffers (Arrow has no substring kernel taking an offset
per row); only SQuAD's answer lists are taken apart with Arrow, as decoding the structs costs
more than the check.

* ``char_span``: ``text[start:end] == answer`` (characters, end exclusive): NLQuAD's
  ``answer_text``, ReQA's ``sentence``;
* ``word_span``: ``answer_word_start`` is the number of ``context.split()`` words before
  ``answer_start`` and the span has as many words as the answer (NLQuAD);
* ``squad_answers``: ``answers{text, answer_start}``: ``context[s:s + len(t)] == t`` for each
  pair (NLQuAD, JNQ's ``squad_v2``);
* ``nq_annotations``: NQ's token offsets (HF layout): a long answer is the candidate it names,
  a short answer's bytes are its tokens' and its text their non-HTML tokens;
* ``nq_simplified_annotations``: the same offsets against the simplified ``document_text``;
* ``paragraph_spans``: JNQ annotations name a paragraph of the row, and a span annotation's
  ``span_text`` is that paragraph's ``[span_start:span_end]``.

One check is no answer span but a row's own consistency, reported under its own reason:

* ``variant_selection`` (``selection_mismatch``): a JNQ row records the JNQ §3.1 pattern(s)
  it was kept for and a JBoolQ row none (JBoolQ §4 keeps a question for its yes/no form), so
  rows of one variant relabelled as the other (a re-sealed release) do not pass as its rows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from transforms.release.diff import column_values

Batch = pa.RecordBatch | pa.Table


def arrow_column(batch: Batch, path: str) -> pa.Array:
    """The array of a dotted column (``a.b``: field ``b`` of struct ``a``) of a batch."""
    head, *rest = path.split(".")
    array: Any = batch.column(batch.schema.get_field_index(head))
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    for part in rest:
        array = pc.struct_field(array, part)
    return array


class BatchValues:
    """A record batch's columns as Arrow arrays and as Python values, each column decoded
    once however many checks read it."""

    def __init__(self, batch: Batch):
        self.batch = batch
        self._python: dict[str, list] = {}

    def arrow(self, path: str) -> pa.Array:
        return arrow_column(self.batch, path)

    def python(self, path: str) -> list:
        if path not in self._python:
            self._python[path] = column_values(self.batch, path)
        return self._python[path]


@dataclass(frozen=True)
class SpanCheck:
    """One answer-span rule of a table: what must hold, the columns it reads, the rows of a
    batch that break it; ``select`` and ``needs`` pick the rows worth reading in full."""

    rule: str
    columns: tuple[str, ...]
    bad_rows: Callable[[BatchValues], Sequence[int]]
    select: tuple[str, ...] = ()
    needs: Callable[[BatchValues], Sequence[bool]] | None = None
    reason: str | None = None  # the violation's reason; None: answer_span_mismatch


def _python(columns: Sequence[str], row_ok: Callable[..., bool]
            ) -> Callable[[BatchValues], list[int]]:
    """A check of one row at a time over the Python values of ``columns``."""
    def bad(values: BatchValues) -> list[int]:
        rows = zip(*(values.python(c) for c in columns), strict=True)
        return [i for i, row in enumerate(rows) if not row_ok(*row)]
    return bad


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _slice_is(text: Any, start: Any, end: Any, answer: Any) -> bool:
    return (isinstance(text, str) and isinstance(answer, str) and _is_int(start)
            and _is_int(end) and 0 <= start <= end <= len(text) and text[start:end] == answer)


def char_span(text: str, start: str, end: str, answer: str) -> SpanCheck:
    """``text[start:end] == answer``, character offsets, end exclusive."""
    columns = (text, start, end, answer)
    return SpanCheck(f"{text}[{start}:{end}] == {answer}", columns, _python(columns, _slice_is))


def _words_ok(context: Any, first: Any, words_before: Any, words_end: Any,
              found: Any) -> bool:
    return (isinstance(context, str) and isinstance(found, str) and _is_int(first)
            and _is_int(words_before) and _is_int(words_end) and 0 <= first <= len(context)
            and len(context[:first].split()) == words_before
            and words_end - words_before == len(found.split()))


def word_span(text: str, start: str, word_start: str, word_end: str,
              answer: str) -> SpanCheck:
    """``word_start`` words of ``text.split()`` before character ``start``, and
    ``word_end - word_start`` words in ``answer``."""
    columns = (text, start, word_start, word_end, answer)
    return SpanCheck(f"{text}.split()[{word_start}:{word_end}] are the words of {answer}",
                     columns, _python(columns, _words_ok))


def squad_answers(context: str, answers: str) -> SpanCheck:
    """SQuAD's ``answers{text, answer_start}``: as many starts as texts, each text at its
    start in ``context``. The lists are taken apart with Arrow (decoding the structs in
    Python would cost more than the check)."""
    def bad(values: BatchValues) -> np.ndarray:
        found = values.arrow(answers)
        texts, starts = pc.struct_field(found, "text"), pc.struct_field(found, "answer_start")
        wrong = (pc.list_value_length(texts).fill_null(-1).to_numpy()
                 != pc.list_value_length(starts).fill_null(-2).to_numpy())
        wrong |= ~found.is_valid().to_numpy(zero_copy_only=False)
        rows = pc.list_parent_indices(texts).to_numpy()
        keep = pa.array(~wrong[rows])  # the rows whose lists pair up
        contexts = values.python(context)
        for row, text, first in zip(rows[keep.to_numpy(zero_copy_only=False)],
                                    pc.list_flatten(texts).filter(keep).to_pylist(),
                                    pc.list_flatten(starts).filter(keep).to_pylist(),
                                    strict=True):
            if not (isinstance(text, str) and _is_int(first)
                    and _slice_is(contexts[row], first, first + len(text), text)):
                wrong[row] = True
        return np.flatnonzero(wrong)
    return SpanCheck(f"{context}[s:s+len(t)] == t for each t, s of {answers}",
                     (context, answers), bad)


# NQ ----------------------------------------------------------------------------------------

_OFFSETS = ("start_token", "end_token", "start_byte", "end_byte")
_NQ_TOKENS = ("document.tokens.token", "document.tokens.is_html",
              "document.tokens.start_byte", "document.tokens.end_byte")


def _span_ok(start: Any, end: Any, count: int) -> bool:
    return _is_int(start) and _is_int(end) and 0 <= start < end <= count


def _long_answer_ok(answer: Any, candidates: Sequence[dict[str, Any]], count: int,
                    keys: Sequence[str]) -> bool:
    """A long answer is the candidate it names (every offset), or no answer (-1), or, with
    no candidate named (NQ's own data has some), a span of the document."""
    if not isinstance(answer, dict):
        return False
    index = answer.get("candidate_index")
    if not _is_int(index):
        return False
    if index >= 0:
        return index < len(candidates) and all(answer.get(k) == candidates[index].get(k)
                                               for k in keys)
    if all(answer.get(k) == -1 for k in keys):
        return True
    return _span_ok(answer.get("start_token"), answer.get("end_token"), count)


def _rows_of(columns: Any, keys: Sequence[str]) -> list[dict[str, Any]]:
    """A struct of lists (``datasets``' sequence of records) as a list of records."""
    if not isinstance(columns, dict):
        return []
    lists = [columns.get(k) or [] for k in keys]
    if len({len(v) for v in lists}) > 1:
        return []
    return [dict(zip(keys, row, strict=True)) for row in zip(*lists, strict=True)]


def _nq_short_ok(shorts: Any, tokens: Sequence[str], is_html: Sequence[bool],
                 starts: Sequence[int], ends: Sequence[int]) -> bool:
    if not isinstance(shorts, dict):
        return False
    keys = (*_OFFSETS, "text")
    lists = [shorts.get(k) or [] for k in keys]
    if len({len(v) for v in lists}) > 1:
        return False
    for start, end, start_byte, end_byte, text in zip(*lists, strict=True):
        if not _span_ok(start, end, len(tokens)):
            return False
        words = " ".join(t for t, h in zip(tokens[start:end], is_html[start:end], strict=True)
                         if not h)
        if start_byte != starts[start] or end_byte != ends[end - 1] or text != words:
            return False
    return True


def _nq_row_ok(annotations: Any, candidates: Any, tokens: Any, is_html: Any, starts: Any,
               ends: Any) -> bool:
    if not isinstance(annotations, dict) or not isinstance(tokens, list):
        return False
    if not (isinstance(is_html, list) and isinstance(starts, list) and isinstance(ends, list)
            and len(tokens) == len(is_html) == len(starts) == len(ends)):
        return False
    longs = annotations.get("long_answer") or []
    shorts = annotations.get("short_answers") or []
    if len({len(annotations.get(k) or []) for k in ("id", "long_answer", "short_answers",
                                                     "yes_no_answer")}) > 1:
        return False
    boxes = _rows_of(candidates, _OFFSETS)
    return (all(_long_answer_ok(a, boxes, len(tokens), _OFFSETS) for a in longs)
            and all(_nq_short_ok(s, tokens, is_html, starts, ends) for s in shorts))


def nq_annotations(annotations: str = "annotations",
                   candidates: str = "long_answer_candidates") -> SpanCheck:
    """NQ's HF layout: each annotation's long answer is the candidate it names (tokens and
    bytes), each short answer a span of the document's tokens whose bytes are those tokens'
    and whose ``text`` is their non-HTML tokens joined by spaces."""
    columns = (annotations, candidates, *_NQ_TOKENS)
    return SpanCheck("each annotation's long and short answers are spans of document.tokens "
                     "(the named candidate; their bytes and text)", columns,
                     _python(columns, _nq_row_ok), select=(f"{annotations}.id",),
                     needs=_any_in(f"{annotations}.id"))


def _simplified_row_ok(annotations: Any, candidates: Any, text: Any) -> bool:
    if not isinstance(annotations, list) or not isinstance(text, str):
        return False
    count = len(text.split(" ")) if text else 0
    boxes = [c for c in candidates or [] if isinstance(c, dict)]
    for annotation in annotations:
        if not isinstance(annotation, dict) or not _long_answer_ok(
                annotation.get("long_answer"), boxes, count, ("start_token", "end_token")):
            return False
        for short in annotation.get("short_answers") or []:
            if not isinstance(short, dict) or not _span_ok(short.get("start_token"),
                                                           short.get("end_token"), count):
                return False
    return True


def nq_simplified_annotations(annotations: str = "annotations",
                              candidates: str = "long_answer_candidates",
                              text: str = "document_text") -> SpanCheck:
    """NQ's simplified layout: long answers are the candidates they name, short answers
    spans of ``document_text``'s space-separated tokens."""
    columns = (annotations, candidates, text)
    return SpanCheck(f"each annotation's answers are spans of {text}'s tokens (the named "
                     "candidate)", columns, _python(columns, _simplified_row_ok),
                     select=(annotations,), needs=_any_in(annotations))


# JNQ ---------------------------------------------------------------------------------------

def paragraph_spans(span_type: int, annotations: str = "annotations",
                    paragraphs: str = "paragraphs") -> SpanCheck:
    """JNQ's annotations: each names a paragraph of the row; one whose
    ``short_answer_type`` is ``span_type`` (the class-label index of ``span``) has
    ``span_text == paragraph[span_start:span_end]``."""
    def ok(found: Any, texts: Any) -> bool:
        if not isinstance(found, list) or not isinstance(texts, list):
            return False
        by_id = {p.get("id"): p.get("text") for p in texts if isinstance(p, dict)}
        for annotation in found:
            if not isinstance(annotation, dict) or annotation.get("paragraph_id") not in by_id:
                return False
            if annotation.get("short_answer_type") == span_type and not _slice_is(
                    by_id[annotation["paragraph_id"]], annotation.get("span_start"),
                    annotation.get("span_end"), annotation.get("span_text")):
                return False
        return True

    columns = (annotations, paragraphs)
    return SpanCheck(f"each annotation names a paragraph of {paragraphs}, and a span's "
                     "span_text is paragraph[span_start:span_end]", columns,
                     _python(columns, ok), select=(annotations,), needs=_any_in(annotations))


def _any_in(column: str) -> Callable[[BatchValues], np.ndarray]:
    """The rows whose list ``column`` is not empty."""
    def needs(values: BatchValues) -> np.ndarray:
        return pc.list_value_length(values.arrow(column)).fill_null(0).to_numpy() > 0
    return needs


SELECTION_MISMATCH = "selection_mismatch"
JNQ_VARIANT, JBOOLQ_VARIANT = 0, 1  # the class-label indexes of transforms.jnq.labels


def _selection_ok(variant: Any, patterns: Any) -> bool:
    if variant == JNQ_VARIANT:
        return bool(patterns)
    return variant == JBOOLQ_VARIANT and not patterns


def variant_selection(variant: str = "variant", patterns: str = "patterns") -> SpanCheck:
    """A ``jnq`` row (0) matched at least one JNQ §3.1 pattern, a ``jboolq`` row (1) none:
    JBoolQ §4 selects by yes/no form and records no pattern."""
    return SpanCheck(f"{variant} 0 (jnq) records a pattern and {variant} 1 (jboolq) none",
                     (variant, patterns), _python((variant, patterns), _selection_ok),
                     reason=SELECTION_MISMATCH)
