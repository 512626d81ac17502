"""The simulated NQ worker reproduces NQ §4's single-annotator precision and recall."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.transforms.annotation.nq_pages import uniform_nq_page
from transforms.annotation.simulate import WorkerPool, simulate_nq_votes
from transforms.annotation.simulate_calibration import (
    expected_scores,
    fit_nq_error_rates,
    nominal_error,
    pool_error,
)
from transforms.annotation.simulate_nq_errors import NQ_ERRORS, NqErrorRates
from transforms.annotation.simulate_scores import NQ_SINGLE_ANNOTATOR, nq_single_annotator_scores
from transforms.annotation.simulate_truth import item_id, nq_truth_record, read_truth, truth_line

PARAGRAPHS = 20
EXAMPLES = 600  # x 5 ways: 3,000 judgments; a figure's sampling SD is about 1.3 points
TOLERANCE = 4.0  # points: about 3 SD of a 600-example campaign (20,000 examples: within 0.2)


def campaign(pool: WorkerPool, examples: int = EXAMPLES, ways: int = 5,
             truth_file: Path | None = None) -> dict:
    """Single-annotator scores of a seeded campaign against its truth (read back from
    ``truth_file`` when given, as ``annotate simulate --truth`` writes it)."""
    votes, truths = [], {}
    for number in range(examples):
        example = uniform_nq_page(number, PARAGRAPHS)
        truths[str(number)] = nq_truth_record(example, pool, "dev")
        votes += simulate_nq_votes(example, ways, pool)
    if truth_file is not None:
        truth_file.write_text("".join(truth_line(t) for t in truths.values()), encoding="utf-8")
        truths = {item_id(record): record for record in read_truth(truth_file)}
    return nq_single_annotator_scores(votes, truths)


def test_a_seeded_nq_campaign_reproduces_nq_section_4(tmp_path: Path) -> None:
    scores = campaign(WorkerPool(seed=0), truth_file=tmp_path / "truth.jsonl")
    for kind, (precision, recall) in NQ_SINGLE_ANNOTATOR.items():
        assert scores[kind].precision * 100 == pytest.approx(precision * 100, abs=TOLERANCE)
        assert scores[kind].recall * 100 == pytest.approx(recall * 100, abs=TOLERANCE)
    assert scores["long"].expected > 1000 and scores["short"].expected > 700


def test_the_default_rates_are_the_fit_and_give_the_figures_in_expectation() -> None:
    assert fit_nq_error_rates().rounded() == NQ_ERRORS == WorkerPool().nq_errors
    pool = WorkerPool()
    assert pool_error(pool) == pytest.approx((nominal_error(pool), 0.1))
    expected = expected_scores(NQ_ERRORS, *pool_error(pool))
    assert expected.long_precision == pytest.approx(0.804, abs=0.001)
    assert expected.long_recall == pytest.approx(0.676, abs=0.001)
    assert expected.short_precision == pytest.approx(0.634, abs=0.001)
    assert expected.short_recall == pytest.approx(0.526, abs=0.001)


def test_every_seed_has_the_mean_accuracy_of_its_range() -> None:
    for seed in range(5):
        error, spammers = pool_error(WorkerPool(seed=seed, accuracy=(0.6, 1.0)))
        assert error == pytest.approx(0.2, abs=1e-4) and spammers == pytest.approx(0.1)


def test_the_skill_spread_leaves_the_averages_but_spammers_lower_them() -> None:
    narrow = campaign(WorkerPool(seed=3, accuracy=(0.84, 0.86)), examples=300)
    wide = campaign(WorkerPool(seed=3, accuracy=(0.7, 1.0)), examples=300)
    for kind in ("long", "short"):
        assert wide[kind].precision == pytest.approx(narrow[kind].precision, abs=0.05)
        assert wide[kind].recall == pytest.approx(narrow[kind].recall, abs=0.05)
    spammed = campaign(WorkerPool(seed=3, spammer_share=0.4), examples=300)
    assert spammed["long"].recall < narrow["long"].recall - 0.15
    assert spammed["short"].precision < narrow["short"].precision - 0.05


def test_a_fit_out_of_reach_is_refused() -> None:
    with pytest.raises(ValueError, match="out of reach"):
        fit_nq_error_rates(spammers=0.6)
    with pytest.raises(ValueError):
        fit_nq_error_rates(error=0.0)
    with pytest.raises(ValueError, match="miss"):
        NqErrorRates(miss=-1.0)
