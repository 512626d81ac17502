"""Answer-span checks a release kind declares (``TableInvariants.spans``): does each answer
still match the text it points into?

Each check names the columns it reads (dotted paths) and gives the rows of a batch that
break it; ``transforms.release.invariants`` reads the columns and names the rows. A check
with ``select`` first reads those (cheap) columns of a row group and reads the heavy ones
only for the rows ``needs`` picks: NQ's token columns only for annotated examples.

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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Values = Mapping[str, list]  # dotted column -> the batch's Python values


@dataclass(frozen=True)
class SpanCheck:
    """One answer-span rule of a table: what must hold, the columns it reads, the rows of a
    batch that break it; ``select`` and ``needs`` pick the rows worth reading in full."""

    rule: str
    columns: tuple[str, ...]
    bad_rows: Callable[[Values], list[int]]
    select: tuple[str, ...] = ()
    needs: Callable[[Values], list[bool]] | None = None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _slice_is(text: Any, start: Any, end: Any, answer: Any) -> bool:
    return (isinstance(text, str) and isinstance(answer, str) and _is_int(start)
            and _is_int(end) and 0 <= start <= end <= len(text) and text[start:end] == answer)


def char_span(text: str, start: str, end: str, answer: str) -> SpanCheck:
    """``text[start:end] == answer``, character offsets, end exclusive."""
    def bad(values: Values) -> list[int]:
        rows = zip(values[text], values[start], values[end], values[answer], strict=True)
        return [i for i, row in enumerate(rows) if not _slice_is(*row)]
    return SpanCheck(f"{text}[{start}:{end}] == {answer}", (text, start, end, answer), bad)


def word_span(text: str, start: str, word_start: str, word_end: str,
              answer: str) -> SpanCheck:
    """``word_start`` words of ``text.split()`` before character ``start``, and
    ``word_end - word_start`` words in ``answer``."""
    def ok(context: Any, first: Any, words_before: Any, words_end: Any, found: Any) -> bool:
        return (isinstance(context, str) and isinstance(found, str) and _is_int(first)
                and _is_int(words_before) and _is_int(words_end)
                and 0 <= first <= len(context)
                and len(context[:first].split()) == words_before
                and words_end - words_before == len(found.split()))

    def bad(values: Values) -> list[int]:
        rows = zip(values[text], values[start], values[word_start], values[word_end],
                   values[answer], strict=True)
        return [i for i, row in enumerate(rows) if not ok(*row)]
    return SpanCheck(f"{text}.split()[{word_start}:{word_end}] are the words of {answer}",
                     (text, start, word_start, word_end, answer), bad)


def squad_answers(context: str, answers: str) -> SpanCheck:
    """SQuAD's ``answers{text, answer_start}``: as many starts as texts, each text at its
    start in ``context``."""
    def ok(text: Any, found: Any) -> bool:
        if not isinstance(found, dict):
            return False
        texts, starts = found.get("text"), found.get("answer_start")
        if not isinstance(texts, list) or not isinstance(starts, list) or \
                len(texts) != len(starts):
            return False
        return all(_is_int(s) and isinstance(t, str) and _slice_is(text, s, s + len(t), t)
                   for t, s in zip(texts, starts, strict=True))

    def bad(values: Values) -> list[int]:
        return [i for i, row in enumerate(zip(values[context], values[answers], strict=True))
                if not ok(*row)]
    return SpanCheck(f"{context}[s:s+len(t)] == t for each t, s of {answers}",
                     (context, answers), bad)


# NQ ----------------------------------------------------------------------------------------

_OFFSETS = ("start_token", "end_token", "start_byte", "end_byte")
_NQ_TOKENS = ("document.tokens.token", "document.tokens.is_html",
              "document.tokens.start_byte", "document.tokens.end_byte")


def _nq_annotated(annotations: Any) -> bool:
    """Whether an HF-layout ``annotations`` value holds any span (a long or short answer)."""
    if not isinstance(annotations, dict):
        return annotations is not None
    longs = annotations.get("long_answer") or []
    shorts = annotations.get("short_answers") or []
    return any(a.get("candidate_index", -1) != -1 or a.get("start_token", -1) != -1
               for a in longs if isinstance(a, dict)) or any(
        (s or {}).get("start_token") for s in shorts)


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

    def bad(values: Values) -> list[int]:
        rows = zip(*(values[c] for c in columns), strict=True)
        return [i for i, row in enumerate(rows) if not _nq_row_ok(*row)]

    def needs(values: Values) -> list[bool]:
        return [_nq_annotated(a) for a in values[annotations]]
    return SpanCheck("each annotation's long and short answers are spans of document.tokens "
                     "(the named candidate; their bytes and text)", columns, bad,
                     select=(annotations,), needs=needs)


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
    def bad(values: Values) -> list[int]:
        rows = zip(values[annotations], values[candidates], values[text], strict=True)
        return [i for i, row in enumerate(rows) if not _simplified_row_ok(*row)]

    def needs(values: Values) -> list[bool]:
        return [bool(a) for a in values[annotations]]
    return SpanCheck(f"each annotation's answers are spans of {text}'s tokens (the named "
                     "candidate)", (annotations, candidates, text), bad,
                     select=(annotations,), needs=needs)


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

    def bad(values: Values) -> list[int]:
        rows = zip(values[annotations], values[paragraphs], strict=True)
        return [i for i, row in enumerate(rows) if not ok(*row)]

    def needs(values: Values) -> list[bool]:
        return [bool(a) for a in values[annotations]]
    return SpanCheck(f"each annotation names a paragraph of {paragraphs}, and a span's "
                     "span_text is paragraph[span_start:span_end]", (annotations, paragraphs),
                     bad, select=(annotations,), needs=needs)
