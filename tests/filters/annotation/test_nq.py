import pytest

from filters.annotation.nq import (
    NqVoteError,
    annotation_id,
    check_nq_vote,
    long_answer_type,
    nq_annotation,
    votes_from_annotations,
)
from filters.annotation.votes import parse_nq_vote


def _example():
    words = ["<P>", "Paris", "is", "the", "capital", "</P>", "<Table>", "<Tr>", "<Td>", "x",
             "</Td>", "</Tr>", "</Table>"]
    tokens, offset = [], 0
    for word in words:
        tokens.append({"token": word, "start_byte": offset, "end_byte": offset + len(word),
                       "html_token": word.startswith("<")})
        offset += len(word) + 1
    candidates = [
        {"start_token": 0, "end_token": 6, "start_byte": 0, "end_byte": 28, "top_level": True},
        {"start_token": 6, "end_token": 13, "start_byte": 29, "end_byte": 70, "top_level": True},
        {"start_token": 7, "end_token": 12, "start_byte": 37, "end_byte": 62,
         "top_level": False},
    ]
    return {"example_id": -42, "question_text": "what is the capital of france",
            "document_tokens": tokens, "long_answer_candidates": candidates,
            "annotations": []}


def _vote(**change):
    return parse_nq_vote({"example_id": "-42", "annotator_id": "w1", "question_good": True,
                          "long_answer_candidate": 0,
                          "short_answers": [{"start_token": 1, "end_token": 2}],
                          "yes_no_answer": "NONE", **change})


def test_a_vote_becomes_nq_annotation_with_byte_offsets_from_the_tokens():
    example = _example()
    annotation = nq_annotation(_vote(), example)
    assert annotation["long_answer"] == {"candidate_index": 0, "end_byte": 28, "end_token": 6,
                                         "start_byte": 0, "start_token": 0}
    assert annotation["short_answers"] == [{"end_byte": 9, "end_token": 2, "start_byte": 4,
                                            "start_token": 1}]
    assert annotation["yes_no_answer"] == "NONE"
    assert annotation["annotation_id"] == annotation_id("-42", "w1")
    assert 0 <= annotation["annotation_id"] < 2**64


def test_no_answer_is_minus_one_everywhere():
    annotation = nq_annotation(_vote(long_answer_candidate=-1, short_answers=[]), _example())
    assert set(annotation["long_answer"].values()) == {-1}
    assert annotation["short_answers"] == []


def test_annotation_ids_are_stable_and_differ_per_annotator():
    assert annotation_id("-42", "w1") == annotation_id("-42", "w1")
    assert annotation_id("-42", "w1") != annotation_id("-42", "w2")


@pytest.mark.parametrize(("change", "reason"), [
    ({"long_answer_candidate": 3, "short_answers": []}, "candidate_out_of_range"),
    ({"short_answers": [{"start_token": 5, "end_token": 8}]},
     "short_answer_outside_long_answer"),
])
def test_votes_that_do_not_fit_the_example_are_refused(change, reason):
    with pytest.raises(NqVoteError) as error:
        check_nq_vote(_vote(**change), _example())
    assert error.value.reason == reason


def test_long_answer_types_follow_the_first_token():
    example = _example()
    assert [long_answer_type(example, i) for i in (-1, 0, 1, 2)] == [
        "none", "paragraph", "table", "table_row"]


def test_votes_from_annotations_is_the_inverse():
    example = _example()
    votes = [_vote(), _vote(annotator_id="w2", long_answer_candidate=2, short_answers=[]),
             _vote(annotator_id="w3", long_answer_candidate=-1, short_answers=[])]
    example["annotations"] = [nq_annotation(v, example) for v in votes]
    back = [parse_nq_vote(v) for v in votes_from_annotations(example)]
    again = [nq_annotation(v, example) for v in back]
    strip = [{k: v for k, v in a.items() if k != "annotation_id"}
             for a in example["annotations"]]
    assert [{k: v for k, v in a.items() if k != "annotation_id"} for a in again] == strip
