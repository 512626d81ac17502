"""Natural Questions examples as Google's ``nq_browser`` shows them, as static HTML.

The index row of an example: its question, the page title (a link to the page), the long
answer as text (shortened) and the short answer(s) or YES/NO. Its detail: the question, the
top-level long-answer candidates in order, labelled and rendered as readable text by
``transforms.annotation.render`` (the page's own words, quotes and spacing, not PTB tokens;
HTML tokens skipped; table rows, cells and list items laid out); the chosen long answer green
(``long-answer``), a top-level candidate containing it shaded (``contains-answer``), the short
answers marked inside (``<mark class="short-answer">``) and below it all the raw page HTML in
a sandboxed ``iframe`` (no scripts, no same origin).

One numbering throughout, the one annotators chose from: a candidate's number is its index
in the example's whole candidate list (``long_answer.candidate_index``), and its label is the
one the annotation tasks give it ("#4 Ul (top level)"; a nested answer "#3 Tr in #1").

Which answer is shown follows ``nq_browser`` and NQ's evaluation (§5.1): one annotation is
shown as it is; of several (5-way dev/test), the example has a long (short) answer when at
least two annotations give one, and the most frequent one is shown (the first of ties). A
release without annotations shows the candidates only. Every element carrying an answer
names its document-token span (``data-start-token``, ``data-end-token``, end exclusive).
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from html import unescape
from typing import Any

import pyarrow as pa

from transforms.annotation.render import render_candidates
from transforms.browse import html as h
from transforms.browse.base import Entry, ReleaseView
from transforms.metrics.nq import DEFAULT_MIN_NON_NULL
from transforms.nq.examples import HF_SCHEMA, YES_NO_CODES
from transforms.release.tables import Table

LINE_BREAK = ("\n", "<br>")  # render.py's line breaks (table rows, list items, blocks)
YES_NO = {code: name for name, code in YES_NO_CODES.items() if code >= 0}


def page_link(url: str, label: str) -> str:
    """A link to an NQ page: NQ stores its URLs HTML-escaped (``...title=T&amp;oldid=N``),
    so they are unescaped once before ``html.link`` (http(s) only)."""
    return h.link(unescape(url or ""), label)


@dataclass(frozen=True)
class Span:
    """Characters ``[start, end)`` of a text wrapped in ``<tag attrs>``. With ``offset`` not
    None every piece of it also carries ``data-start``/``data-end``: its own characters plus
    ``offset`` (a span crossing another is split into pieces so the HTML nests)."""

    start: int
    end: int
    tag: str
    attrs: tuple[tuple[str, Any], ...] = ()
    offset: int | None = None

    def opening(self, start: int, end: int) -> str:
        attrs = list(self.attrs)
        if self.offset is not None:
            attrs += [("data-start", start + self.offset), ("data-end", end + self.offset)]
        rendered = "".join(f' {name}="{h.attr(value)}"' for name, value in attrs)
        return f"<{self.tag}{rendered}>"


def highlight(text: str, spans: Iterable[Span], inserts: Sequence[tuple[int, str]] = (),
              breaks: tuple[str, str] | None = None) -> str:
    """``text`` escaped, with each span wrapped in its element and each ``(position, html)``
    insert placed at its position; with ``breaks=(separator, html)`` the html follows every
    separator. Spans nest outermost first (earlier start, then later end); a span crossing
    one that closes first is closed with it and reopened after, and inserts stand outside
    every span (spans open there are closed before and reopened after), so the HTML always
    nests and each piece's text is its characters. Spans outside the text or empty are left
    out."""
    ordered = sorted((s for s in spans if h.is_number(s.start) and h.is_number(s.end)
                      and 0 <= s.start < s.end <= len(text)),
                     key=lambda s: (s.start, -s.end))
    placed: dict[int, list[str]] = {}
    for position, fragment in inserts:
        at = min(max(position, 0), len(text)) if h.is_number(position) else len(text)
        placed.setdefault(at, []).append(fragment)
    cuts = sorted({0, len(text), *placed, *(s.start for s in ordered),
                   *(s.end for s in ordered)})
    parts: list[str] = []
    stack: list[int] = []
    opened: list[tuple[int, int]] = []
    for cut, following in zip(cuts, [*cuts[1:], None], strict=True):
        active = [] if following is None else [
            i for i, s in enumerate(ordered) if s.start <= cut < s.end]
        keep = 0
        while (cut not in placed and keep < min(len(stack), len(active))
               and stack[keep] == active[keep]):
            keep += 1
        while len(stack) > keep:
            span = ordered[stack.pop()]
            index, begin = opened.pop()
            parts[index] = span.opening(begin, cut)
            parts.append(f"</{span.tag}>")
        parts.extend(placed.get(cut, ()))
        for index in active[keep:]:
            stack.append(index)
            opened.append((len(parts), cut))
            parts.append("")
        if following is not None:
            parts.append(_text(text[cut:following], breaks))
    return "".join(parts)


def _text(segment: str, breaks: tuple[str, str] | None) -> str:
    escaped = h.text(segment)
    if breaks and breaks[0]:
        separator = h.text(breaks[0])
        escaped = escaped.replace(separator, separator + breaks[1])
    return escaped


@dataclass(frozen=True)
class Answer:
    """What an example's annotations say, as shown: ``long`` is ``(start_token, end_token,
    candidate_index)`` or None; ``short`` the ``(start_token, end_token, text)`` spans;
    ``yes_no`` is "YES", "NO" or ""."""

    annotations: int
    long: tuple[int, int, int] | None = None
    short: tuple[tuple[int, int, str], ...] = ()
    yes_no: str = ""

    @property
    def reason(self) -> str:
        if not self.annotations:
            return "not annotated"
        if self.yes_no:
            return "yes/no"
        if self.short:
            return "short answer"
        return "long answer" if self.long else "no answer"


def _most_frequent(values: list[Any]) -> Any:
    counts = Counter(values)
    return max(values, key=lambda value: counts[value])


def chosen_answer(annotations: dict[str, list] | None) -> Answer:
    """The answer shown for an example's annotations (HuggingFace layout): one annotation as
    it is, several by NQ's rule (at least two non-null, the most frequent)."""
    annotations = annotations or {}
    longs = annotations.get("long_answer") or []
    shorts = annotations.get("short_answers") or []
    yes_nos = annotations.get("yes_no_answer") or []
    count = len(longs)
    if not count:
        return Answer(0)
    needed = 1 if count == 1 else DEFAULT_MIN_NON_NULL
    spans = [(a["start_token"], a["end_token"], a["candidate_index"]) for a in longs
             if a["start_token"] >= 0]
    long = _most_frequent(spans) if len(spans) >= needed else None
    answers = []
    for short, yes_no in zip(shorts, yes_nos, strict=True):
        if yes_no in YES_NO:
            answers.append(YES_NO[yes_no])
        elif short["start_token"]:
            answers.append(tuple(zip(short["start_token"], short["end_token"], short["text"],
                                     strict=True)))
    if len(answers) < needed:
        return Answer(count, long)
    chosen = _most_frequent(answers)
    if isinstance(chosen, str):
        return Answer(count, long, yes_no=chosen)
    return Answer(count, long, short=chosen)


@dataclass(frozen=True)
class _Candidate:
    """A top-level candidate rendered: its index among all the example's candidates (the
    number annotators chose, ``long_answer.candidate_index``), its token span, the label the
    annotation tasks give it ("#4 Ul (top level)") and the readable text with the document
    index and character start of each rendered token."""

    index: int
    start: int
    end: int
    label: str
    text: str
    tokens: list[int]
    starts: list[int]
    lengths: list[int]

    def chars(self, start: int, end: int) -> tuple[int, int] | None:
        """The characters of the rendered tokens of document tokens ``[start, end)``."""
        first = bisect_left(self.tokens, start)
        last = bisect_left(self.tokens, end) - 1
        if first > last:
            return None
        return self.starts[first], self.starts[last] + self.lengths[last]


def _example(row: dict[str, Any]) -> dict[str, Any]:
    """The document tokens (with their bytes of the page) and every long-answer candidate of
    a HuggingFace-layout row in the original-format shape ``render_candidates`` (and the
    annotation tasks) read."""
    document = row["document"]["tokens"]
    candidates = row["long_answer_candidates"]
    count = len(document["token"])
    starts = document.get("start_byte") or [None] * count
    ends = document.get("end_byte") or [None] * count
    return {
        "document_html": row["document"].get("html"),
        "document_tokens": [{"token": token, "html_token": is_html, "start_byte": start,
                             "end_byte": end} for token, is_html, start, end
                            in zip(document["token"], document["is_html"], starts, ends,
                                   strict=True)],
        "long_answer_candidates": [
            {"start_token": start, "end_token": end, "top_level": bool(top)}
            for start, end, top in zip(candidates["start_token"], candidates["end_token"],
                                       candidates["top_level"], strict=True)],
    }


def _top_level(example: dict[str, Any], also: int | None = None
               ) -> tuple[list[_Candidate], dict[int, str]]:
    """The top-level candidates rendered, and the labels of those and of candidate ``also``
    (a nested long answer), by index. ``render_candidates`` gets the whole candidate list,
    so a candidate's number is its index, the ``#n`` tag annotators clicked on its box in the
    annotation task (``transforms.annotation.page``)."""
    candidates = example["long_answer_candidates"]
    top = {i for i, candidate in enumerate(candidates) if candidate["top_level"]}
    rendered = render_candidates(example, top | ({also} if also is not None else set()),
                                 own_text=True)
    labels = {r["index"]: r["label"] for r in rendered}
    shown = [_Candidate(r["index"], candidates[r["index"]]["start_token"],
                        candidates[r["index"]]["end_token"], r["label"], r["text"],
                        r["tokens"], r["starts"], r["lengths"])
             for r in rendered if r["index"] in top]
    return shown, labels


def _label(index: int, labels: dict[int, str]) -> str:
    """The label annotators saw for candidate ``index`` ("#3 Tr in #1"), or "candidate #N"
    when the example has no such candidate."""
    return labels.get(index, f"candidate #{index}")


def _token_attrs(start: int, end: int) -> tuple[tuple[str, int], ...]:
    return (("data-start-token", start), ("data-end-token", end))


class NqRenderer:
    """NQ and annotated NQ releases (HuggingFace ``natural_questions`` layout)."""

    columns = ("question", "page", "long answer", "short answer")
    details_per_page = 1

    def __init__(self, title: str = "Natural Questions"):
        self.title = title
        self.paper_means: dict[str, float] = {}

    def entries(self, release: ReleaseView, table: Table,
                rows: Iterator[dict[str, Any]]) -> Iterator[Entry]:
        split = table.directory.rsplit("/", 1)[-1]
        for row in rows:
            yield self.entry(row, split)

    def measures(self, row: dict[str, Any]) -> dict[str, int]:
        lengths = {"question tokens": len(row["question"]["tokens"] or []),
                   "document tokens": len(row["document"]["tokens"]["token"] or [])}
        answer = chosen_answer(row.get("annotations"))
        if answer.long:
            lengths["long answer tokens"] = answer.long[1] - answer.long[0]
        return lengths

    def entry(self, row: dict[str, Any], split: str) -> Entry:
        """The index cells, filter text and detail HTML of one example."""
        document = row["document"]
        question = row["question"]["text"]
        answer = chosen_answer(row.get("annotations"))
        candidates, labels = _top_level(_example(row), answer.long[2] if answer.long else None)
        cells = (h.text(question), page_link(document["url"], document["title"]),
                 self._long_cell(answer, candidates), self._short_cell(answer))
        shorts = " ".join(text for _, _, text in answer.short)
        text = " ".join(part for part in (question, document["title"], shorts) if part)
        detail = "".join((
            f'<h2 class="question">{h.text(question)}</h2>',
            f'<p class="document">{page_link(document["url"], document["title"])} '
            f'<span class="muted">· example {h.text(row["id"])} · '
            f'{self._annotations_note(answer)}</span></p>',
            self._answer_summary(answer, row, labels),
            f'<h3>Top-level candidates ({len(candidates)})</h3>',
            '<div class="candidates">',
            *(self._candidate(c, answer, labels) for c in candidates),
            "</div>",
            "<h3>Page HTML</h3>",
            f'<iframe class="page-html" sandbox="" title="{h.attr(document["title"])}" '
            f'srcdoc="{h.attr(document["html"] or "")}"></iframe>',
        ))
        return Entry(str(row["id"]), split, cells, text, answer.reason, detail)

    @staticmethod
    def _annotations_note(answer: Answer) -> str:
        if not answer.annotations:
            return "not annotated"
        return f"{answer.annotations} annotation{'s' if answer.annotations > 1 else ''}"

    @staticmethod
    def _long_cell(answer: Answer, candidates: list[_Candidate]) -> str:
        if not answer.annotations:
            return '<span class="muted">not annotated</span>'
        if not answer.long:
            return '<span class="muted">—</span>'
        start, end, index = answer.long
        for candidate in candidates:
            if candidate.start <= start and end <= candidate.end:
                chars = candidate.chars(start, end)
                if chars:
                    return h.text(h.shorten(candidate.text[chars[0]:chars[1]]))
        return f'<span class="muted">candidate #{h.text(index)}</span>'

    @staticmethod
    def _short_cell(answer: Answer) -> str:
        if answer.yes_no:
            return f"<strong>{h.text(answer.yes_no)}</strong>"
        if answer.short:
            return " · ".join(h.text(h.shorten(text)) for _, _, text in answer.short)
        note = "not annotated" if not answer.annotations else "—"
        return f'<span class="muted">{note}</span>'

    def _answer_summary(self, answer: Answer, row: dict[str, Any], labels: dict[int, str]) -> str:
        if not answer.annotations:
            return ""
        if answer.long:
            start, end, index = answer.long
            long = (f"{h.text(_label(index, labels))}, "
                    f"tokens {h.text(start)}–{h.text(end)}")
        else:
            long = "none"
        parts = [f'<dl class="answer-summary"><dt>Long answer</dt><dd>{long}</dd>',
                 f"<dt>Short answer</dt><dd>{self._short_cell(answer)}</dd></dl>"]
        if answer.annotations > 1:
            parts.append(self._annotations_table(row["annotations"]))
        return "".join(parts)

    @staticmethod
    def _annotations_table(annotations: dict[str, list]) -> str:
        rows = []
        for number, (long, short, yes_no) in enumerate(zip(
                annotations["long_answer"], annotations["short_answers"],
                annotations["yes_no_answer"], strict=True), start=1):
            where = (f"#{h.text(long['candidate_index'])}" if long["start_token"] >= 0
                     else '<span class="muted">none</span>')
            if yes_no in YES_NO:
                said = f"<strong>{YES_NO[yes_no]}</strong>"
            elif short["text"]:
                said = " · ".join(h.text(text) for text in short["text"])
            else:
                said = '<span class="muted">—</span>'
            rows.append(f"<tr><td>{number}</td><td>{where}</td><td>{said}</td></tr>")
        return ('<table class="annotations"><thead><tr><th>annotation</th>'
                "<th>long answer</th><th>short answer</th></tr></thead>"
                f"<tbody>{''.join(rows)}</tbody></table>")

    @staticmethod
    def _candidate(candidate: _Candidate, answer: Answer, labels: dict[int, str]) -> str:
        classes = "candidate"
        spans = []
        if answer.long:
            start, end, index = answer.long
            if (start, end) == (candidate.start, candidate.end):
                classes += " long-answer"
            elif candidate.start <= start and end <= candidate.end:
                classes += " contains-answer"
                chars = candidate.chars(start, end)
                if chars:
                    spans.append(Span(*chars, "span", (("class", "long-answer"),
                                                       *_token_attrs(start, end),
                                                       ("data-candidate", index),
                                                       ("title", _label(index, labels)))))
        for start, end, _ in answer.short:
            chars = candidate.chars(start, end)
            if chars and candidate.start <= start and end <= candidate.end:
                spans.append(Span(*chars, "mark", (("class", "short-answer"),
                                                   *_token_attrs(start, end))))
        opening = Span(0, 0, "div", (("class", classes), ("data-candidate", candidate.index),
                                     *_token_attrs(candidate.start, candidate.end)))
        body = highlight(candidate.text, spans, breaks=LINE_BREAK)
        return (f"{opening.opening(0, 0)}"
                f'<div class="candidate-label muted">{h.text(candidate.label)}</div>'
                f'<div class="candidate-text">{body}</div></div>')


def expected_schemas(view: ReleaseView) -> list[tuple[Table, pa.Schema]]:
    """Every main table has the HuggingFace ``natural_questions`` columns and types."""
    return [(table, HF_SCHEMA) for table in view.main_tables()]


def make(view: ReleaseView) -> NqRenderer:
    """The renderer of an NQ or annotated NQ release."""
    annotated = view.dataset.endswith("_annotated")
    return NqRenderer("Natural Questions (annotated)" if annotated else "Natural Questions")
