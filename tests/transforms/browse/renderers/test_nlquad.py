"""The NLQuAD renderer: one entry per article, escaping, each answer marked at the release's
character offsets with its question in the margin, crossing spans nested safely, on tiny
hand-made rows and on the sample NLQuAD release."""

from __future__ import annotations

from itertools import groupby
from pathlib import Path
from typing import Any

import pytest

from tests.transforms.browse.renderers.test_nq import HOSTILE, by_class, elements
from transforms.browse.base import ReleaseView
from transforms.browse.renderers import nlquad
from transforms.release.tables import Table

PARAGRAPHS = ["Dock workers voted to end the strike.", "The deal gives them a 4% rise.",
              "Night shifts will be shorter.", "Lorries will move again on Saturday."]
CONTEXT = "\n".join(PARAGRAPHS)


def _row(question_index: int, question: str, start: int, end: int, context: str = CONTEXT,
         document_id: str = "bbc-1", **changes: Any) -> dict[str, Any]:
    words_before = len(context[:start].split())
    row = {
        "id": f"{document_id}-q{question_index}", "document_id": document_id,
        "title": "Strike ends", "date": "2014-02-07", "published": "2014-02-07T10:00:00Z",
        "url": "https://www.bbc.co.uk/news/1", "capture_url": "https://web.archive.org/1",
        "capture_timestamp": "20140207", "layout_era": "B", "question": question,
        "question_index": question_index, "context": context,
        "answer_text": context[start:end], "answer_start": start, "answer_end": end,
        "answer_word_start": words_before,
        "answer_word_end": words_before + len(context[start:end].split()),
        "answer_paragraphs": context[start:end].count("\n") + 1,
    }
    return {**row, **changes}


def _span(first: int, last: int, context: str = CONTEXT, separator: str = "\n") -> tuple:
    """Characters of paragraphs ``first``..``last`` (inclusive) of ``context``."""
    paragraphs = context.split(separator)
    start = sum(len(p) + len(separator) for p in paragraphs[:first])
    end = start + len(separator.join(paragraphs[first:last + 1]))
    return start, end


def _article() -> list[dict[str, Any]]:
    return [_row(1, "What does the deal mean?", *_span(1, 2)),
            _row(3, "What happens next?", *_span(3, 3))]


def _table(directory: str = "train") -> Table:
    return Table("default", directory, directory, (), 0, None)


def test_one_entry_per_article_with_title_date_and_questions():
    rows = [*_article(), _row(2, "Why now?", *_span(0, 0), document_id="bbc-2",
                              title="Second", layout_era="")]
    renderer = nlquad.NlquadRenderer()
    entries = list(renderer.entries(None, _table("dev"), iter(rows)))
    assert [(e.key, e.split, e.reason) for e in entries] == [
        ("bbc-1", "dev", "layout B"), ("bbc-2", "dev", "")]
    title, date, questions = entries[0].cells
    link, = [e for e in elements(title) if e.tag == "a"]
    assert link.attrs["href"] == "https://www.bbc.co.uk/news/1" and link.text == "Strike ends"
    assert date == "2014-02-07"
    assert questions == "2: What does the deal mean? · What happens next?"
    assert entries[0].text == "Strike ends What does the deal mean? What happens next?"


def test_each_answer_is_marked_at_its_offsets_with_its_question_in_the_margin():
    rows = _article()
    detail = nlquad.NlquadRenderer().entry(rows, "train").detail
    marks = by_class(detail, "answer")
    assert [(m.attrs["data-question"], m.attrs["data-id"]) for m in marks] == [
        ("q1", "bbc-1-q1"), ("q3", "bbc-1-q3")]
    for mark, row in zip(marks, rows, strict=True):
        assert mark.tag == "mark" and mark.text == row["answer_text"]
        assert (int(mark.attrs["data-start"]), int(mark.attrs["data-end"])) == (
            row["answer_start"], row["answer_end"])
    asides = by_class(detail, "subheading")
    assert [(a.tag, a.attrs["data-question"], a.text) for a in asides] == [
        ("aside", "q1", "q1 What does the deal mean?"), ("aside", "q3", "q3 What happens next?")]
    for aside, mark in zip(asides, marks, strict=True):
        assert detail.index(f'data-question="{aside.attrs["data-question"]}">') < detail.index(
            f'data-id="{mark.attrs["data-id"]}"')
    context, = by_class(detail, "context")
    assert context.text.replace("q1 What does the deal mean?", "").replace(
        "q3 What happens next?", "") == CONTEXT
    assert detail.count("<br><br>") == len(PARAGRAPHS) - 1


def test_hostile_title_question_and_context_never_appear_unescaped():
    context = f"{HOSTILE} opens.\nThen {HOSTILE} answers."
    rows = [_row(1, HOSTILE, *_span(1, 1, context), context=context, title=HOSTILE,
                 url="javascript:alert(1)", capture_url="data:text/html,x", date=HOSTILE)]
    entry = nlquad.NlquadRenderer().entry(rows, "train")
    for markup in (*entry.cells, entry.detail):
        assert "<script" not in markup
        assert "javascript:" not in markup and "data:text" not in markup
    mark, = by_class(entry.detail, "answer")
    assert mark.text == f"Then {HOSTILE} answers." and mark.attrs["title"] == f"q1: {HOSTILE}"


def test_crossing_spans_nest_safely_and_every_piece_keeps_its_offsets():
    rows = [_row(1, "First?", *_span(0, 2)), _row(2, "Second?", *_span(1, 3))]
    detail = nlquad.NlquadRenderer().entry(rows, "train").detail
    marks = by_class(detail, "answer")  # elements() fails unless the markup nests
    for mark in marks:  # the asides stand outside every mark
        start, end = int(mark.attrs["data-start"]), int(mark.attrs["data-end"])
        assert mark.text == CONTEXT[start:end]
    for question, pieces in groupby(marks, key=lambda m: m.attrs["data-question"]):
        row = next(r for r in rows if f"q{r['question_index']}" == question)
        covered = sorted((int(m.attrs["data-start"]), int(m.attrs["data-end"])) for m in pieces)
        assert covered[0][0] == row["answer_start"] and covered[-1][1] == row["answer_end"]
        assert all(a[1] == b[0] for a, b in zip(covered, covered[1:], strict=False))
    first = [m for m in marks if m.attrs["data-question"] == "q1"]
    second = [m for m in marks if m.attrs["data-question"] == "q2"]
    assert len(first) == 2 and len(second) == 2 and second[0] in first[1].children


def test_the_release_paragraph_separator_splits_paragraphs():
    view = ReleaseView("unused", {"dataset": "nlquad",
                                  "options": {"paragraph_separator": "\n\n"}}, {})
    renderer = nlquad.make(view)
    context = "\n\n".join(PARAGRAPHS)
    rows = [_row(1, "Why?", *_span(2, 3, context, "\n\n"), context=context)]
    detail = renderer.entry(rows, "train").detail
    assert detail.count("\n\n<br><br>") == len(PARAGRAPHS) - 1
    mark, = by_class(detail, "answer")
    assert mark.text == "\n\n".join(PARAGRAPHS[2:])
    assert nlquad.make(ReleaseView("unused", {"dataset": "nlquad"}, {})).separator == "\n"


def test_measures_count_document_words_once_per_article_and_paper_means():
    renderer = nlquad.NlquadRenderer()
    rows = [*_article(), _row(2, "Why now?", *_span(0, 0), document_id="bbc-2")]
    measured = [renderer.measures(row) for row in rows]
    assert [m.get("document words") for m in measured] == [len(CONTEXT.split()), None,
                                                           len(CONTEXT.split())]
    assert [m["question words"] for m in measured] == [5, 3, 2]
    assert measured[0]["answer words"] == len(rows[0]["answer_text"].split())
    assert renderer.paper_means == {"question words": 7.0, "answer words": 175.0,
                                    "document words": 877.0}


@pytest.fixture(scope="module")
def nlquad_release(sample_releases: dict[str, Path]) -> ReleaseView:
    return ReleaseView.open(str(sample_releases["nlquad"]))


def test_sample_release_marks_equal_its_answers(nlquad_release):
    view = nlquad_release
    renderer = nlquad.make(view)
    marked = 0
    for table in view.main_tables():
        rows = list(view.rows(table))
        entries = list(renderer.entries(view, table, iter(rows)))
        articles = [list(group) for _, group in groupby(rows, key=lambda r: r["document_id"])]
        assert len({r["document_id"] for r in rows}) == len(articles) == len(entries)
        for article, entry in zip(articles, entries, strict=True):
            assert entry.key == article[0]["document_id"] and entry.split == table.directory
            marks = by_class(entry.detail, "answer")
            assert len(marks) == len(article)
            for mark, row in zip(marks, article, strict=True):
                assert mark.attrs["data-id"] == row["id"]
                assert mark.attrs["data-question"] == f"q{row['question_index']}"
                assert (int(mark.attrs["data-start"]), int(mark.attrs["data-end"])) == (
                    row["answer_start"], row["answer_end"])
                assert mark.text == row["answer_text"]
                marked += 1
    assert marked == sum(t.rows for t in view.main_tables()) > 0
