"""``previous_read``: what an NQ refresh reads of the previous release, in one step, each kind
to its own output; and which files ``refresh.previous_files`` lists for it."""

from __future__ import annotations

import json
from types import SimpleNamespace

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to

from tests.conftest import TEST_RUNNER
from tests.transforms.nq.test_carried import ITEM, example, write_release
from tests.transforms.nq.test_refresh import previous
from transforms.nq.carried import example_key
from transforms.nq.counters import LASTING_DROPS
from transforms.nq.previous_read import DROPS, EXAMPLES, RECORDED, PreviousFiles, ReadPrevious
from transforms.nq.query_outcomes import PREFIX, Outcome, outcome_key, outcome_line
from transforms.nq.refresh import previous_files
from transforms.nq.refresh_drops import REJECTED_DIR
from transforms.nq.spec import NqOptions

OUTCOME_FILE = f"{PREFIX}queries-00000-of-00001.jsonl"
DROP_FILE = f"{REJECTED_DIR}unlinked_questions-00000-of-00001.jsonl"
LASTING = sorted(LASTING_DROPS)[0]


def write_previous(tmp_path) -> list[dict]:
    """A release of 3 dev examples, one recorded outcome and two drops (one lasting)."""
    examples = sorted((example(n) for n in (1, 2, 3)), key=lambda e: e["question_text"])
    write_release(tmp_path, examples)
    (tmp_path / PREFIX).mkdir(parents=True)
    (tmp_path / OUTCOME_FILE).write_text(json.dumps(outcome_line("q", Outcome(9, (1,)))) + "\n")
    (tmp_path / REJECTED_DIR).mkdir(parents=True)
    drops = [{"question": "kept", "reason": LASTING}, {"question": "retried", "reason": "x"}]
    (tmp_path / DROP_FILE).write_text("".join(json.dumps(d) + "\n" for d in drops))
    return examples


def test_each_kind_of_file_is_read_to_its_own_output(tmp_path):
    examples = write_previous(tmp_path)
    files = PreviousFiles([OUTCOME_FILE], [ITEM], [DROP_FILE])
    with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as pipeline:
        read = pipeline | ReadPrevious(str(tmp_path), files, LASTING_DROPS)
        assert_that(read[RECORDED], equal_to([(outcome_key("q"), Outcome(9, (1,)))]),
                    label="recorded")
        assert_that(read[DROPS], equal_to([("kept", {"question": "kept", "reason": LASTING})]),
                    label="drops")
        keys = read[EXAMPLES] | beam.Map(lambda split_row: (split_row[0],
                                                             example_key(split_row[1])))
        assert_that(keys, equal_to([("dev", e["question_text"]) for e in examples]),
                    label="examples")


def plan(tmp_path, **options) -> SimpleNamespace:
    release = previous(tmp_path, (ITEM[1], ITEM[2], OUTCOME_FILE, DROP_FILE))
    return SimpleNamespace(options=NqOptions(previous="auto", **options), previous=release)


def test_a_refresh_lists_the_files_it_takes_and_no_others(tmp_path):
    linked = previous_files(plan(tmp_path), False, [OUTCOME_FILE])
    assert linked.items() == [(RECORDED, (OUTCOME_FILE,)), (EXAMPLES, ITEM),
                              (DROPS, (DROP_FILE,))]
    relinked = previous_files(plan(tmp_path, relink=True), False, [OUTCOME_FILE])
    assert relinked.items() == [(RECORDED, (OUTCOME_FILE,))]  # every question linked again
    questions = previous_files(plan(tmp_path), True, [OUTCOME_FILE])  # --stop-after questions
    assert questions.items() == [(RECORDED, (OUTCOME_FILE,))]
    assert previous_files(plan(tmp_path), True, []) is None
    no_previous = SimpleNamespace(options=NqOptions(), previous=None)
    assert previous_files(no_previous, False, [OUTCOME_FILE]) is None
