"""The confident rule's JNQ fit centres each worker's prior on their pooled accuracy
(``smoothed_ds`` ``centre``, ``confident.fit_confident``): a good worker's vote for a rare
label counts, where a chance-centred prior left that row near chance."""

from __future__ import annotations

from filters.annotation.votes import JnqVote
from transforms.annotation.confident import fit_confident
from transforms.annotation.smoothed_ds import fit_smoothed

LABELS = ("true", "false")


def _campaign() -> list[tuple[str, str, str]]:
    """Mostly true items; "a" and "b" always right, "s" at random; one rare false item."""
    triples = []
    for n in range(40):
        truth = "false" if n % 10 == 0 else "true"
        triples += [(f"i{n:02d}", "a", truth), (f"i{n:02d}", "b", truth),
                    (f"i{n:02d}", "s", "true" if n % 2 else "false")]
    return triples


def test_a_chance_centre_is_the_plain_smoothed_fit():
    triples = _campaign()
    plain = fit_smoothed(triples, LABELS)
    assert fit_smoothed(triples, LABELS, centre={"a": 0.5, "b": 0.5, "s": 0.5}) == plain
    assert fit_smoothed(triples, LABELS, centre={}) == plain


def test_a_centred_prior_trusts_a_good_worker_on_the_rare_label():
    triples = _campaign() + [("x", "a", "false"), ("x", "s", "true")]
    plain_posteriors, plain_skills = fit_smoothed(triples, LABELS)
    centred_posteriors, centred_skills = fit_smoothed(
        triples, LABELS, centre={"a": 0.95, "b": 0.95, "s": 0.5})
    assert centred_skills["a"] > plain_skills["a"]
    assert centred_posteriors["x"]["false"] > plain_posteriors["x"]["false"]


def test_fit_confident_centres_jnq_workers_on_their_pooled_accuracy():
    votes = [JnqVote(item, worker, "good_question", label == "true")
             for item, worker, label in _campaign()]
    votes += [JnqVote(item, worker, "yes_no_question", label != "true")
              for item, worker, label in _campaign()]
    model = fit_confident(votes)
    plain = fit_smoothed([(f"{v.question_id}\x1fgood_question\x1f", v.annotator_id,
                           "true" if v.value else "false")
                          for v in votes if v.stage == "good_question"], LABELS)[1]
    assert model.skills["a"] > plain["a"] and model.skills["s"] < model.skills["a"]
