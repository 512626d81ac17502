import pytest

from filters.annotation.votes import (
    VoteError,
    latest_votes,
    parse_jnq_vote,
    parse_nq_vote,
)

NQ = {"example_id": "-1234", "annotator_id": "w17", "question_good": True,
      "long_answer_candidate": 3, "short_answers": [{"start_token": 120, "end_token": 123}],
      "yes_no_answer": "NONE"}


def test_the_issue_example_parses():
    vote = parse_nq_vote(NQ, "votes.jsonl", 4)
    assert vote.key == ("-1234", "w17")
    assert vote.long_answer_candidate == 3 and vote.short_answers == ((120, 123),)
    assert vote.order == ("", "votes.jsonl", 4)


@pytest.mark.parametrize(("change", "reason"), [
    ({"question_good": "yes"}, "malformed_vote"),
    ({"long_answer_candidate": -2}, "malformed_vote"),
    ({"long_answer_candidate": 1.5}, "malformed_vote"),
    ({"yes_no_answer": "MAYBE"}, "malformed_vote"),
    ({"short_answers": [{"start_token": 5, "end_token": 5}]}, "malformed_vote"),
    ({"annotator_id": ""}, "malformed_vote"),
    ({"example_id": None}, "malformed_vote"),
    ({"question_good": False}, "inconsistent_vote"),
    ({"long_answer_candidat": 3}, "malformed_vote"),
    ({"long_answer_candidate": -1}, "inconsistent_vote"),
    ({"yes_no_answer": "YES"}, "inconsistent_vote"),
])
def test_malformed_nq_votes_are_named(change, reason):
    record = {**NQ, **change}
    if "long_answer_candidat" in change:
        del record["long_answer_candidate"]
    with pytest.raises(VoteError) as error:
        parse_nq_vote(record)
    assert error.value.reason == reason


def test_a_bad_question_vote_is_a_null_answer():
    vote = parse_nq_vote({"example_id": 1, "annotator_id": "w", "question_good": False})
    assert (vote.question_good, vote.long_answer_candidate, vote.short_answers) == (False, -1,
                                                                                   ())


@pytest.mark.parametrize("record", [
    {"question_id": "q", "annotator_id": "w3", "stage": "good_question", "value": True},
    {"question_id": "q", "annotator_id": "w3", "stage": "long_answer", "paragraph": 5,
     "value": False},
    {"question_id": "q", "annotator_id": "w3", "stage": "yes_no_answer", "paragraph": 5,
     "value": "YES"},
    {"question_id": "q", "annotator_id": "w3", "stage": "span", "paragraph": 5,
     "value": {"start": 10, "end": 14}},
    {"question_id": "q", "annotator_id": "w3", "stage": "span", "paragraph": 5, "value": None},
])
def test_jnq_votes_of_every_stage_parse(record):
    vote = parse_jnq_vote(record)
    assert vote.stage == record["stage"]
    if record["stage"] == "span" and record["value"]:
        assert vote.value == (10, 14)


@pytest.mark.parametrize(("record", "reason"), [
    ({"stage": "nonsense", "value": True}, "unknown_stage"),
    ({"stage": "good_question", "value": "yes"}, "malformed_vote"),
    ({"stage": "good_question", "value": True, "paragraph": 3}, "malformed_vote"),
    ({"stage": "long_answer", "value": True}, "malformed_vote"),
    ({"stage": "span", "paragraph": 1, "value": {"start": 4, "end": 2}}, "malformed_vote"),
    ({"stage": "yes_no_answer", "paragraph": 1, "value": "yes"}, "malformed_vote"),
    ({"stage": "span", "paragraph": 1}, "malformed_vote"),
])
def test_malformed_jnq_votes_are_named(record, reason):
    with pytest.raises(VoteError) as error:
        parse_jnq_vote({"question_id": "q", "annotator_id": "w", **record})
    assert error.value.reason == reason


def test_the_latest_judgment_of_a_worker_counts_once():
    early = parse_nq_vote({**NQ, "submitted_at": "2026-01-01T00:00:00Z"}, "b.jsonl", 9)
    late = parse_nq_vote({**NQ, "long_answer_candidate": 4, "short_answers": [],
                          "submitted_at": "2026-01-02T00:00:00Z"}, "a.jsonl", 1)
    other = parse_nq_vote({**NQ, "annotator_id": "w18"}, "a.jsonl", 2)
    kept = latest_votes([late, early, other])
    assert [(v.annotator_id, v.long_answer_candidate) for v in kept] == [("w17", 4),
                                                                        ("w18", 3)]


def test_without_times_the_later_line_wins_and_reimporting_changes_nothing():
    first = parse_nq_vote(NQ, "votes.jsonl", 1)
    second = parse_nq_vote({**NQ, "long_answer_candidate": 0, "short_answers": []},
                           "votes.jsonl", 2)
    once = latest_votes([first, second])
    twice = latest_votes([first, second, first, second])
    assert once == twice and once[0].long_answer_candidate == 0
