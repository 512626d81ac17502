"""The relevance floor of NQ linking (filters.nq.relevance_floor)."""

from filters.nq.relevance_floor import DEFAULT_MIN_SCORE, RelevanceFloor, margin_over_next
from filters.nq.search_hits import SearchHit


def hit(rank: int, score: float | None, title: str = "Page") -> SearchHit:
    return SearchHit(f"https://en.wikipedia.org/wiki/{title}", title, "", rank, score)


def test_a_page_under_the_score_floor_fails_and_one_at_it_passes():
    floor = RelevanceFloor(min_score=0.2)
    assert not floor.check(hit(1, 0.19), [hit(1, 0.19)]).passed
    assert floor.check(hit(1, 0.2), [hit(1, 0.2)]).passed


def test_the_margin_is_the_lead_over_the_next_ranked_hit_as_a_share_of_the_score():
    hits = [hit(1, 0.5, "A"), hit(2, 0.4, "B"), hit(3, 0.1, "C")]
    assert abs(margin_over_next(hits[0], hits) - 0.2) < 1e-9
    assert abs(margin_over_next(hits[1], hits) - 0.75) < 1e-9
    assert margin_over_next(hits[2], hits) == 1.0  # nothing follows
    floor = RelevanceFloor(min_score=0.0, min_margin=0.25)
    assert not floor.check(hits[0], hits).passed
    assert floor.check(hits[1], hits).passed


def test_a_backend_without_scores_is_not_floored():
    check = RelevanceFloor(min_score=0.9, min_margin=0.9).check(hit(1, None), [hit(1, None)])
    assert check.passed and check.score is None


def test_zero_turns_the_floor_off_and_the_default_is_the_measured_one():
    assert not RelevanceFloor(0.0, 0.0).active
    assert RelevanceFloor(0.0, 0.0).check(hit(1, 0.001), [hit(1, 0.001)]).passed
    assert RelevanceFloor().min_score == DEFAULT_MIN_SCORE == 0.2
