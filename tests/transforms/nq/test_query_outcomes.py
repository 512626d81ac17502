"""The query-stage outcomes (transforms.nq.query_outcomes): a recorded outcome stands for
tagging a query, with the same rows, rejects and tallies; damaged lines are exit 5; the
fingerprint decides whether a refresh may take them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from apache_beam import pvalue

from pipelines.build_nq import read_categories
from tests.conftest import PROJECT_ROOT
from transforms.nq.query_outcomes import (
    MAX_LINE_BYTES,
    PREFIX,
    RECORD,
    Outcome,
    OutcomeLineDamaged,
    _attach,
    carried_files,
    fingerprint,
    outcome_key,
    outcome_line,
    parse_outcome,
    read_outcomes,
)
from transforms.nq.questions import OUTCOMES, SelectQuestions

CATEGORIES = read_categories(str(PROJECT_ROOT / "pipelines" / "samples" / "nq" /
                                 "categories.tsv"))
QUERIES = (
    "who wrote the song here comes the sun by the beatles",  # accepted
    "when was the eiffel tower in paris built and opened",  # accepted
    "how to unclog a bathroom sink without a plunger",  # no heuristic
    "cheap flights london new york tomorrow morning",  # too few tokens
    "www.google.com",  # url
    "hi",  # too few words
)


def candidate(question: str) -> dict:
    return {"question": question, "variants": [question], "events": 3,
            "users_in_window": 2, "distinct_users": 2, "tokens": 0, "heuristics": []}


def run(select: SelectQuestions, pairs) -> tuple[list, ...]:
    """(rows, rejects, tallies, outcome lines) of one batch."""
    out = list(select.process(pairs))
    tagged = [o for o in out if isinstance(o, pvalue.TaggedOutput)]
    return ([o for o in out if not isinstance(o, pvalue.TaggedOutput)],
            [o.value for o in tagged if o.tag == "rejected_queries"],
            [o.value for o in tagged if o.tag == "tally"],
            [o.value for o in tagged if o.tag == OUTCOMES])


@pytest.fixture(scope="module")
def tagged():
    select = SelectQuestions(CATEGORIES, 2, keep_rejected=True)
    select.setup()
    return run(select, [(candidate(q), None) for q in QUERIES])


def _refuse_model():
    raise AssertionError("the model was loaded although every outcome was recorded")


def test_a_recorded_outcome_gives_what_tagging_gives_without_the_model(tagged):
    rows, rejects, tallies, lines = tagged
    assert [row["question"] for row in rows] == list(QUERIES[:2])
    assert {r["reason"] for r in rejects} == {"no_heuristic", "too_few_tokens", "url_query",
                                              "too_few_words"}
    assert len(lines) == 4  # every query past the cheap checks, none of the others
    recorded = {line["key"]: Outcome(line["tokens"], tuple(line["heuristics"]))
                for line in lines}
    select = SelectQuestions(CATEGORIES, 2, keep_rejected=True, load_model=_refuse_model)
    select.setup()
    carried = run(select, [(candidate(q), recorded.get(outcome_key(q))) for q in QUERIES])
    for got, want in zip(carried, tagged, strict=True):  # a PCollection has no order
        got = [value for value in got if value != ("queries.outcomes_carried", 1)]
        assert sorted(map(repr, got)) == sorted(map(repr, want))
    assert ("queries.outcomes_carried", 1) in carried[2]
    assert carried[2].count(("queries.outcomes_carried", 1)) == 4


def test_outcome_lines_are_keyed_by_a_digest_not_the_text(tagged):
    line = outcome_line(QUERIES[0], Outcome(11, (3, 4)))
    assert line == {"key": outcome_key(QUERIES[0]), "tokens": 11, "heuristics": [3, 4]}
    assert QUERIES[0] not in json.dumps(tagged[3])
    assert outcome_key("a") == outcome_key("a") != outcome_key("a ")
    assert len(outcome_key("a")) == 32


@pytest.mark.parametrize("line, what", [
    (b"not json\n", "is not JSON"),
    (b'{"key": "00", "tokens": 1, "heuristics": []}\n', "no 32-digit hex"),
    (b'{"key": "' + b"a" * 32 + b'", "tokens": 1}\n', "exactly key, tokens"),
    (b'{"key": "' + b"a" * 32 + b'", "tokens": 1, "heuristics": [], "x": 1}\n',
     "exactly key, tokens"),
    (b'{"key": "' + b"a" * 32 + b'", "tokens": "1", "heuristics": []}\n', "wrong type"),
    (b'{"key": "' + b"a" * 32 + b'", "tokens": 1, "heuristics": [true]}\n', "wrong type"),
    (b"[1]\n", "exactly key, tokens"),
])
def test_a_line_that_is_no_outcome_is_a_damaged_release(line, what):
    with pytest.raises(OutcomeLineDamaged, match=what):
        parse_outcome(line, "f: line 1")


def test_outcome_files_are_read_a_line_at_a_time_and_checked(tmp_path):
    directory = tmp_path / PREFIX
    directory.mkdir(parents=True)
    good = json.dumps(outcome_line("q", Outcome(9, (1,)))) + "\n"
    (directory / "a.jsonl").write_text(good + "\n")
    assert list(read_outcomes(f"{PREFIX}a.jsonl", str(tmp_path))) == [
        (outcome_key("q"), Outcome(9, (1,)))]
    (directory / "b.jsonl").write_text(good + "x" * MAX_LINE_BYTES + "\n")
    with pytest.raises(OutcomeLineDamaged, match="b.jsonl: line 2 is longer"):
        list(read_outcomes(f"{PREFIX}b.jsonl", str(tmp_path)))


def test_two_outcomes_of_one_key_are_a_damaged_release():
    with pytest.raises(OutcomeLineDamaged, match="2 outcomes"):
        list(_attach(("k", {"row": [{"question": "q"}],
                            "outcome": [Outcome(9, ()), Outcome(9, ())]})))
    assert list(_attach(("k", {"row": [], "outcome": [Outcome(9, ())]}))) == []
    assert list(_attach(("k", {"row": [{"q": 1}], "outcome": []}))) == [({"q": 1}, None)]


@dataclass
class FakePrevious:
    options: dict
    all_files: tuple = field(default=(f"{PREFIX}queries-00000-of-00001.jsonl",
                                      "train/train-00000-of-00001.parquet"))


def test_outcomes_are_carried_only_under_the_same_fingerprint():
    current = fingerprint(CATEGORIES, 2)
    assert current == fingerprint(CATEGORIES, 2)
    assert current["model"] and current["spacy"] and len(current["rules"]) == 64
    assert fingerprint(CATEGORIES, 3) != current
    assert fingerprint(CATEGORIES + "x\tperson\n", 2) != current
    same = FakePrevious({RECORD: current})
    assert carried_files(same, current, recompute_all=False) == [
        f"{PREFIX}queries-00000-of-00001.jsonl"]
    assert carried_files(same, current, recompute_all=True) == []
    assert carried_files(None, current, recompute_all=False) == []
    assert carried_files(FakePrevious({}), current, recompute_all=False) == []  # older release
    other = FakePrevious({RECORD: {**current, "model": "en_core_web_sm 9.9.9"}})
    assert carried_files(other, current, recompute_all=False) == []
