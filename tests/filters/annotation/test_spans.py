from filters.annotation.spans import contains, majority_span, span_support


def test_containment_is_strict():
    assert contains((0, 10), (2, 5))
    assert contains((0, 10), (0, 10)) is False
    assert contains((0, 10), (5, 12)) is False
    assert contains((2, 5), (0, 10)) is False


def test_plain_majority():
    assert majority_span([(0, 4), (0, 4), (0, 4), (6, 9), (6, 9)]) == (0, 4)


def test_a_longer_span_votes_for_the_shorter_ones_it_contains():
    # (10, 14) has one own vote, plus the two votes of (8, 20) that contains it: 3 beats 2.
    votes = [(10, 14), (8, 20), (8, 20), (30, 35), (30, 35)]
    assert span_support(votes) == {(10, 14): 3, (8, 20): 2, (30, 35): 2}
    assert majority_span(votes) == (10, 14)


def test_subsumption_adds_to_every_contained_span_at_any_depth():
    votes = [(0, 20), (2, 10), (3, 5)]
    assert span_support(votes) == {(0, 20): 1, (2, 10): 2, (3, 5): 3}
    assert majority_span(votes) == (3, 5)


def test_subsumption_makes_a_single_own_vote_adoptable():
    assert majority_span([(0, 10), (2, 5)]) == (2, 5)


def test_overlapping_spans_do_not_share_votes():
    assert span_support([(0, 10), (5, 15)]) == {(0, 10): 1, (5, 15): 1}
    assert majority_span([(0, 10), (5, 15)]) is None


def test_a_tie_goes_to_the_shortest_span_then_the_earliest():
    assert majority_span([(0, 10), (0, 10), (20, 23), (20, 23)]) == (20, 23)
    assert majority_span([(20, 23), (20, 23), (0, 3), (0, 3)]) == (0, 3)


def test_single_votes_are_never_adopted():
    assert majority_span([(0, 4), (6, 9), (12, 20)]) is None
    assert majority_span([(0, 4)]) is None
    assert majority_span([(0, 4), (0, 4)], min_votes=3) is None
    assert majority_span([(0, 4)], min_votes=1) == (0, 4)


def test_null_votes_never_win_but_need_not_be_outnumbered():
    assert majority_span([None] * 10) is None
    assert majority_span([]) is None
    assert majority_span([None] * 8 + [(1, 3), (1, 3)]) == (1, 3)
    assert majority_span([None] * 9 + [(1, 3)]) is None
