"""JNQ and JBoolQ (and their annotated releases) in the browser.

Index: the question, the document title (a link to the revision-pinned page), the answer
(once annotated: the EXIST paragraphs and the short answer or YES/NO). Detail: the question,
the search snippet, the five candidate paragraphs in rank order with their cosine scores
and, once annotated, each paragraph's label and its short answer highlighted by the release's
character offsets (``span_start``/``span_end`` of the paragraph text). Class labels are shown
by name, from a release that stores their indexes or (before they were class labels) names.
"""

from __future__ import annotations

from collections.abc import Iterator
from html import unescape
from typing import Any

import pyarrow as pa

from transforms.annotation.jnq_schema import ANNOTATED_SCHEMA
from transforms.browse import html as h
from transforms.browse.base import Entry, ReleaseView
from transforms.jnq.labels import as_names
from transforms.jnq.schema import EXAMPLE_SCHEMA
from transforms.release.features import names_schema
from transforms.release.tables import Table

TITLES = {"jnq": "JNQ", "jboolq": "JBoolQ"}
INDEX_CHARS = 80
LABEL_CLASSES = {"EXIST": "label-exist", "AMBIGUOUS": "label-ambiguous", "NONE": "label-none"}


def _page_link(url: str, label: str) -> str:
    """``label`` linked to the page when ``url`` is http(s); NQ-form URLs carry ``&amp;``
    for ``&``, so the URL is unescaped once before ``link`` escapes it."""
    return h.link(unescape(url), label)


def _marked(text: str, start: int, end: int) -> str:
    """The paragraph text with ``text[start:end]`` in a short-answer mark (escaped)."""
    if not (h.is_number(end) and 0 <= start < end <= len(text)):
        return h.text(text)
    return (f'{h.text(text[:start])}<mark class="short-answer" data-start="{h.attr(start)}" '
            f'data-end="{h.attr(end)}">{h.text(text[start:end])}</mark>{h.text(text[end:])}')


def _has_span(note: dict[str, Any]) -> bool:
    start = note.get("span_start", -1)
    return note.get("short_answer_type") == "span" and h.is_number(start) and start >= 0


def _has_yes_no(note: dict[str, Any]) -> bool:
    return note.get("short_answer_type") == "yes_no" and note.get("yes_no_answer") in (
        "YES", "NO")


def answer_kind(annotations: list[dict[str, Any]]) -> str:
    """The filter's reason of an annotated row: ``short``, ``yes/no``, ``long answer only``
    (EXIST paragraphs, no short answer) or ``none`` (no EXIST paragraph)."""
    exist = [a for a in annotations if a["label"] == "EXIST"]
    if any(_has_yes_no(a) for a in exist):
        return "yes/no"
    if any(_has_span(a) for a in exist):
        return "short"
    return "long answer only" if exist else "none"


def _answer_cell(annotations: list[dict[str, Any]]) -> str:
    exist = [a for a in annotations if a["label"] == "EXIST"]
    if not exist:
        return '<span class="label-none">no EXIST paragraph</span>'
    parts = [f'<span class="label-exist">EXIST × {len(exist)}</span>']
    for note in exist:
        if _has_yes_no(note):
            parts.append(h.text(note["yes_no_answer"]))
        elif _has_span(note):
            parts.append(f'<span class="muted">short answer:</span> '
                         f'{h.text(h.shorten(note["span_text"], INDEX_CHARS))}')
    return " ".join(parts)


def _paragraph_body(text: str | None, note: dict[str, Any] | None) -> str:
    """The paragraph text, its short answer marked or its YES/NO shown when EXIST."""
    if text is None:
        return '<p class="muted">paragraph not in the document\'s paragraphs</p>'
    exist = note is not None and note["label"] == "EXIST"
    if not (exist and _has_span(note)):
        body = f"<p>{h.text(text)}</p>"
    else:
        start, end = note["span_start"], note["span_end"]
        body = f"<p>{_marked(text, start, end)}</p>"
        if not (h.is_number(end) and 0 <= start < end <= len(text)):
            body += (f'<p class="muted">short answer {h.text(start)}:{h.text(end)} outside '
                     "the paragraph</p>")
    if exist and _has_yes_no(note):
        body += (f'<p>Short answer: <strong class="yes-no">{h.text(note["yes_no_answer"])}'
                 "</strong></p>")
    return body


def _candidate(paragraph_id: int, rank: int, score: float, text: str | None,
               note: dict[str, Any] | None) -> str:
    """One candidate paragraph: rank, cosine score, label and votes, text; an EXIST
    paragraph is shaded (``contains-answer``)."""
    head = [f'<span class="rank">rank {h.text(rank)}</span>',
            f'<span class="score">cosine {h.num(score, ".3f")}</span>',
            f'<span class="muted">paragraph {h.text(paragraph_id)}'
            f'{" (first paragraph)" if rank == 0 else ""}</span>']
    data = (f'data-paragraph-id="{h.attr(paragraph_id)}" data-rank="{h.attr(rank)}" '
            f'data-score="{h.num(score, ".3f")}"')
    if note is not None:
        label = LABEL_CLASSES.get(note["label"])
        head.append(f'<span class="{f"label {label}" if label else "label"}">'
                    f'{h.text(note["label"])} '
                    f'{h.text(note["yes_votes"])}/{h.text(note["votes"])}</span>')
        data += f' data-label="{h.attr(note["label"])}"'
    css = "candidate contains-answer" if note and note["label"] == "EXIST" else "candidate"
    return f'<li class="{css}" {data}>{" ".join(head)}{_paragraph_body(text, note)}</li>'


class JnqRenderer:
    """Renders JNQ / JBoolQ rows, annotated or not; one entry per row."""

    columns = ("question", "document", "answer")
    details_per_page = 20
    paper_means: dict[str, float] = {}

    def __init__(self, dataset: str = "jnq"):
        base = dataset.removesuffix("_annotated")
        name = TITLES.get(base, base)
        self.title = f"{name} (annotated)" if dataset.endswith("_annotated") else name

    def entries(self, release: ReleaseView, table: Table,
                rows: Iterator[dict[str, Any]]) -> Iterator[Entry]:
        split = table.directory.rsplit("/", 1)[-1]
        for row in rows:
            yield self.entry(row, split)

    def entry(self, row: dict[str, Any], split: str) -> Entry:
        """The entry of one row of split ``split`` (class labels as indexes, as releases
        store them, or as names)."""
        row = as_names(row)
        annotated = "annotations" in row
        annotations = row.get("annotations") or []
        answer = _answer_cell(annotations) if annotated else \
            '<span class="muted">not annotated</span>'
        cells = (h.text(row["question"]), _page_link(row["document_url"], row["document_title"]),
                 answer)
        spans = " ".join(a["span_text"] for a in annotations
                         if a["label"] == "EXIST" and _has_span(a))
        text = " ".join(t for t in (row["question"], row["document_title"], spans) if t)
        return Entry(key=str(row["id"]), split=split, cells=cells, text=text,
                     reason=answer_kind(annotations) if annotated else "",
                     detail=self.detail(row))

    def detail(self, row: dict[str, Any]) -> str:
        """The example's HTML: question, document, snippet, candidates (labelled)."""
        row = as_names(row)
        texts = {p["id"]: p["text"] for p in row["paragraphs"]}
        notes = {a["paragraph_id"]: a for a in row.get("annotations") or []}
        candidates = sorted(zip(row["candidate_ranks"], row["candidate_paragraph_ids"],
                                row["candidate_scores"], strict=True))
        facts = [f"search rank {h.text(row['search_rank'])}",
                 f"revision {h.text(row['revision'])}", f"id {h.text(row['id'])}"]
        if "annotations" in row:
            facts += [f"{h.text(row.get('num_annotators', 0))} annotators",
                      "yes/no question" if row.get("is_yes_no_question") else
                      "not a yes/no question"]
        items = [_candidate(pid, rank, score, texts.get(pid), notes.get(pid))
                 for rank, pid, score in candidates]
        return (f'<h2 class="question">{h.text(row["question"])}</h2>'
                f'<p class="document">{_page_link(row["document_url"], row["document_title"])} '
                f'<span class="muted">{" · ".join(facts)}</span></p>'
                f'<p class="snippet"><span class="muted">Snippet:</span> '
                f'{h.text(row["snippet"])}</p>'
                f'<ol class="candidates">{"".join(items)}</ol>')

    def measures(self, row: dict[str, Any]) -> dict[str, int]:
        """Question characters and the mean characters of the candidate paragraphs."""
        texts = {p["id"]: p["text"] for p in row["paragraphs"]}
        lengths = [len(texts[p]) for p in row["candidate_paragraph_ids"] if p in texts]
        result = {"question chars": len(row["question"])}
        if lengths:
            result["paragraph chars"] = round(sum(lengths) / len(lengths))
        return result


def _expected(table: Table) -> pa.Schema:
    """JNQ's example columns, and the annotated ones when the table has ``annotations``;
    with the enumerations as strings in a release written before they were class labels."""
    schema = ANNOTATED_SCHEMA if "annotations" in table.schema.names else EXAMPLE_SCHEMA
    if "variant" in table.schema.names and pa.types.is_string(table.schema.field("variant").type):
        return names_schema(schema)
    return schema


def expected_schemas(view: ReleaseView) -> list[tuple[Table, pa.Schema]]:
    """Every main table has JNQ's example columns, and the annotated ones when it has
    ``annotations`` (``_expected``)."""
    return [(table, _expected(table)) for table in view.main_tables()]


def make(view: ReleaseView) -> JnqRenderer:
    """The renderer of a JNQ / JBoolQ release (annotated or not)."""
    return JnqRenderer(view.dataset)
