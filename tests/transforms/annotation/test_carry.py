"""``CarryAnnotations``: per item, carry the previous judgment or pass the item on (no pipeline)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any

from apache_beam.pvalue import TaggedOutput

from filters.annotation.votes import parse_jnq_vote, parse_nq_vote
from tests.transforms.annotation.label_studio.fixtures import jnq_row, nq_example
from transforms.annotation.carry import CARRIED_TAG, JUDGMENTS, CarryAnnotations
from transforms.annotation.content import content_digest
from transforms.annotation.export import Unjudged
from transforms.annotation.manifest import ReleaseRef
from transforms.annotation.previous import PreviousAnnotations
from transforms.annotation.previous_items import dropped_for_unknown_reason
from transforms.annotation.release_examples import nq_view
from transforms.core.accounting import DEAD_LETTER, TALLY

RELEASE = "0123456789abcdef"
ANNOTATIONS = [{"annotation_id": 1, "long_answer": {"candidate_index": -1},
                "short_answers": [], "yes_no_answer": "NONE"}]
VOTE_ROW = {"example_id": "-4242", "split": "dev", "annotator_id": "w1"}


def _run(fn: CarryAnnotations, key: str, **grouped: list) -> tuple[Counter, dict, list]:
    """Tallies, tagged outputs by tag, and the items passed on to the aggregation."""
    grouped = {"examples": [], "votes": [], "previous": [], "previous_votes": [], **grouped}
    tallies: Counter = Counter()
    tagged: dict[str, list] = {}
    passed = []
    for output in fn.process((key, grouped)):
        if isinstance(output, TaggedOutput) and output.tag == TALLY:
            name, count = output.value
            tallies[name] += count
        elif isinstance(output, TaggedOutput):
            tagged.setdefault(output.tag, []).append(output.value)
        else:
            passed.append(output)
    return tallies, tagged, passed


def _nq(split: str = "dev", **change: Any) -> tuple[str, dict]:
    example = {**nq_example(), **change}
    view = nq_view(example)
    view["content"] = content_digest("nq", example)
    return split, view


def _nq_previous(split: str = "dev") -> dict:
    return {"split": split, "content": content_digest("nq", nq_example()),
            "annotations": ANNOTATIONS}


def _nq_vote(release: str = RELEASE):
    return parse_nq_vote({"example_id": "-4242", "annotator_id": "w9", "question_good": True,
                          "long_answer_candidate": 0, "short_answers": [],
                          "yes_no_answer": "NONE", "release": release}, "votes.jsonl", 1)


def test_an_item_not_judged_before_is_passed_on_unchanged():
    examples, votes = [_nq()], [_nq_vote()]
    tallies, tagged, passed = _run(CarryAnnotations("nq", RELEASE), "-4242",
                                   examples=examples, votes=votes)
    assert not tallies and not tagged
    assert passed == [("-4242", {"examples": examples, "votes": votes})]


def test_an_unchanged_example_is_carried_with_its_votes_and_new_votes_not_needed():
    tallies, tagged, passed = _run(
        CarryAnnotations("nq", RELEASE), "-4242", examples=[_nq()],
        votes=[_nq_vote(), _nq_vote("fedcba9876543210")],
        previous=[_nq_previous()], previous_votes=[VOTE_ROW])
    assert not passed
    assert tagged[CARRIED_TAG] == [("-4242", ANNOTATIONS)]
    assert tagged[JUDGMENTS] == [("dev", VOTE_ROW)]
    assert [letter["reason"] for letter in tagged[DEAD_LETTER]] == ["other_release"]
    assert tallies == Counter({
        "annotations.carried": 1, "annotations.carried_votes": 1, "examples.annotated": 1,
        "examples.ways.1": 1, "examples.annotated.no_long_answer": 1, "votes.not_needed": 1,
        "votes.refused.other_release": 1})


def test_a_changed_moved_or_removed_example_loses_its_annotations():
    fn = CarryAnnotations("nq", RELEASE)
    for examples, reason in (([_nq(question_text="another question")], "question_changed"),
                             ([_nq("test")], "split_changed"), ([], "removed")):
        tallies, tagged, passed = _run(fn, "-4242", examples=examples,
                                       previous=[_nq_previous()], previous_votes=[VOTE_ROW])
        assert tallies == Counter({f"annotations.invalidated.{reason}": 1})
        assert CARRIED_TAG not in tagged and JUDGMENTS not in tagged
        assert passed == ([("-4242", {"examples": examples, "votes": []})] if examples else [])


def test_recompute_all_carries_nothing():
    tallies, _, passed = _run(CarryAnnotations("nq", RELEASE, recompute_all=True), "-4242",
                              examples=[_nq()], previous=[_nq_previous()])
    assert tallies == Counter({"annotations.invalidated.recompute_all": 1}) and passed


def _jnq_example(row: dict) -> tuple:
    return ("train", row, "jnq", RELEASE)


def test_a_jnq_row_keeps_the_new_columns_and_the_previous_annotation_columns():
    row = jnq_row()
    columns = {"is_yes_no_question": False, "num_annotators": 10, "gold_paragraph_ids": [0],
               "annotations": [{"paragraph_id": 0, "label": "EXIST",
                                "short_answer_type": "none"}]}
    previous = {"split": "train", "content": content_digest("jnq", row), "columns": columns}
    new_row = {**row, "search_rank": 4}
    tallies, tagged, _ = _run(CarryAnnotations("jnq", None), row["id"],
                              examples=[_jnq_example(new_row)], previous=[previous])
    assert tagged[CARRIED_TAG] == [("train", {**new_row, **columns})]
    assert tallies["examples.kept"] == tallies["examples.kept.long_answer_only"] == 1


def test_a_dropped_jnq_question_stays_dropped_unless_its_reason_is_unknown():
    row = jnq_row()
    record = {"question_id": row["id"], "split": "train", "reason": "bad_question",
              "question": row["question"], "content": content_digest("jnq", row)}
    item = {"split": "train", "content": record["content"], "dropped": record}
    vote = parse_jnq_vote({"question_id": row["id"], "annotator_id": "w1",
                           "stage": "good_question", "value": True})
    tallies, tagged, passed = _run(CarryAnnotations("jnq", None), row["id"],
                                   examples=[_jnq_example(row)], votes=[vote],
                                   previous=[item])
    assert tallies["examples.bad_question"] == 1 and tallies["votes.not_needed"] == 1
    assert tagged["rejected"] == [("dropped_questions", record)] and not passed
    odd = {**item, "dropped": {**record, "reason": "no_such_outcome"}}
    tallies, _, passed = _run(CarryAnnotations("jnq", None), row["id"],
                              examples=[_jnq_example(row)], previous=[odd])
    assert tallies == Counter({"annotations.invalidated.content_unknown": 1}) and passed


def test_a_question_moved_to_jboolq_before_jnq_kept_yes_no_is_judged_again(tmp_path):
    """Releases annotated before JNQ kept its yes/no questions (JNQ §3.5, Table 2) dropped
    them as ``moved_to_jboolq``: that judgment is neither carried nor left out of an export."""
    row = jnq_row()
    record = {"question_id": row["id"], "split": "train", "reason": "moved_to_jboolq",
              "question": row["question"], "content": content_digest("jnq", row)}
    item = {"split": "train", "content": record["content"], "dropped": record}
    assert dropped_for_unknown_reason(item)
    assert not dropped_for_unknown_reason({**item, "dropped": {**record,
                                                               "reason": "bad_question"}})
    tallies, _, passed = _run(CarryAnnotations("jnq", None), row["id"],
                              examples=[_jnq_example(row)], previous=[item])
    assert tallies == Counter({"annotations.invalidated.content_unknown": 1}) and passed
    name = "rejected/dropped_questions/dropped_questions-00000-of-00001.jsonl"
    (tmp_path / name).parent.mkdir(parents=True)
    bad = {**record, "question_id": "other", "reason": "bad_question"}
    (tmp_path / name).write_text(f"{json.dumps(record)}\n{json.dumps(bad)}\n", "utf-8")
    digest = hashlib.sha256((tmp_path / name).read_bytes()).hexdigest()  # read checked
    release = ReleaseRef(str(tmp_path), "jnq_annotated", "1", RELEASE, ("train",),
                         {"files": {name: {"sha256": digest}}})
    unjudged = Unjudged("jnq", PreviousAnnotations(release, "jnq", None))
    other = {**row, "id": "other"}
    assert [e["id"] for e in unjudged([row, other], "train")] == [row["id"]]
    assert unjudged.carried == {"other"}
