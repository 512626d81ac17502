"""Linking over a small index of one's own: a question whose page is not in it is dropped as
``below_floor`` instead of being linked to an unrelated page (issue 37: "when did the first man
land on the moon" went to *Berlin Wall*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from filters.nq.relevance_floor import RelevanceFloor
from transforms.clients.local_search import LocalSearch
from transforms.core.accounting import DEAD_LETTER, REJECTED, TALLY
from transforms.nq.counters import BELOW_FLOOR, LINKING_BELOW_FLOOR, wikipedia_rank
from transforms.nq.linking import LinkQuestions
from transforms.sources.search_corpus import build_index, page_record

PAGES = {
    "Berlin_Wall": "The Berlin Wall divided Berlin from 1961. The wall came down in 1989 when "
                   "East Germany opened the border; the first crossings opened on 9 November.",
    "Eiffel_Tower": "The Eiffel Tower is a lattice tower in Paris, France, 330 metres tall.",
    "Mount_Everest": "Mount Everest is the highest mountain, 8,849 metres, in the Himalayas.",
}
MOON = "when did the first man land on the moon"
WALL = "when did the berlin wall come down in germany"


@pytest.fixture(scope="module")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("index")
    records = [page_record(f"https://en.wikipedia.org/wiki/{title}", title.replace("_", " "),
                           "wikipedia", 0, f"<html><head><title>{title}</title></head><body>"
                                           f"<p>{text}</p></body></html>")
               for title, text in PAGES.items()]
    build_index(records, str(directory))
    return directory


def link(index: Path, question: str, floor: RelevanceFloor) -> list:
    step = LinkQuestions(lambda: LocalSearch(str(index)), "en", floor=floor)
    step.setup()
    try:
        return list(step.process((0, [{"question": question}])))
    finally:
        step.teardown()


def full(counter) -> str:
    return f"{counter.stage}.{counter.name}"


def tagged(outputs: list, tag: str) -> list:
    return [o.value for o in outputs if getattr(o, "tag", None) == tag]


def test_local_scores_are_shares_of_the_question_weight(small_index: Path):
    search = LocalSearch(str(small_index))
    try:
        hits = search.search(WALL, 5) + search.search(MOON, 5)
    finally:
        search.close()
    assert hits and all(0 < h.score < 1 for h in hits)


def test_without_a_floor_the_moon_question_goes_to_the_berlin_wall(small_index: Path):
    outputs = link(small_index, MOON, RelevanceFloor(0.0, 0.0))
    linked = [o for o in outputs if isinstance(o, tuple)]
    assert [title for title, _ in linked] == ["Berlin_Wall"]  # the behaviour issue 37 reports


def test_the_default_floor_drops_it_as_below_floor_and_keeps_the_wall(small_index: Path):
    outputs = link(small_index, MOON, RelevanceFloor())
    assert not [o for o in outputs if isinstance(o, tuple)]
    (record,) = tagged(outputs, REJECTED)
    kind, row = record
    assert kind == "unlinked_questions" and row["reason"] == BELOW_FLOOR
    assert row["title"] == "Berlin_Wall" and row["score"] < RelevanceFloor().min_score
    assert (full(LINKING_BELOW_FLOOR), 1) in tagged(outputs, TALLY)
    assert not tagged(outputs, DEAD_LETTER)
    kept = link(small_index, WALL, RelevanceFloor())
    assert [title for title, _ in (o for o in kept if isinstance(o, tuple))] == ["Berlin_Wall"]
    assert (full(wikipedia_rank(1)), 1) in tagged(kept, TALLY)


@pytest.mark.parametrize("flag, value", [("--min-score", "3.5"), ("--min-margin", "1.5")])
def test_a_floor_nothing_can_pass_is_a_usage_error_before_any_work(flag, value, tmp_path):
    from pipelines import build_nq
    from transforms.core.errors import UsageError

    with pytest.raises(UsageError, match=f"{flag} {value}"):
        build_nq.run([flag, value, "--output", str(tmp_path)])
    assert not any(tmp_path.iterdir())
