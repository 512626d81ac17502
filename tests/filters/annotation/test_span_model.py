"""The span stage's skill-weighted posterior (``filters.annotation.span_model``): agreeing
skilled workers make a span sure, one vote, disagreement or unknown workers do not."""

from __future__ import annotations

import pytest

from filters.annotation.span_model import span_posterior

SKILLS = {"a": 0.9, "b": 0.9, "c": 0.8, "d": 0.8, "s": 0.5}


def test_two_agreeing_skilled_workers_make_a_span_sure_and_one_vote_does_not():
    assert span_posterior([(0, 4), (0, 4)], ["a", "b"], SKILLS, (0, 4)) > 0.995
    one = 0.9 / (0.9 + 2 * 0.1 / 3)  # against "no span" and a value nobody gave
    assert span_posterior([(0, 4)], ["a"], SKILLS, (0, 4)) == pytest.approx(one)
    assert span_posterior([(0, 4), (0, 4)], ["c", "d"], SKILLS, (0, 4)) < 0.99
    assert span_posterior([None, None], ["a", "b"], SKILLS, None) > 0.995


def test_disagreement_unknown_workers_and_spammers_keep_it_open():
    assert span_posterior([(0, 4), (1, 4)], ["a", "b"], SKILLS, (0, 4)) < 0.6
    assert span_posterior([(0, 4), (0, 4)], ["x", "y"], SKILLS, (0, 4)) < 0.9  # near chance
    assert span_posterior([(0, 4), (0, 4)], ["a", "s"], SKILLS, (0, 4)) < 0.99
    # a span adopted through subsumption (one own vote, one from its container) is unsure
    assert span_posterior([(1, 3), (0, 4)], ["a", "b"], SKILLS, (1, 3)) < 0.6


def test_a_label_nobody_gave_and_no_votes():
    assert span_posterior([(0, 4), (0, 4)], ["a", "b"], SKILLS, None) < 0.01
    assert span_posterior([(0, 4), (0, 4)], ["a", "b"], SKILLS, (5, 9)) == 0.0
    assert span_posterior([], [], SKILLS, None) == 0.0
