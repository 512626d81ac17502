"""NLQuAD articles: each article's context with every question's answer span marked.

A release row is one question; the rows of an article are adjacent and share its
``document_id``, so one entry is one article (its rows grouped as they stream). Index cells:
the title (a link to the article), the date and the questions. Detail: the context, its
paragraphs split on the release's paragraph separator (kept in the text, followed by line
breaks), each answer ``context[answer_start:answer_end]`` wrapped in ``<mark class="answer"
data-question="q<question_index>" data-id=<row id> data-start=.. data-end=..>`` (character
offsets of the context, end exclusive: the mark's text is the answer text) and, at each
answer's start, its question in the margin (``<aside class="subheading">``), where
the interrogative sub-heading stood before NLQuAD removed it. Spans of one article never
overlap (each section answers one sub-heading); if two ever cross, the later one is split
into pieces, each with its own offsets, so the HTML still nests.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from operator import itemgetter
from typing import Any

import pyarrow as pa

from filters.text.stats import word_count
from transforms.browse import html as h
from transforms.browse.base import Entry, ReleaseView
from transforms.browse.renderers.nq import Span, highlight
from transforms.nlquad.card import PAPER_REFERENCE
from transforms.nlquad.schema import NLQUAD_SCHEMA
from transforms.release.tables import Table

PARAGRAPH_BREAK = "<br><br>"
PAPER_MEANS = {"question words": float(PAPER_REFERENCE["question_words_mean"]),
               "answer words": float(PAPER_REFERENCE["answer_words_mean"]),
               "document words": float(PAPER_REFERENCE["document_words_mean"])}


def _words(row: dict[str, Any]) -> Any:
    """The answer's words (``answer_word_end - answer_word_start``), or ``"?"``."""
    start, end = row["answer_word_start"], row["answer_word_end"]
    return end - start if h.is_number(start) and h.is_number(end) else "?"


class NlquadRenderer:
    """NLQuAD releases: one entry per article."""

    title = "NLQuAD"
    columns = ("title", "date", "questions")
    details_per_page = 1

    def __init__(self, separator: str = "\n"):
        self.separator = separator
        self.paper_means = dict(PAPER_MEANS)
        self._measured_document: str | None = None

    def entries(self, release: ReleaseView, table: Table,
                rows: Iterator[dict[str, Any]]) -> Iterator[Entry]:
        split = table.directory.rsplit("/", 1)[-1]
        for _, article in groupby(rows, key=itemgetter("document_id")):
            yield self.entry(list(article), split)

    def measures(self, row: dict[str, Any]) -> dict[str, int]:
        """Question and answer words per row; document words once per article (its first
        row: rows of an article are adjacent)."""
        lengths = {"question words": word_count(row["question"]),
                   "answer words": row["answer_word_end"] - row["answer_word_start"]}
        if row["document_id"] != self._measured_document:
            self._measured_document = row["document_id"]
            lengths["document words"] = word_count(row["context"])
        return lengths

    def entry(self, rows: list[dict[str, Any]], split: str) -> Entry:
        """The index cells, filter text and detail HTML of one article's rows."""
        first = rows[0]
        questions = [row["question"] for row in rows]
        title = h.link(first["url"], first["title"])
        listed = " · ".join(h.text(question) for question in questions)
        cells = (title, h.text(first["date"]), f"{len(rows)}: {listed}")
        era = first.get("layout_era")
        return Entry(str(first["document_id"]), split, cells,
                     " ".join([first["title"], *questions]),
                     f"layout {era}" if era else "", self.detail(rows))

    def detail(self, rows: list[dict[str, Any]]) -> str:
        """The article: its questions, then the context with every answer marked."""
        first = rows[0]
        context = first["context"]
        spans, inserts, listed = [], [], []
        for row in rows:
            label = f"q{row['question_index']}"
            start, end = row["answer_start"], row["answer_end"]
            spans.append(Span(start, end, "mark", (
                ("class", "answer"), ("data-question", label), ("data-id", row["id"]),
                ("title", f"{label}: {row['question']}")), offset=0))
            inserts.append((start, f'<aside class="subheading" data-question="{h.attr(label)}">'
                                   f'<span class="muted">{h.text(label)}</span> '
                                   f"{h.text(row['question'])}</aside>"))
            paragraphs = row["answer_paragraphs"]
            listed.append(f'<li data-question="{h.attr(label)}">{h.text(row["question"])} '
                          f'<span class="muted">characters {h.text(start)}–{h.text(end)}, '
                          f'{h.text(_words(row))} words, {h.text(paragraphs)} '
                          f'paragraph{"" if paragraphs == 1 else "s"}</span></li>')
        sources = [h.link(first["url"], "article")]
        if first.get("capture_url") and first["capture_url"] != first["url"]:
            sources.append(h.link(first["capture_url"], "archived copy"))
        about = [h.text(first["date"]), *sources, h.text(first["document_id"])]
        if first.get("layout_era"):
            about.append(f"layout {h.text(first['layout_era'])}")
        body = highlight(context, spans, inserts, breaks=(self.separator, PARAGRAPH_BREAK))
        return "".join((
            f'<h2 class="article-title">{h.text(first["title"])}</h2>',
            f'<p class="document muted">{" · ".join(about)}</p>',
            f'<ol class="questions">{"".join(listed)}</ol>',
            f'<div class="context">{body}</div>',
        ))


def expected_schemas(view: ReleaseView) -> list[tuple[Table, pa.Schema]]:
    """Every main table has NLQuAD's columns and types."""
    return [(table, NLQUAD_SCHEMA) for table in view.main_tables()]


def make(view: ReleaseView) -> NlquadRenderer:
    """The renderer of an NLQuAD release, splitting paragraphs on its build's separator."""
    separator = (view.manifest.get("options") or {}).get("paragraph_separator") or "\n"
    return NlquadRenderer(separator)
