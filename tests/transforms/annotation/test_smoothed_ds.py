"""Smoothed Dawid-Skene (the confident rule's model): no worker is ever certain, so one vote
cannot decide an item at 0.99999 as maximum-likelihood confusion matrices let it."""

from __future__ import annotations

from filters.annotation.votes import JnqVote
from transforms.annotation.confident import fit_confident
from transforms.annotation.smoothed_ds import fit_smoothed


def _agreeing(items: int) -> list[tuple[str, str, str]]:
    """Three workers who agree on every item (none has erred yet)."""
    return [(f"i{n:02d}", worker, "true" if n % 3 else "false")
            for n in range(items) for worker in ("a", "b", "c")]


def test_a_never_wrong_worker_is_not_certain():
    triples = _agreeing(30) + [("x", "a", "false"), ("x", "b", "true"), ("x", "c", "true")]
    posteriors, skills = fit_smoothed(triples, ("true", "false"))
    # two against one, not one decisive vote (crowd-kit's DawidSkene: 1 - 1e-10 here and below)
    assert 0.5 < posteriors["x"]["true"] < 0.999
    assert all(0.5 < skill < 1 for skill in skills.values())
    one = fit_smoothed(_agreeing(30) + [("y", "a", "true")], ("true", "false"))[0]
    assert one["y"]["true"] < 0.99  # one judgment never reaches the default confidence


def test_labels_no_vote_gave_yet_are_kept_and_the_fit_is_deterministic():
    triples = [(f"i{n}", w, "true") for n in range(5) for w in ("a", "b")]
    posteriors, _ = fit_smoothed(triples, ("true", "false"))
    assert set(posteriors["i0"]) == {"true", "false"} and posteriors["i0"]["false"] > 0
    assert fit_smoothed(list(reversed(triples)), ("true", "false"))[0] == posteriors


def test_fit_confident_formulates_the_kinds_as_the_import():
    votes = [JnqVote("q", w, "yes_no_answer", "YES", 3) for w in ("a", "b")]
    model = fit_confident(votes)
    assert set(model.posteriors["q\x1fyes_no_answer\x1f3"]) == {"YES", "NO", "NONE"}
    assert model.aggregate == "ds" and set(model.skills) == {"a", "b"}
