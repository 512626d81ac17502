"""The ReQA renderer: escaping, correct sentences marked at the release's offsets, and BM25
ranks equal to those of the card's baseline code (``transforms.reqa.baselines``)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from tests.transforms.release.test_diff import write_release
from transforms.browse.base import ReleaseView
from transforms.browse.renderers import reqa
from transforms.reqa.baselines import _bm25_rankings, reqa_baselines

MARK = re.compile(r'<mark class="answer-sentence" data-candidate-id="(\w+)" '
                  r'data-start="(\d+)" data-end="(\d+)">(.*?)</mark>')
RANK = re.compile(r'<tr data-candidate-id="(\w+)">.*?</tr>')
FIELD_RANK = re.compile(r'data-field="(\w+)" data-rank="(\d+)"')
HOSTILE = "<script>alert(1)</script>"
LIGHTHOUSE = ("The lighthouse was built in 1807. Its keeper lived in the tower. "
              "The light was automated in 1988.")
BEES = "Bees dance to share directions. A queen lays eggs."


def _candidate(cid: str, context: str, sentence: str, paragraph: str) -> dict[str, Any]:
    start = context.index(sentence)
    return {"candidate_id": cid, "sentence": sentence, "context": context,
            "paragraph_id": paragraph, "document": "doc", "source": "squad",
            "sentence_start": start, "sentence_end": start + len(sentence)}


def _question(qid: str, question: str, correct: list[str]) -> dict[str, Any]:
    return {"qid": qid, "question": question, "correct_candidate_ids": correct,
            "source": "squad", "document": "Harrow Point", "example_ids": [qid]}


@pytest.fixture
def toy(tmp_path: Path) -> ReleaseView:
    """A tiny ReQA release; candidates stored out of id order."""
    candidates = [
        _candidate("c3", LIGHTHOUSE, "The light was automated in 1988.", "p1"),
        _candidate("c1", LIGHTHOUSE, "The lighthouse was built in 1807.", "p1"),
        _candidate("c2", LIGHTHOUSE, "Its keeper lived in the tower.", "p1"),
        _candidate("c5", BEES, "A queen lays eggs.", "p2"),
        _candidate("c4", BEES, "Bees dance to share directions.", "p2"),
    ]
    questions = [_question("q1", "When was the lighthouse built and automated?", ["c1", "c3"]),
                 _question("q2", "Where did the keeper live?", ["c2"]),
                 _question("q3", "Why do bees dance?", ["c4", "gone"]),
                 _question("q4", "zzz qqq?", ["c5"])]
    path = write_release(tmp_path, "1.0.0", {"questions": questions, "candidates": candidates},
                         dataset="reqa_squad", splits=["questions", "candidates"])
    return ReleaseView.open(str(path))


def _entries(view: ReleaseView, renderer: reqa.ReqaRenderer) -> list:
    table = view.main_tables()[0]
    return list(renderer.entries(view, table, view.rows(table)))


def _marks_match(view: ReleaseView, detail: str) -> int:
    """Every answer-sentence mark is its candidate's sentence at its offsets."""
    candidates = {c["candidate_id"]: c for c in view.rows(view.table("candidates"))}
    marks = MARK.findall(detail)
    for cid, start, end, marked in marks:
        candidate = candidates[cid]
        assert (int(start), int(end)) == (candidate["sentence_start"],
                                          candidate["sentence_end"])
        assert html.unescape(marked) == candidate["sentence"]
        assert candidate["context"][int(start):int(end)] == candidate["sentence"]
    return len(marks)


def _ranks(detail: str) -> dict[str, dict[str, int]]:
    """``{candidate id: {field: rank}}`` of a detail's rank table."""
    return {match.group(1): {f: int(r) for f, r in FIELD_RANK.findall(match.group(0))}
            for match in RANK.finditer(detail)}


def test_entries_mark_every_correct_sentence_in_its_paragraph(toy):
    renderer = reqa.make(toy)
    assert renderer.title == "ReQA (squad)"
    entries = _entries(toy, renderer)
    assert [(e.key, e.split) for e in entries] == [
        ("q1", "questions"), ("q2", "questions"), ("q3", "questions"), ("q4", "questions")]
    first = entries[0]
    assert _marks_match(toy, first.detail) == 2
    assert first.detail.count('<div class="candidate"') == 1  # both in one paragraph
    assert set(_ranks(first.detail)) == {"c1", "c3"}
    assert _marks_match(toy, entries[2].detail) == 1
    assert "not in the candidates table: gone" in entries[2].detail
    assert len(renderer.candidates.contexts) == 2  # paragraphs held once


def test_ranks_are_those_of_the_baseline_code(toy):
    renderer = reqa.make(toy)
    questions = list(toy.rows(toy.table("questions")))
    candidates = sorted(toy.rows(toy.table("candidates")), key=lambda c: c["candidate_id"])
    ids = [c["candidate_id"] for c in candidates]
    for key, _, column in reqa.BM25_FIELDS:
        baseline = _bm25_rankings([c[column] for c in candidates], ids, questions,
                                  renderer.bm25.tokenize)
        for question, entry in zip(questions, _entries(toy, renderer), strict=True):
            for cid, ranks in _ranks(entry.detail).items():
                top = baseline[question["qid"]]
                assert ranks[key] == top.index(cid) + 1


def test_reasons_cells_and_an_unmatched_question(toy):
    entries = {e.key: e for e in _entries(toy, reqa.make(toy))}
    assert entries["q2"].reason == "BM25 rank 1"
    assert entries["q2"].cells[3] == '<span class="rank">1</span>'
    assert "Its keeper lived in the tower." in entries["q2"].text
    assert "no word of the question is in the index" in entries["q4"].detail
    assert entries["q4"].reason == "BM25 rank 2-10"  # all scores 0: ties to the lower id


def test_dataset_text_is_escaped():
    context = f"{HOSTILE} is bad. Plain text here."
    store = reqa.Candidates(ids=["c1"], paragraph=[0], start=[0], end=[len(HOSTILE) + 8],
                            contexts=[context], paragraph_ids=[HOSTILE],
                            position={"c1": 0})
    renderer = reqa.ReqaRenderer(store, [context[:len(HOSTILE) + 8]])
    row = {"qid": HOSTILE, "question": HOSTILE, "correct_candidate_ids": ["c1", HOSTILE],
           "source": HOSTILE, "document": HOSTILE}
    entry = renderer.entry(row, "questions")
    for part in (*entry.cells, entry.detail):
        assert "<script" not in part
    assert '<mark class="answer-sentence" data-candidate-id="c1" data-start="0" ' \
           f'data-end="{len(HOSTILE) + 8}">&lt;script&gt;' in entry.detail


def test_overlapping_or_outside_spans_are_not_marked():
    marked = reqa._marked("abcdef", [(0, 3, "a"), (2, 4, "b"), (4, 9, "c"), (4, 6, "d")])
    assert marked == ('<mark class="answer-sentence" data-candidate-id="a" data-start="0" '
                      'data-end="3">abc</mark>d<mark class="answer-sentence" '
                      'data-candidate-id="d" data-start="4" data-end="6">ef</mark>')


def test_measures_question_and_correct_sentence_words(toy):
    renderer = reqa.make(toy)
    row = _question("q1", "When was it built?", ["c1", "c3"])
    assert renderer.measures(row) == {"question words": 4, "sentence words": 6}
    assert renderer.measures(_question("q", "Gone?", ["gone"])) == {"question words": 1}


def test_sample_release_agrees_with_the_cards_baselines(sample_releases):
    path = sample_releases["reqa_squad"]
    view = ReleaseView.open(str(path))
    renderer = reqa.make(view)
    entries = _entries(view, renderer)
    assert len(entries) == view.main_tables()[0].rows > 0
    baselines = {row["name"]: row for row in reqa_baselines(str(path))["rows"]}
    for key, label, _ in reqa.BM25_FIELDS:
        ranks = [min(r[key] for r in _ranks(e.detail).values()) for e in entries]
        mrr = sum(1 / r if r <= 10 else 0 for r in ranks) / len(ranks)
        assert mrr == pytest.approx(baselines[label]["sentence_mrr"])
    assert sum(_marks_match(view, e.detail) for e in entries) == sum(
        len(q["correct_candidate_ids"]) for q in view.rows(view.main_tables()[0]))
