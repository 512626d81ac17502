import pytest

from filters.annotation.votes import (
    INVALID_SUBMITTED_AT,
    NO_TIME,
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
    assert vote.order == (NO_TIME, "votes.jsonl", 4)


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


# Vote times are instants (issue 23 §6): ordered by the moment they name, not their spelling.

def _timed(when, candidate: int, source: str = "a.jsonl", line: int = 1, **more):
    return parse_nq_vote({**NQ, "long_answer_candidate": candidate, "short_answers": [],
                          "submitted_at": when, **more}, source, line)


@pytest.mark.parametrize(("earlier", "later"), [
    ("2025-01-02T10:00:00+09:00", "2025-01-02T02:00:00Z"),       # 01:00 UTC vs 02:00 UTC
    ("2025-01-02T02:00:00.5Z", "2025-01-02T02:00:00.25-00:01"),  # fractions and offsets
    (1735783200, "2025-01-02T02:00:01Z"),                        # epoch seconds: 02:00 UTC
    ("2025-01-02T02:00:00Z", 1735783200.5),
    ("2025-01-02T01:00:00Z", "2025-01-02T02:00:00+00:00"),
])
def test_the_latest_instant_wins_whatever_its_spelling(earlier, later):
    # the earlier judgment comes later in file order too, so file order cannot decide
    old = _timed(earlier, 1, "z.jsonl", 9)
    new = _timed(later, 2, "a.jsonl", 1)
    assert old.order < new.order
    assert [v.long_answer_candidate for v in latest_votes([old, new])] == [2]
    assert [v.long_answer_candidate for v in latest_votes([new, old])] == [2]


def test_same_instant_in_two_spellings_falls_back_to_file_and_line():
    first = _timed("2025-01-02T11:00:00+09:00", 1, "a.jsonl", 1)
    second = _timed("2025-01-02T02:00:00Z", 2, "a.jsonl", 2)
    assert first.order[0] == second.order[0]
    assert [v.long_answer_candidate for v in latest_votes([second, first])] == [2]


def test_an_untimed_vote_is_older_than_any_timed_one():
    untimed = parse_nq_vote(NQ, "z.jsonl", 99)
    timed = _timed("1970-01-01T00:00:00Z", 2)
    assert untimed.order < timed.order
    assert latest_votes([timed, untimed]) == [timed]


@pytest.mark.parametrize("when", [
    "garbage", "", "2025-01-02T03:04:05", "2025-01-02", "2025-13-02T00:00:00Z",
    "1735783200", "２０２５-01-02T03:04:05Z", True, -1, float("nan"), float("inf"),
    1735783200000, ["2025-01-02T00:00:00Z"], {"at": 1}, "2025-01-02T03:04:05Z" + " " * 300,
])
def test_a_time_that_is_not_an_instant_is_refused_with_a_reason(when):
    for parse, record in ((parse_nq_vote, NQ), (parse_jnq_vote, {
            "question_id": "q", "annotator_id": "w", "stage": "good_question", "value": True})):
        with pytest.raises(VoteError) as error:
            parse({**record, "submitted_at": when})
        assert error.value.reason == INVALID_SUBMITTED_AT


def test_a_null_time_is_no_time():
    assert parse_nq_vote({**NQ, "submitted_at": None}).order == parse_nq_vote(NQ).order


@pytest.mark.parametrize("field", ["annotator_id", "example_id", "release"])
def test_text_that_is_not_unicode_scalars_is_refused(field):
    with pytest.raises(VoteError) as error:
        parse_nq_vote({**NQ, field: "w\ud800"})
    assert error.value.reason == "malformed_vote"
