"""The seeded synthetic worker pool: deterministic, valid votes, spammers, stage order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from statistics import fmean

import pytest

from filters.annotation.nq import check_nq_vote, long_answer_type
from filters.annotation.votes import parse_jnq_vote, parse_nq_vote
from tests.conftest import PROJECT_ROOT
from transforms.annotation.simulate import (
    WorkerPool,
    jnq_truth,
    nq_truth,
    pick_workers,
    simulate_jnq_votes,
    simulate_nq_votes,
)

# (token, html) of a tiny page: a paragraph, a table with one row, a list with one item,
# another paragraph.
_TOKENS = [("<P>", True), ("Alpha", False), ("beta", False), ("gamma", False), ("</P>", True),
           ("<Table>", True), ("<Tr>", True), ("<Td>", True), ("one", False), ("</Td>", True),
           ("</Tr>", True), ("</Table>", True), ("<Ul>", True), ("<Li>", True), ("x", False),
           ("y", False), ("</Li>", True), ("</Ul>", True), ("<P>", True), ("delta", False),
           ("epsilon", False), ("zeta", False), ("eta", False), ("theta", False),
           ("iota", False), ("</P>", True)]
_CANDIDATES = [(0, 5, True), (5, 12, True), (6, 11, False), (12, 18, True), (13, 17, False),
               (18, 26, True)]

PERFECT = WorkerPool(size=20, accuracy=(1.0, 1.0), spammer_share=0.0)


def nq_example(example_id: int) -> dict:
    tokens = [{"token": t, "html_token": h, "start_byte": 10 * i, "end_byte": 10 * i + 5}
              for i, (t, h) in enumerate(_TOKENS)]
    candidates = [{"start_token": s, "end_token": e, "start_byte": 10 * s,
                   "end_byte": 10 * (e - 1) + 5, "top_level": top} for s, e, top in _CANDIDATES]
    return {"example_id": example_id, "question_text": "what is alpha",
            "document_tokens": tokens, "long_answer_candidates": candidates, "annotations": []}


def jnq_row(question_id: str) -> dict:
    texts = ["富士山は日本で一番高い山です。", "", "標高は 3776 メートル。",
             "静岡県と山梨県にまたがる。", "An English paragraph, too.", "外の段落。",
             "候補ではない段落。"]
    return {"id": question_id, "question": "富士山の高さは?", "variant": "jnq",
            "paragraphs": [{"id": i, "text": text} for i, text in enumerate(texts)],
            "candidate_paragraph_ids": [0, 2, 3, 1, 4], "candidate_ranks": [0, 1, 2, 3, 4],
            "candidate_scores": [1.0, 0.5, 0.4, 0.3, 0.2]}


def _dumps(votes: list[dict]) -> bytes:
    return "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in votes).encode()


# ---------------------------------------------------------------------------- worker pool


def test_pool_is_seeded_and_has_its_share_of_spammers() -> None:
    workers = WorkerPool().workers()
    assert [w.id for w in workers] == [f"w{i:03d}" for i in range(50)]
    assert sum(w.spammer for w in workers) == 5
    assert all(0.75 <= w.accuracy <= 0.95 for w in workers if not w.spammer)
    assert WorkerPool().workers() == workers
    assert WorkerPool(seed=1).workers() != workers


def test_pool_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError):
        WorkerPool(size=0)
    with pytest.raises(ValueError):
        WorkerPool(accuracy=(0.9, 0.8))
    with pytest.raises(ValueError):
        WorkerPool(spammer_share=1.5)


def test_pick_workers_distinct_and_bounded() -> None:
    pool = WorkerPool(size=12)
    chosen = pick_workers(pool, "q1", 10)
    assert len({w.id for w in chosen}) == 10
    assert chosen == pick_workers(pool, "q1", 10)
    assert [w.id for w in chosen] == sorted(w.id for w in chosen)
    with pytest.raises(ValueError):
        pick_workers(pool, "q1", 13)
    with pytest.raises(ValueError):
        simulate_nq_votes(nq_example(1), 0, pool)


# ------------------------------------------------------------------------------ determinism


def test_same_seed_same_bytes_other_seed_other_votes() -> None:
    def release(seed: int) -> bytes:
        pool = WorkerPool(seed=seed)
        votes = [v for i in range(30) for v in simulate_nq_votes(nq_example(i), 5, pool, "r1")]
        votes += [v for i in range(10)
                  for v in simulate_jnq_votes(jnq_row(f"q{i}"), 10, pool, "jnq", "r1")]
        return _dumps(votes)

    assert release(3) == release(3)
    assert release(3) != release(4)


def test_votes_do_not_depend_on_the_process_hash_seed() -> None:
    code = ("import json, sys; sys.path.insert(0, '.');"
            "from tests.transforms.annotation.test_simulate import nq_example, jnq_row;"
            "from transforms.annotation.simulate import *;"
            "p = WorkerPool(seed=7);"
            "v = simulate_nq_votes(nq_example(5), 5, p) + "
            "simulate_jnq_votes(jnq_row('q5'), 10, p, 'jboolq');"
            "print(json.dumps(v))")
    outputs = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, env=env,
                              capture_output=True, text=True, check=True)
        outputs.add(done.stdout)
    pool = WorkerPool(seed=7)
    here = simulate_nq_votes(nq_example(5), 5, pool) + simulate_jnq_votes(
        jnq_row("q5"), 10, pool, "jboolq")
    assert outputs == {json.dumps(here) + "\n"}


# ------------------------------------------------------------------------------------- NQ


def test_nq_votes_have_the_issue_format_and_parse() -> None:
    example = nq_example(-1234)
    for seed in range(60):
        votes = simulate_nq_votes(example, 5, WorkerPool(seed=seed), release="abcd")
        assert len(votes) == 5
        assert len({v["annotator_id"] for v in votes}) == 5
        for vote in votes:
            assert set(vote) == {"example_id", "annotator_id", "question_good",
                                 "long_answer_candidate", "short_answers", "yes_no_answer",
                                 "release"}
            assert vote["example_id"] == "-1234" and vote["release"] == "abcd"
            check_nq_vote(parse_nq_vote(vote), example)


def test_nq_release_key_only_when_given() -> None:
    assert all("release" not in v for v in simulate_nq_votes(nq_example(1), 3, WorkerPool()))


def test_nq_truth_shape_and_rates() -> None:
    truths = [nq_truth(nq_example(i), WorkerPool()) for i in range(3000)]
    good = [t for t in truths if t.question_good]
    long = [t for t in good if t.long_answer_candidate >= 0]
    short = [t for t in long if t.short_answers]
    yes_no = [t for t in long if t.yes_no_answer != "NONE"]
    assert 0.87 < len(good) / len(truths) < 0.93
    assert 0.45 < len(long) / len(good) < 0.55
    assert 0.63 < len(short) / len(long) < 0.75
    assert 0 < len(yes_no) / len(long) < 0.06
    kinds = [long_answer_type(nq_example(0), t.long_answer_candidate) for t in long]
    assert kinds.count("paragraph") / len(kinds) > 0.7
    assert {"table", "list", "list_item"} & set(kinds)
    assert "table_row" not in kinds
    for truth in truths:
        if not truth.question_good:
            assert truth.long_answer_candidate == -1
        for start, end in truth.short_answers:
            low, high, _ = _CANDIDATES[truth.long_answer_candidate]
            assert low <= start < end <= high and end - start <= 5
            assert not any(_TOKENS[i][1] for i in range(start, end))
            assert truth.yes_no_answer == "NONE"


def test_perfect_workers_report_the_truth() -> None:
    for i in range(100):
        example = nq_example(i)
        truth = nq_truth(example, PERFECT)
        for vote in simulate_nq_votes(example, 5, PERFECT):
            assert vote["question_good"] == truth.question_good
            assert vote["long_answer_candidate"] == truth.long_answer_candidate
            assert [(s["start_token"], s["end_token"]) for s in vote["short_answers"]] == list(
                truth.short_answers)
            assert vote["yes_no_answer"] == truth.yes_no_answer


def test_nq_spammers_agree_less_with_the_truth() -> None:
    pool = WorkerPool(size=20, spammer_share=0.25)
    spammers = {w.id for w in pool.workers() if w.spammer}
    agreement: dict[bool, list[bool]] = {True: [], False: []}
    for i in range(200):
        example = nq_example(i)
        truth = nq_truth(example, pool)
        for vote in simulate_nq_votes(example, 5, pool):
            agreement[vote["annotator_id"] in spammers].append(
                (vote["question_good"], vote["long_answer_candidate"])
                == (truth.question_good, truth.long_answer_candidate))
    assert len(agreement[True]) > 100
    assert fmean(agreement[False]) > 0.8
    assert fmean(agreement[False]) - fmean(agreement[True]) > 0.4


def test_honest_mistakes_are_plausible() -> None:
    pool = WorkerPool(size=20, accuracy=(0.0, 0.0), spammer_share=0.0)
    mistakes = [(nq_truth(nq_example(i), pool), vote) for i in range(300)
                for vote in simulate_nq_votes(nq_example(i), 3, pool)]
    shifted = other = 0
    for truth, vote in mistakes:
        if truth.short_answers and vote["long_answer_candidate"] == truth.long_answer_candidate:
            spans = [(s["start_token"], s["end_token"]) for s in vote["short_answers"]]
            shifted += bool(spans) and spans != list(truth.short_answers)
        if truth.long_answer_candidate >= 0 and vote["long_answer_candidate"] not in (
                -1, truth.long_answer_candidate):
            other += 1
    assert shifted > 5 and other > 5


# ------------------------------------------------------------------------------ JNQ/JBoolQ


def _spans_inside(votes: list[dict], row: dict) -> None:
    texts = {p["id"]: p["text"] for p in row["paragraphs"]}
    for vote in votes:
        parsed = parse_jnq_vote(vote)
        if parsed.paragraph is not None:
            assert parsed.paragraph in row["candidate_paragraph_ids"]
        if parsed.stage == "span" and parsed.value is not None:
            start, end = parsed.value
            assert 0 <= start < end <= len(texts[parsed.paragraph])


@pytest.mark.parametrize("order", ["jnq", "jboolq"])
def test_jnq_votes_parse_and_stay_inside_paragraphs(order: str) -> None:
    pool = WorkerPool(seed=2, spammer_share=0.3)
    stages = set()
    for i in range(150):
        row = jnq_row(f"q{i}")
        votes = simulate_jnq_votes(row, 10, pool, order, release="r9")
        assert all(v["release"] == "r9" and v["question_id"] == f"q{i}" for v in votes)
        _spans_inside(votes, row)
        stages |= {v["stage"] for v in votes}
    expected = {"good_question", "long_answer", "yes_no_question", "yes_no_answer"}
    assert stages == (expected | {"span"} if order == "jnq" else expected)


def test_jnq_span_vote_format() -> None:
    votes = [v for i in range(40) for v in simulate_jnq_votes(jnq_row(f"q{i}"), 10,
                                                               WorkerPool(), "jnq")]
    spans = [v for v in votes if v["stage"] == "span"]
    assert spans and all(set(v) == {"question_id", "annotator_id", "stage", "paragraph",
                                    "value"} for v in spans)
    assert any(v["value"] is None for v in spans)
    assert any(set(v["value"] or {}) == {"start", "end"} for v in spans)
    good = [v for v in votes if v["stage"] == "good_question"]
    assert all("paragraph" not in v and isinstance(v["value"], bool) for v in good)


def test_jnq_truth_spans_and_exist() -> None:
    row = jnq_row("q0")
    texts = {p["id"]: p["text"] for p in row["paragraphs"]}
    first = other = 0
    for seed in range(400):
        truth = jnq_truth(row, WorkerPool(seed=seed), "jnq")
        assert set(truth.exist) <= {0, 1, 2, 3, 4}
        first += 0 in truth.exist
        other += 2 in truth.exist
        for pid, span in truth.spans.items():
            assert pid != 1 or span is None  # the empty paragraph has no span
            if span is not None:
                text = texts[pid][span[0]:span[1]]
                assert text and not text[0].isspace() and not text[-1].isspace()
    assert first > 1.5 * other
    share = fmean(jnq_truth(row, WorkerPool(seed=s), "jboolq").yes_no_question
                  for s in range(300))
    assert share > 0.7
    assert fmean(jnq_truth(row, WorkerPool(seed=s), "jnq").yes_no_question
                 for s in range(300)) < 0.2
    with pytest.raises(ValueError):
        jnq_truth(row, WorkerPool(), "nq")


def _stage_sequence(votes: list[dict]) -> list[str]:
    sequence: list[str] = []
    for vote in votes:
        if not sequence or sequence[-1] != vote["stage"]:
            sequence.append(vote["stage"])
    return sequence


@pytest.mark.parametrize("order", ["jnq", "jboolq"])
def test_bad_question_gets_no_further_judgments(order: str) -> None:
    bad = [f"q{i}" for i in range(200)
           if not jnq_truth(jnq_row(f"q{i}"), PERFECT, order).good]
    assert bad
    for question_id in bad:
        votes = simulate_jnq_votes(jnq_row(question_id), 10, PERFECT, order)
        assert len(votes) == 10
        assert {v["stage"] for v in votes} == {"good_question"}
        assert all(v["value"] is False for v in votes)


def test_jnq_order_with_perfect_workers() -> None:
    seen_span = seen_yes_no = 0
    for i in range(200):
        row = jnq_row(f"q{i}")
        truth = jnq_truth(row, PERFECT, "jnq")
        if not truth.good:
            continue
        votes = simulate_jnq_votes(row, 10, PERFECT, "jnq")
        expected = ["good_question", "long_answer", "yes_no_question"]
        if truth.exist:
            expected.append("yes_no_answer" if truth.yes_no_question else "span")
        assert _stage_sequence(votes) == expected
        long_answer = [v["paragraph"] for v in votes if v["stage"] == "long_answer"]
        assert long_answer == [p for p in [0, 2, 3, 1, 4] for _ in range(10)]
        late = [v for v in votes if v["stage"] in ("span", "yes_no_answer")]
        assert {v["paragraph"] for v in late} == set(truth.exist)
        for vote in late:
            if vote["stage"] == "span":
                seen_span += 1
                span = truth.spans[vote["paragraph"]]
                assert vote["value"] == (None if span is None
                                         else {"start": span[0], "end": span[1]})
            else:
                seen_yes_no += 1
                assert vote["value"] == truth.yes_no_answers[vote["paragraph"]]
    assert seen_span and seen_yes_no


def test_jboolq_order_with_perfect_workers() -> None:
    stopped = 0
    for i in range(200):
        row = jnq_row(f"q{i}")
        truth = jnq_truth(row, PERFECT, "jboolq")
        if not truth.good:
            continue
        votes = simulate_jnq_votes(row, 10, PERFECT, "jboolq")
        if not truth.yes_no_question:
            stopped += 1
            assert _stage_sequence(votes) == ["good_question", "yes_no_question"]
            continue
        expected = ["good_question", "yes_no_question", "long_answer"]
        assert _stage_sequence(votes) == expected + (["yes_no_answer"] if truth.exist else [])
        assert "span" not in {v["stage"] for v in votes}
    assert stopped


def test_ambiguous_yes_no_question_stops_in_jnq() -> None:
    # Spammers split on "is it a yes/no question"; 4-6 of 10 is ambiguous: nothing more asked.
    spammers = WorkerPool(size=10, spammer_share=1.0)
    assert all(w.spammer for w in spammers.workers())
    found = 0
    for i in range(300):
        votes = simulate_jnq_votes(jnq_row(f"q{i}"), 10, spammers, "jnq")
        yes = [v["value"] for v in votes if v["stage"] == "yes_no_question"]
        if yes and 4 <= sum(yes) <= 6:
            found += 1
            assert _stage_sequence(votes)[-1] == "yes_no_question"
        if yes and sum(yes) <= 3:
            assert "yes_no_answer" not in {v["stage"] for v in votes}
    assert found


def test_jnq_spammers_agree_less_with_the_truth() -> None:
    pool = WorkerPool(size=20, spammer_share=0.25, seed=5)
    spammers = {w.id for w in pool.workers() if w.spammer}
    agreement: dict[bool, list[bool]] = {True: [], False: []}
    for i in range(200):
        row = jnq_row(f"q{i}")
        truth = jnq_truth(row, pool, "jnq")
        for vote in simulate_jnq_votes(row, 10, pool, "jnq"):
            if vote["stage"] == "good_question":
                right = vote["value"] == truth.good
            elif vote["stage"] == "long_answer":
                right = vote["value"] == (vote["paragraph"] in truth.exist)
            else:
                continue
            agreement[vote["annotator_id"] in spammers].append(right)
    assert fmean(agreement[False]) > 0.8
    assert fmean(agreement[False]) - fmean(agreement[True]) > 0.25
