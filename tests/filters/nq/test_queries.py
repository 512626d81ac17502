from datetime import UTC, date, datetime

import pytest

from filters.nq.queries import (
    cheap_rejection,
    max_users_in_window,
    normalize_query,
    parse_timestamp,
)


def test_normalize_nfkc_case_whitespace_and_trailing_punctuation():
    assert normalize_query("  Who\u00a0Played  ＴＯＭＭＹ？ ") == "who played tommy"
    assert normalize_query("When was it built?!") == "when was it built"
    assert normalize_query("") == ""
    assert normalize_query("a ? in the middle?") == "a ? in the middle"


@pytest.mark.parametrize(("query", "reason"), [
    ("", "empty_query"),
    ("facebook login", "too_few_words"),
    ("www.example.com login page for my account help", "url_query"),
    ("x" * 401, "too_long"),
    ("who played the villain in the first film", None),
])
def test_cheap_rejection(query, reason):
    assert cheap_rejection(query) == reason


def test_parse_timestamp_forms():
    expected = datetime(2018, 3, 5, 14, 2, 11, tzinfo=UTC)
    assert parse_timestamp("2018-03-05T14:02:11Z") == expected
    assert parse_timestamp("2018-03-05T15:02:11+01:00") == expected
    assert parse_timestamp(str(int(expected.timestamp()))) == expected
    assert parse_timestamp("2018-03-05 14:02:11") == expected
    for bad in ("yesterday", "", None):
        with pytest.raises(ValueError):
            parse_timestamp(bad)


def _days(*numbers):
    return [date(2018, 3, n) for n in numbers]


def test_users_within_window():
    users = {"a": _days(1), "b": _days(3), "c": _days(20), "d": _days(21)}
    assert max_users_in_window(users, 7) == 2
    assert max_users_in_window(users, 30) == 4
    assert max_users_in_window(users, 1) == 1


def test_window_boundary_is_exclusive_of_day_n():
    users = {"a": _days(1), "b": _days(8)}
    assert max_users_in_window(users, 7) == 1   # days 1..7 only
    assert max_users_in_window(users, 8) == 2


def test_repeat_events_of_one_user_count_once():
    assert max_users_in_window({"a": _days(1, 2, 3, 4)}, 7) == 1
    assert max_users_in_window({}, 7) == 0


def test_text_rejection_names_text_no_user_typed():
    from filters.nq.queries import text_rejection

    assert text_rejection("who won the cup\tin 2018\n") is None
    assert text_rejection("c\ufffdte d'ivoire capital city") == "invalid_utf8"
    assert text_rejection("who won \ud800 the cup") == "invalid_unicode"
    assert text_rejection("who won\x00 the cup") == "control_characters"
    assert text_rejection("who won\x1b[31m the cup") == "control_characters"
    assert text_rejection("who won\x85 the cup") == "control_characters"


def test_parse_count_non_negative_int64():
    from filters.nq.queries import INT64_MAX, parse_count

    assert [parse_count(v) for v in (0, 12, "7", " 3 ", 4.0, INT64_MAX)] == [
        0, 12, 7, 3, 4, INT64_MAX]
    for bad in (10**20, INT64_MAX + 1, -1, "-3", 2.5, True, "many", "1e3", None, float("inf")):
        with pytest.raises(ValueError):
            parse_count(bad)
