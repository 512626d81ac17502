"""NLQuAD release reader (transforms.reqa.nlquad_source): pure functions and TestPipeline."""

from __future__ import annotations

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from tests.conftest import TEST_RUNNER
from tests.transforms.reqa.samples import NLQUAD_CONTEXT, nlquad_rows
from transforms.core.accounting import SIDE_OUTPUTS, TALLY
from transforms.reqa.nlquad_source import (
    BuildNlquadTasks,
    ParseNlquadFiles,
    nlquad_key,
    nlquad_task,
    split_paragraphs,
)


def _pipeline():
    return test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER]))


def _tallies(pcoll, label: str):
    return pcoll | f"Sum{label}" >> beam.CombinePerKey(sum)


def test_split_paragraphs_skips_blank_lines_and_whitespace():
    spans = split_paragraphs(" a b \n\n  c\n ")
    assert [" a b \n\n  c\n "[s:e] for s, e in spans] == ["a b", "c"]


def test_nlquad_task_paragraph_offsets_and_invalid_spans():
    rows = [nlquad_key(r)[1] for r in nlquad_rows()[:3]]
    task, drops = nlquad_task(rows)
    assert [p.text for p in task.paragraphs] == [
        "First paragraph here. Still first.", "Second one. It has two.", "Third."]
    assert all(NLQUAD_CONTEXT[p.offset:p.offset + len(p.text)] == p.text
               for p in task.paragraphs)
    assert [q.example_id for q in task.questions] == ["bbc-1-q1", "bbc-1-q2"]
    assert [(d.example_id, d.reason) for d in drops] == [("bbc-1-q3", "invalid_answer_span")]
    with pytest.raises(KeyError):
        nlquad_key(nlquad_rows()[3])


def test_parse_nlquad_files_groups_articles():
    with _pipeline() as p:
        rows = (p | beam.Create([("part.parquet", nlquad_rows())])
                | beam.ParDo(ParseNlquadFiles()).with_outputs(*SIDE_OUTPUTS, main="main"))
        tasks = (rows.main | beam.GroupByKey()
                 | beam.ParDo(BuildNlquadTasks()).with_outputs(*SIDE_OUTPUTS, main="main"))
        assert_that(tasks.main | beam.Map(lambda t: (t.document, len(t.paragraphs),
                                                     len(t.questions))),
                    equal_to([("bbc-1", 3, 2)]), label="tasks")
        assert_that(_tallies(rows[TALLY], "Rows"), equal_to([
            ("input.files", 1), ("input.rows", 4), ("examples.read", 4),
            ("examples.malformed", 1)]), label="row_tallies")
        assert_that(_tallies(tasks[TALLY], "Tasks"), equal_to([
            ("paragraphs.read", 3), ("examples.dropped.invalid_answer_span", 1)]),
            label="task_tallies")


def test_lone_surrogate_row_is_dropped_as_invalid_unicode():
    from tests.transforms.reqa.samples import nlquad_rows
    from transforms.core.accounting import REJECTED
    from transforms.reqa.nlquad_source import ParseNlquadFiles
    from transforms.reqa.schema import INVALID_UNICODE

    row = {**nlquad_rows()[0], "question": "bad\ud800"}
    outputs = list(ParseNlquadFiles()._row("f.parquet", row))
    rejected = [o.value for o in outputs if getattr(o, "tag", None) == REJECTED]
    assert [r[1]["reason"] for r in rejected] == [INVALID_UNICODE]
    assert rejected[0][1]["question"] == "bad\\ud800"
    assert not [o for o in outputs if isinstance(o, tuple)]
