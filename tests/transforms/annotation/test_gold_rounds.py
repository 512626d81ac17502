"""Gold items mixed into a round (``transforms.annotation.gold_rounds``): the share, the
placement beside ordinary tasks of the same stage and ``more``, the least-judged-first choice,
the shortfall and determinism, on hand-made requests (no release)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from filters.annotation.worker_models import item_key
from transforms.annotation.gold_rounds import (
    GOLD_FIELD,
    GoldMix,
    GoldRequest,
    GoldRounds,
    check_gold_rate,
    finish_manifest,
    gold_summary_lines,
)


@dataclass(frozen=True)
class _Request:
    item: str
    split: str
    stage: str
    paragraph: int | None
    more: int


def _mix(rate: float, gold_questions: int, seed: int = 0, salt: str = "r1",
         judged: dict[str, int] | None = None) -> GoldMix:
    answers = {item_key(f"g{n:03d}", "good_question"): "true" for n in range(gold_questions)}
    mix = GoldMix(GoldRounds(answers, rate, seed, "gold.jsonl"), salt)
    for n in range(gold_questions):
        question = f"g{n:03d}"
        mix.rows[question] = ("train", {"id": question})
        mix.add_slot(question, "good_question", None, (judged or {}).get(question, 0))
    return mix


def _ordinary(count: int) -> list[tuple[_Request, dict]]:
    return [(_Request(f"q{n:04d}", "train", "good_question", None, 5 if n % 2 else 3),
             {"id": f"q{n:04d}"}) for n in range(count)]


def test_gold_is_the_rate_share_beside_tasks_of_the_same_stage_and_more():
    mix = _mix(0.2, 400)
    out = list(mix.mix(_ordinary(400)))
    gold = [i for i, (request, _) in enumerate(out) if isinstance(request, GoldRequest)]
    # odds 0.25 per ordinary request: 100 expected, binomial SD 8.7
    assert 75 <= len(gold) <= 125
    assert 0.15 <= len(gold) / len(out) <= 0.25
    for position in gold:
        request, row = out[position]
        before = next(out[i][0] for i in range(position, -1, -1)
                      if not isinstance(out[i][0], GoldRequest))
        assert (request.stage, request.more) == (before.stage, before.more)
        assert row == {"id": request.item} and request.split == "train"
        assert request.record("jnq")[GOLD_FIELD] is True
    assert len({r.item for r, _ in out if isinstance(r, GoldRequest)}) == len(gold)
    assert gold[0] < len(out) // 2 < gold[-1]  # spread through the round, not at one end
    assert list(_mix(0.2, 400).mix(_ordinary(400))) == out  # deterministic
    assert list(_mix(0.2, 400, seed=1).mix(_ordinary(400))) != out


def test_rate_zero_mixes_nothing_and_gold_questions_are_never_ordinary_items():
    mix = _mix(0.0, 3)
    asked = _ordinary(5) + [(_Request("g001", "train", "good_question", None, 5), {})]
    out = list(mix.mix(asked))
    assert [r.item for r, _ in out] == [f"q{n:04d}" for n in range(5)]
    assert mix.describe()["tasks"] == 0


def test_the_least_judged_gold_first_once_a_round_then_short():
    mix = _mix(0.5, 3, judged={"g000": 4, "g001": 0, "g002": 2})  # odds 1: one per request
    out = list(mix.mix(_ordinary(5)))
    assert [r.item for r, _ in out if isinstance(r, GoldRequest)] == ["g001", "g002", "g000"]
    record = mix.describe()
    assert record["short"] == {"good_question": 2} and record["tasks"] == 3
    assert record["judgments"] == 3 + 5 + 3
    manifest = finish_manifest({"open_items": 8, "judgments_requested": 27}, mix)
    assert manifest["open_items"] == 5  # gold questions are known, never open
    lines = gold_summary_lines(manifest)
    assert lines[0] == "gold: 3 tasks, 11 judgments (40.7% of the round's; --gold-rate 0.5)"
    assert lines[1].startswith("warning: gold_short: 2 gold task(s) of stage good_question")


@pytest.mark.parametrize("rate", [-0.1, 1.0, 1.5, float("nan"), float("inf")])
def test_a_gold_rate_outside_zero_to_one_is_refused(rate):
    with pytest.raises(ValueError, match="0 <= rate < 1"):
        check_gold_rate(rate)
    with pytest.raises(ValueError):
        GoldRounds({}, rate)
