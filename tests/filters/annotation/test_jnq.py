import pytest

from filters.annotation.jnq import (
    JnqResult,
    JnqThresholds,
    JnqVoteError,
    ParagraphJudgment,
    aggregate_question,
    at_least,
    check_vote,
    good_question,
    paragraph_label,
    yes_no_answer,
    yes_no_question,
)
from filters.annotation.votes import JnqVote, VoteError

T = JnqThresholds()
Q = "q1"
CANDIDATES = [0, 3, 5]


def test_fraction_rule():
    assert at_least(6, 10, 6, 10) and not at_least(5, 10, 6, 10)
    assert at_least(3, 5, 6, 10) and not at_least(2, 5, 6, 10)
    assert not at_least(0, 0, 0, 10)


def test_good_question_6_vs_5_of_10():
    assert good_question(6, 10, T)
    assert not good_question(5, 10, T)


def test_paragraph_label_edges():
    assert paragraph_label(10, 10, T) == "EXIST"
    assert paragraph_label(7, 10, T) == "EXIST"
    assert paragraph_label(6, 10, T) == "AMBIGUOUS"
    assert paragraph_label(4, 10, T) == "AMBIGUOUS"
    assert paragraph_label(3, 10, T) == "NONE"
    assert paragraph_label(0, 10, T) == "NONE"


def test_yes_no_question_edges():
    assert yes_no_question(7, 10, T) == "yes_no"
    assert yes_no_question(6, 10, T) == "ambiguous"
    assert yes_no_question(4, 10, T) == "ambiguous"
    assert yes_no_question(3, 10, T) == "not_yes_no"


def test_yes_no_answer_8_vs_7():
    assert yes_no_answer(8, 2, 10, T) == "YES"
    assert yes_no_answer(7, 3, 10, T) == "NONE"
    assert yes_no_answer(2, 8, 10, T) == "NO"
    assert yes_no_answer(3, 7, 10, T) == "NONE"
    assert yes_no_answer(0, 0, 10, T) == "NONE"
    low = JnqThresholds(yes_no_answer=2)
    assert yes_no_answer(3, 3, 6, low) == "NONE"


def test_rules_apply_as_a_fraction_of_five_workers():
    assert good_question(3, 5, T) and not good_question(2, 5, T)
    assert paragraph_label(4, 5, T) == "EXIST"  # 8/10
    assert paragraph_label(3, 5, T) == "AMBIGUOUS"  # 6/10
    assert paragraph_label(2, 5, T) == "AMBIGUOUS"  # 4/10
    assert paragraph_label(1, 5, T) == "NONE"
    assert yes_no_question(4, 5, T) == "yes_no" and yes_no_question(3, 5, T) == "ambiguous"
    assert yes_no_answer(4, 1, 5, T) == "YES" and yes_no_answer(3, 2, 5, T) == "NONE"


def votes(stage, trues, n=10, paragraph=None, false=False, offset=0):
    """``n`` votes of workers w<offset>.., the first ``trues`` True (or given values)."""
    return [JnqVote(Q, f"w{offset + i}", stage, True if i < trues else false, paragraph)
            for i in range(n)]


def valued(stage, values, paragraph=None):
    return [JnqVote(Q, f"w{i}", stage, value, paragraph) for i, value in enumerate(values)]


def long_answers(yes_by_paragraph, n=10):
    return [v for pid, yes in yes_by_paragraph.items()
            for v in votes("long_answer", yes, n, pid)]


LONG = {0: 7, 3: 6, 5: 3}  # EXIST, AMBIGUOUS, NONE


def aggregate(all_votes, order="jnq", ways=10, candidates=CANDIDATES, t=T):
    return aggregate_question(Q, all_votes, candidates, order, ways, t)


def test_jnq_kept_with_span_on_exist_paragraphs_only():
    spans = valued("span", [(2, 6)] * 4 + [(0, 9)] * 2 + [None] * 4, paragraph=0)
    other = valued("span", [(1, 2)] * 10, paragraph=3)  # AMBIGUOUS: not needed, ignored
    result = aggregate(votes("good_question", 6) + long_answers(LONG)
                       + votes("yes_no_question", 3) + spans + other)
    assert result == JnqResult(
        question_id=Q, outcome="kept", pending_stage=None, is_yes_no_question=False,
        paragraphs=(ParagraphJudgment(0, "EXIST", 7, 10, "span", (2, 6), "NONE"),
                    ParagraphJudgment(3, "AMBIGUOUS", 6, 10, "none", None, "NONE"),
                    ParagraphJudgment(5, "NONE", 3, 10, "none", None, "NONE")),
        annotators=10,
        stage_votes={"good_question": 10, "long_answer": 30, "yes_no_question": 10,
                     "span": 10})


def test_jnq_exist_paragraph_without_an_adopted_span_has_no_short_answer():
    spans = valued("span", [(0, 1), (2, 3), (4, 5)] + [None] * 7, paragraph=0)
    result = aggregate(votes("good_question", 10) + long_answers(LONG)
                       + votes("yes_no_question", 0) + spans)
    assert result.outcome == "kept"
    assert result.paragraphs[0] == ParagraphJudgment(0, "EXIST", 7, 10, "none", None, "NONE")


def test_bad_question_needs_no_later_stage():
    result = aggregate(votes("good_question", 5) + valued("span", [(0, 1)] * 10, paragraph=0))
    assert (result.outcome, result.paragraphs, result.is_yes_no_question) == (
        "bad_question", (), None)
    assert result.stage_votes == {"good_question": 10}


def test_jnq_keeps_a_yes_no_question_with_its_yes_no_answers():
    """JNQ §3.5 / Table 2: a yes/no question stays in JNQ, YES/NO on its EXIST paragraphs
    with >= 8 of 10 (7 of 10 is a long answer only); no span is asked of it."""
    answers = valued("yes_no_answer", ["YES"] * 8 + ["NO"] * 2, paragraph=0)
    result = aggregate(votes("good_question", 6) + long_answers({0: 10, 3: 7, 5: 0})
                       + votes("yes_no_question", 7) + answers
                       + valued("yes_no_answer", ["NO"] * 7 + ["YES"] * 3, paragraph=3)
                       + valued("span", [(0, 2)] * 10, paragraph=0))
    assert result.outcome == "kept" and result.is_yes_no_question is True
    assert result.stage_votes["yes_no_answer"] == 20 and "span" not in result.stage_votes
    assert [(p.label, p.short_answer_type, p.yes_no_answer, p.span)
            for p in result.paragraphs] == [("EXIST", "yes_no", "YES", None),
                                           ("EXIST", "none", "NONE", None),
                                           ("NONE", "none", "NONE", None)]


def test_jnq_ambiguous_yes_no_keeps_its_long_answers_but_no_short_answers():
    result = aggregate(votes("good_question", 6) + long_answers(LONG)
                       + votes("yes_no_question", 4))
    assert result.outcome == "ambiguous_yes_no" and result.is_yes_no_question is None
    assert [p.label for p in result.paragraphs] == ["EXIST", "AMBIGUOUS", "NONE"]


def test_jnq_yes_no_question_is_needed_even_without_an_exist_paragraph():
    result = aggregate(votes("good_question", 6) + long_answers({0: 0, 3: 0, 5: 0}))
    assert (result.outcome, result.pending_stage) == ("pending", "yes_no_question")


def test_jboolq_not_yes_no_question_needs_no_long_answer_votes():
    result = aggregate(votes("good_question", 6) + votes("yes_no_question", 3), "jboolq")
    assert (result.outcome, result.is_yes_no_question, result.paragraphs) == (
        "not_yes_no_question", False, ())
    # the same votes in JNQ order wait for the long answers
    assert aggregate(votes("good_question", 6) + votes("yes_no_question", 3)).pending_stage == (
        "long_answer")


def test_jboolq_ambiguous_yes_no_stops_before_the_long_answer():
    result = aggregate(votes("good_question", 6) + votes("yes_no_question", 6), "jboolq")
    assert (result.outcome, result.paragraphs) == ("ambiguous_yes_no", ())


def test_jboolq_kept_with_yes_no_answers():
    answers = valued("yes_no_answer", ["NO"] * 8 + ["YES"] * 2, paragraph=0)
    result = aggregate(votes("good_question", 6) + votes("yes_no_question", 7)
                       + long_answers(LONG) + answers, "jboolq")
    assert (result.outcome, result.is_yes_no_question) == ("kept", True)
    assert result.paragraphs[0] == ParagraphJudgment(0, "EXIST", 7, 10, "yes_no", None, "NO")


def test_pending_when_a_stage_is_missing_or_short_of_workers():
    assert aggregate([]).pending_stage == "good_question"
    result = aggregate(votes("good_question", 9, n=9))
    assert (result.outcome, result.pending_stage, result.paragraphs) == (
        "pending", "good_question", ())
    assert result.annotators == 9
    one_short = long_answers({0: 7, 3: 6}) + votes("long_answer", 3, n=9, paragraph=5)
    result = aggregate(votes("good_question", 6) + one_short + votes("yes_no_question", 0))
    assert (result.outcome, result.pending_stage) == ("pending", "long_answer")
    spans = valued("span", [(0, 2)] * 9, paragraph=0)
    result = aggregate(votes("good_question", 6) + long_answers(LONG)
                       + votes("yes_no_question", 0) + spans)
    assert (result.outcome, result.pending_stage) == ("pending", "span")


def test_more_judgments_than_ways_use_the_fraction_rule():
    # 5-way: 3 of 5 good is 6/10; an EXIST paragraph at 4 of 5
    result = aggregate(votes("good_question", 3, n=5) + long_answers({0: 4, 3: 2, 5: 1}, n=5)
                       + votes("yes_no_question", 1, n=5)
                       + valued("span", [(0, 3), (0, 3), None, None, None], paragraph=0),
                       ways=5)
    assert result.outcome == "kept"
    assert [(p.label, p.span) for p in result.paragraphs] == [
        ("EXIST", (0, 3)), ("AMBIGUOUS", None), ("NONE", None)]
    assert aggregate(votes("good_question", 2, n=5), ways=5).outcome == "bad_question"


def test_a_worker_judging_twice_counts_once_the_latest():
    first = [JnqVote(Q, f"w{i}", "good_question", False, order=("2024-01-01", "a", i))
             for i in range(10)]
    again = [JnqVote(Q, f"w{i}", "good_question", True, order=("2024-02-01", "a", i))
             for i in range(6)]
    result = aggregate(again + first)
    assert result.annotators == 10 and result.stage_votes["good_question"] == 10
    assert result.outcome == "pending" and result.pending_stage == "long_answer"
    # the duplicates do not make up for missing workers
    assert aggregate(votes("good_question", 6, n=9) * 2).pending_stage == "good_question"


def test_votes_on_non_candidate_paragraphs_are_ignored():
    extra = votes("long_answer", 10, paragraph=99)
    result = aggregate(votes("good_question", 6) + long_answers(LONG) + extra
                       + votes("yes_no_question", 7)
                       + valued("yes_no_answer", ["YES"] * 10, paragraph=0))
    assert [p.paragraph_id for p in result.paragraphs] == CANDIDATES


def test_arguments_are_checked():
    with pytest.raises(ValueError):
        aggregate([], order="nq")
    with pytest.raises(ValueError):
        aggregate([], ways=0)
    with pytest.raises(ValueError):
        aggregate_question("other", votes("good_question", 6), CANDIDATES, "jnq", 10)


def test_thresholds_are_options():
    strict = JnqThresholds(good_question=9)
    assert aggregate(votes("good_question", 8), t=strict).outcome == "bad_question"


def test_check_vote():
    lengths = {0: 20, 3: 5, 5: 9, 7: 30}
    check_vote(JnqVote(Q, "w", "good_question", True), CANDIDATES, lengths)
    check_vote(JnqVote(Q, "w", "span", (15, 20), 0), CANDIDATES, lengths)
    check_vote(JnqVote(Q, "w", "span", None, 3), CANDIDATES, lengths)
    with pytest.raises(JnqVoteError) as error:
        check_vote(JnqVote(Q, "w", "long_answer", True, 7), CANDIDATES, lengths)
    assert error.value.reason == "unknown_paragraph"
    assert isinstance(error.value, VoteError) and isinstance(error.value, ValueError)
    with pytest.raises(JnqVoteError) as error:
        check_vote(JnqVote(Q, "w", "span", (3, 6), 3), CANDIDATES, lengths)
    assert error.value.reason == "span_outside_paragraph"
    with pytest.raises(JnqVoteError) as error:
        check_vote(JnqVote(Q, "w", "span", (0, 2), 5), CANDIDATES, {0: 20})
    assert error.value.reason == "unknown_paragraph"
