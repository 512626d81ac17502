"""The JNQ / JBoolQ renderer: escaping, links, candidates in rank order, labels and the short
answer marked at the release's offsets, on tiny rows and on the sample releases."""

from __future__ import annotations

import html
import re
import shutil
from typing import Any

from tests.transforms.jnq.legacy import as_string_labels
from transforms.annotation.jnq_schema import ANNOTATED_SCHEMA
from transforms.browse.base import ReleaseView
from transforms.browse.renderers import choose, jnq
from transforms.release.features import encode_row

HOSTILE = "<script>alert(1)</script>"
URL = "https://ja.wikipedia.org//w/index.php?title=X&amp;oldid=7"
CANDIDATE = re.compile(r'<li class="([^"]*)" data-paragraph-id="(\d+)" data-rank="(\d+)" '
                       r'data-score="([0-9.]+)"(?: data-label="(\w+)")?>(.*?)</li>')
MARK = re.compile(r'<mark class="short-answer" data-start="(\d+)" data-end="(\d+)">(.*?)</mark>')


def _row(**changes: Any) -> dict[str, Any]:
    row = {
        "id": "42", "question": "京都の紅葉の見頃はいつですか", "variant": "jnq",
        "variants": [], "users_in_window": 2, "words": 9, "patterns": [1],
        "document_title": "京都市", "document_url": URL, "revision": 7, "search_rank": 1,
        "snippet": "紅葉の見頃は11月", "paragraphs": [
            {"id": 0, "text": "京都市は市である。"}, {"id": 1, "text": "紅葉の見頃は11月中旬。"},
            {"id": 2, "text": "寺が多い。"}],
        "candidate_paragraph_ids": [0, 2, 1], "candidate_ranks": [0, 2, 1],
        "candidate_scores": [0.1, 0.25, 0.98765]}
    return {**row, **changes}


def _note(paragraph_id: int, label: str, kind: str = "none", span: tuple[int, int] = (-1, -1),
          span_text: str = "", yes_no: str = "NONE") -> dict[str, Any]:
    return {"paragraph_id": paragraph_id, "label": label, "yes_votes": 9, "votes": 10,
            "short_answer_type": kind, "span_start": span[0], "span_end": span[1],
            "span_text": span_text, "yes_no_answer": yes_no}


def _annotated(notes: list[dict[str, Any]], **changes: Any) -> dict[str, Any]:
    return _row(is_yes_no_question=False, num_annotators=10, annotations=notes,
                gold_paragraph_ids=[n["paragraph_id"] for n in notes if n["label"] == "EXIST"],
                **changes)


def _candidates(detail: str) -> list[tuple]:
    return CANDIDATE.findall(detail)


def _check_marks(row: dict[str, Any], detail: str) -> int:
    """Every short-answer mark sits at the annotation's offsets of its paragraph."""
    texts = {p["id"]: p["text"] for p in row["paragraphs"]}
    notes = {a["paragraph_id"]: a for a in row.get("annotations", [])}
    marks = 0
    for _, pid, _, _, _, body in _candidates(detail):
        for start, end, marked in MARK.findall(body):
            note = notes[int(pid)]
            assert (int(start), int(end)) == (note["span_start"], note["span_end"])
            assert html.unescape(marked) == texts[int(pid)][int(start):int(end)]
            assert html.unescape(marked) == note["span_text"]
            marks += 1
    return marks


def test_dataset_text_is_escaped_and_only_http_urls_are_links():
    row = _annotated([_note(1, "EXIST", "span", (0, 3), HOSTILE[:3])],
                     question=HOSTILE, document_title=HOSTILE, snippet=HOSTILE,
                     document_url="javascript:alert(1)",
                     paragraphs=[{"id": 0, "text": HOSTILE}, {"id": 1, "text": HOSTILE},
                                 {"id": 2, "text": HOSTILE}])
    entry = jnq.JnqRenderer("jnq_annotated").entry(row, "train")
    for part in (*entry.cells, entry.detail):
        assert "<script" not in part
        assert "<a " not in part
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in entry.detail
    assert _check_marks(row, entry.detail) == 1


def test_nq_form_url_links_to_the_revision_once_escaped():
    entry = jnq.JnqRenderer().entry(_row(), "dev")
    href = 'href="https://ja.wikipedia.org//w/index.php?title=X&amp;oldid=7"'
    assert href in entry.cells[1]
    assert href in entry.detail


def test_candidates_in_rank_order_with_cosine_to_three_decimals():
    entry = jnq.JnqRenderer().entry(_row(), "train")
    candidates = _candidates(entry.detail)
    assert [(pid, rank, score) for _, pid, rank, score, _, _ in candidates] == [
        ("0", "0", "0.100"), ("1", "1", "0.988"), ("2", "2", "0.250")]
    assert "紅葉の見頃は11月中旬。" in candidates[1][5]
    assert "(first paragraph)" in candidates[0][5]
    assert entry.cells[2] == '<span class="muted">not annotated</span>'
    assert (entry.key, entry.split, entry.reason) == ("42", "train", "")


def test_labels_and_short_answer_at_the_release_offsets():
    notes = [_note(0, "NONE"), _note(2, "AMBIGUOUS"),
             _note(1, "EXIST", "span", (6, 11), "11月中旬")]
    row = _annotated(notes)
    entry = jnq.JnqRenderer("jnq_annotated").entry(row, "train")
    labels = {pid: (label, re.search(r'<span class="label ([\w-]+)">', body).group(1))
              for _, pid, _, _, label, body in _candidates(entry.detail)}
    assert labels == {"0": ("NONE", "label-none"), "1": ("EXIST", "label-exist"),
                      "2": ("AMBIGUOUS", "label-ambiguous")}
    assert [css for css, *_ in _candidates(entry.detail)] == [
        "candidate", "candidate contains-answer", "candidate"]
    assert _check_marks(row, entry.detail) == 1
    assert entry.reason == "short"
    assert "EXIST × 1" in entry.cells[2] and "11月中旬" in entry.cells[2]
    assert "11月中旬" in entry.text


def test_yes_no_answer_and_answerless_rows():
    renderer = jnq.JnqRenderer("jboolq_annotated")
    assert renderer.title == "JBoolQ (annotated)"
    yes = renderer.entry(_annotated([_note(1, "EXIST", "yes_no", yes_no="YES")]), "dev")
    assert yes.reason == "yes/no"
    assert '<strong class="yes-no">YES</strong>' in yes.detail
    assert "YES" in yes.cells[2] and "<mark" not in yes.detail
    only_long = renderer.entry(_annotated([_note(1, "EXIST")]), "dev")
    assert only_long.reason == "long answer only"
    none = renderer.entry(_annotated([_note(1, "NONE")]), "dev")
    assert none.reason == "none" and "no EXIST paragraph" in none.cells[2]


def test_a_span_outside_its_paragraph_is_reported_not_marked():
    row = _annotated([_note(2, "EXIST", "span", (3, 99), "x")])
    detail = jnq.JnqRenderer().entry(row, "train").detail
    assert "<mark" not in detail
    assert "short answer 3:99 outside the paragraph" in detail


def test_measures_question_and_candidate_paragraph_chars():
    assert jnq.JnqRenderer().measures(_row()) == {"question chars": 14, "paragraph chars": 9}


def test_sample_releases_render_every_row(sample_releases):
    for dataset, title in (("jnq", "JNQ"), ("jboolq", "JBoolQ"),
                           ("jnq_annotated", "JNQ (annotated)")):
        view = ReleaseView.open(str(sample_releases[dataset]))
        renderer = jnq.make(view)
        assert renderer.title == title
        marks = entries = 0
        for table in view.main_tables():
            rows = list(view.rows(table))
            for row, entry in zip(rows, renderer.entries(view, table, iter(rows)), strict=True):
                assert entry.key == row["id"] and entry.split == table.directory
                assert len(entry.cells) == len(renderer.columns)
                assert len(_candidates(entry.detail)) == len(row["candidate_paragraph_ids"])
                marks += _check_marks(row, entry.detail)
                entries += 1
        assert entries == sum(t.rows for t in view.main_tables()) > 0
        assert (marks > 0) == dataset.endswith("_annotated")


def test_class_labels_stored_as_indexes_are_shown_by_name():
    """Releases store ``label``, ``short_answer_type``, ``yes_no_answer`` and ``variant`` as
    class-label indexes; the browser shows the names, as for a release that stored names."""
    named = {**_annotated([_note(0, "NONE"), _note(2, "AMBIGUOUS"),
                           _note(1, "EXIST", "yes_no", yes_no="YES")]),
             "is_yes_no_question": True}
    coded = encode_row(named, ANNOTATED_SCHEMA)
    assert coded["annotations"][2]["label"] == 0 and coded["annotations"][2]["yes_no_answer"] == 1
    renderer = jnq.JnqRenderer("jboolq_annotated")
    entry, expected = renderer.entry(coded, "dev"), renderer.entry(named, "dev")
    assert entry == expected
    assert '<strong class="yes-no">YES</strong>' in entry.detail
    assert 'data-label="AMBIGUOUS"' in entry.detail and ">0 " not in entry.detail


def test_releases_before_class_labels_still_use_the_jnq_renderer(sample_releases, tmp_path):
    copy = tmp_path / "jnq_annotated" / "1"
    shutil.copytree(sample_releases["jnq_annotated"], copy)
    assert choose(ReleaseView.open(str(copy))) == ("jnq", "")
    as_string_labels(copy)
    view = ReleaseView.open(str(copy))
    assert choose(view) == ("jnq", "")
    [table, *_] = view.main_tables()
    rows = list(view.rows(table))
    assert {row["variant"] for row in rows} == {"jnq"}
    entries = list(jnq.make(view).entries(view, table, iter(rows)))
    assert [e.detail for e in entries] == [jnq.make(view).entry(
        encode_row(row, ANNOTATED_SCHEMA), "").detail for row in rows]
