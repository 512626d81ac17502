"""``task_map``: a Label Studio task's map checked against the release row its vote names,
on the import's per-item steps (no pipeline)."""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import replace

from apache_beam.pvalue import TaggedOutput

from filters.annotation.jnq import JnqThresholds
from filters.annotation.votes import parse_jnq_vote, parse_nq_vote
from tests.transforms.annotation.label_studio.fixtures import (
    jnq_row,
    legacy_nq_task,
    nq_example,
)
from transforms.annotation.carry import CarryAnnotations
from transforms.annotation.content import content_digest
from transforms.annotation.counters import TASK_PAGE_MISMATCH
from transforms.annotation.jnq_import import AnnotateJnqRows
from transforms.annotation.label_studio.task_map import (
    LEGACY,
    PAGE,
    TASK_MAPS,
    nq_task_digests,
    task_digest,
    vote_mismatch,
)
from transforms.annotation.label_studio.tasks import jnq_tasks, nq_task
from transforms.annotation.nq_import import AnnotateNqExamples
from transforms.annotation.release_examples import nq_view
from transforms.core.accounting import DEAD_LETTER, TALLY

RELEASE = "0123456789abcdef"
OTHER_PAGE = ("<P> Monsoons blow from the sea in summer . </P> "
              "<Ul> <Li> Farmers wait for them . </Li> <Li> Rain follows them . </Li> </Ul>")


def _outputs(outputs) -> tuple[Counter, list[str], list]:
    """Tallies, dead-letter reasons and main outputs of a DoFn's ``process``."""
    tallies: Counter = Counter()
    reasons, main = [], []
    for output in outputs:
        if isinstance(output, TaggedOutput) and output.tag == TALLY:
            tallies[output.value[0]] += output.value[1]
        elif isinstance(output, TaggedOutput) and output.tag == DEAD_LETTER:
            reasons.append(output.value["reason"])
        elif not isinstance(output, TaggedOutput):
            main.append(output)
    return tallies, reasons, main


def _view(example: dict) -> dict:
    view = nq_view(example)
    view[TASK_MAPS] = nq_task_digests(example)
    view["content"] = content_digest("nq", example)
    return view


def _nq_vote(task: dict, annotator: str = "w1"):
    vote = parse_nq_vote({"example_id": "-4242", "annotator_id": annotator,
                          "question_good": True, "long_answer_candidate": 0,
                          "short_answers": [], "yes_no_answer": "NONE", "release": RELEASE},
                         "export.json", 1)
    return replace(vote, task=task_digest("nq", task["data"]))


def test_the_release_side_digests_are_those_of_the_tasks_export_writes():
    example = nq_example()
    digests = nq_task_digests(example)
    assert digests[PAGE] == task_digest("nq", nq_task(example, "dev", RELEASE)["data"])
    assert digests[LEGACY] == task_digest("nq", legacy_nq_task(example, "dev", RELEASE)["data"])
    assert digests[PAGE].startswith("page:") and digests[LEGACY].startswith("legacy:")


def test_an_nq_vote_from_another_example_s_page_or_candidates_is_refused():
    example = nq_example()
    own = nq_task(example, "dev", RELEASE)
    other = nq_task(nq_example(OTHER_PAGE, example_id=-7), "dev", RELEASE)
    forged = copy.deepcopy(own)
    for key in ("page", "page_tokens", "page_starts", "page_lengths", "boxes"):
        forged["data"][key] = other["data"][key]
    legacy = legacy_nq_task(example, "dev", RELEASE)
    forged_legacy = copy.deepcopy(legacy)
    forged_legacy["data"]["candidates"][0]["text"] = "Monsoons blow from the sea"
    view = _view(example)
    for task in (own, legacy):
        assert vote_mismatch("nq", _nq_vote(task), view) is None
    for task in (forged, forged_legacy):
        assert "page and candidate map" in vote_mismatch("nq", _nq_vote(task), view)
    # a votes line has no task: nothing to check
    assert vote_mismatch("nq", replace(_nq_vote(own), task=None), view) is None

    votes = [_nq_vote(own, "w1"), _nq_vote(forged, "w2"), _nq_vote(forged_legacy, "w3")]
    tallies, reasons, main = _outputs(AnnotateNqExamples({"dev": 1}, RELEASE).process(
        ("-4242", {"examples": [("dev", view)], "votes": votes})))
    assert reasons == [TASK_PAGE_MISMATCH] * 2
    assert tallies[f"votes.refused.{TASK_PAGE_MISMATCH}"] == 2 and tallies["votes.used"] == 1
    [(_, annotations)] = main
    assert len(annotations) == 1


def test_a_new_vote_for_a_carried_example_is_checked_too():
    example = nq_example()
    other = nq_task(nq_example(OTHER_PAGE, example_id=-7), "dev", RELEASE)
    forged = {"data": {**nq_task(example, "dev", RELEASE)["data"],
                       **{k: other["data"][k] for k in ("page", "boxes")}}}
    previous = {"split": "dev", "content": content_digest("nq", example), "annotations": [
        {"annotation_id": 1, "long_answer": {"candidate_index": -1}, "short_answers": [],
         "yes_no_answer": "NONE"}]}
    tallies, reasons, _ = _outputs(CarryAnnotations("nq", RELEASE).process(("-4242", {
        "examples": [("dev", _view(example))], "previous": [previous],
        "previous_votes": [], "votes": [_nq_vote(forged, "w2"),
                                        _nq_vote(nq_task(example, "dev", RELEASE), "w3")]})))
    assert reasons == [TASK_PAGE_MISMATCH]
    assert tallies["votes.not_needed"] == 1 and tallies["annotations.carried"] == 1


def test_a_jnq_vote_whose_task_shows_another_paragraph_text_is_refused():
    row = jnq_row()
    [task] = jnq_tasks(row, "long_answer", "train", RELEASE, [3])
    forged = copy.deepcopy(task)
    forged["data"]["paragraph_text"] = row["paragraphs"][1]["text"]

    def vote(data: dict, annotator: str):
        parsed = parse_jnq_vote({"question_id": row["id"], "annotator_id": annotator,
                                 "stage": "long_answer", "paragraph": 3, "value": True,
                                 "release": RELEASE}, "export.json", 1)
        return replace(parsed, task=task_digest("jnq", data))

    assert vote_mismatch("jnq", vote(task["data"], "w1"), row) is None
    assert "question and paragraph" in vote_mismatch("jnq", vote(forged["data"], "w2"), row)
    tallies, reasons, _ = _outputs(AnnotateJnqRows("jnq", {"train": 1}, JnqThresholds()).process(
        (row["id"], {"examples": [("train", row, "jnq", RELEASE)],
                     "votes": [vote(task["data"], "w1"), vote(forged["data"], "w2")]})))
    assert reasons == [TASK_PAGE_MISMATCH]
    assert tallies[f"votes.refused.{TASK_PAGE_MISMATCH}"] == 1
