"""SQuAD v1.1 reader (transforms.reqa.squad_source): pure functions and TestPipeline."""

from __future__ import annotations

import json

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from tests.conftest import TEST_RUNNER
from transforms.core.accounting import DEAD_LETTER, SIDE_OUTPUTS, TALLY
from transforms.reqa.squad_source import ParseSquadFiles, squad_task


def _pipeline():
    return test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER]))


def _tallies(pcoll, label: str):
    return pcoll | f"Sum{label}" >> beam.CombinePerKey(sum)


SQUAD_CONTEXT = "The tower is tall. It was built in 1810. Masons built it."


def squad_json() -> str:
    return json.dumps({"version": "1.1", "data": [{"title": "Tower", "paragraphs": [
        {"context": SQUAD_CONTEXT, "qas": [
            {"id": "a", "question": "When was it built?",
             "answers": [{"text": "1810", "answer_start": SQUAD_CONTEXT.index("1810")},
                         {"text": "in 1810", "answer_start": SQUAD_CONTEXT.index("in 1810")}]},
            {"id": "b", "question": "Who built it?",
             "answers": [{"text": "Masons", "answer_start": 0}]},
            {"id": "c", "question": "Is it tall?", "answers": []},
            {"id": "d", "question": "How tall?",
             "answers": [{"text": "tall", "answer_start": 1},
                         {"text": "tall", "answer_start": SQUAD_CONTEXT.index("tall")}]},
        ]},
        {"context": "No questions here.", "qas": []},
        {"context": 42, "qas": [{"id": "e", "question": "?", "answers": []}]},
    ]}]})


def test_squad_task_checks_answer_offsets():
    data = json.loads(squad_json())["data"][0]
    task, drops, mismatched = squad_task("Tower", data["paragraphs"][0])
    assert [q.example_id for q in task.questions] == ["a", "d"]
    start = SQUAD_CONTEXT.index("in 1810")
    assert task.questions[0].spans == ((start, start + 7), (start + 3, start + 7))
    assert [(d.example_id, d.reason) for d in drops] == [
        ("b", "answer_offset_mismatch"), ("c", "no_answer")]
    assert mismatched == 2  # b's only answer and d's first answer


def test_parse_squad_files_tasks_drops_and_dead_letters():
    with _pipeline() as p:
        out = (p | beam.Create([("squad.json", squad_json()), ("bad.json", "{]")])
               | beam.ParDo(ParseSquadFiles()).with_outputs(*SIDE_OUTPUTS, main="main"))
        assert_that(out.main | beam.Map(lambda t: (t.document, t.paragraphs[0].text[:12],
                                                   len(t.questions))),
                    equal_to([("Tower", "The tower is", 2), ("Tower", "No questions", 0)]),
                    label="tasks")
        assert_that(_tallies(out[TALLY], "T"), equal_to([
            ("input.files", 2), ("input.unreadable_files", 1), ("examples.read", 5),
            ("examples.malformed", 1), ("paragraphs.read", 2),
            ("paragraphs.malformed.malformed_paragraph", 1),
            ("paragraphs.without_questions", 1), ("answers.dropped.answer_offset_mismatch", 2),
            ("examples.dropped.answer_offset_mismatch", 1), ("examples.dropped.no_answer", 1),
        ]), label="tallies")
        assert_that(out[DEAD_LETTER] | beam.Map(lambda d: (d["stage"], d["error_type"])),
                    equal_to([("input", "JSONDecodeError"), ("examples", "TypeError")]),
                    label="dead")


def test_malformed_shapes_are_dead_lettered_and_a_bad_answer_drops_its_question():
    paragraph = {"context": SQUAD_CONTEXT, "qas": [
        {"id": "a", "question": "When?", "answers": [{"text": "1810", "answer_start": "x"}]},
        {"id": "b", "question": "Who?",
         "answers": [{"text": "Masons", "answer_start": SQUAD_CONTEXT.index("Masons")}]},
        {"id": "c", "question": 5, "answers": []},
        "not a question"]}
    files = [("five.json", json.dumps({"data": 5})), ("list.json", "[1]"),
             ("ok.json", json.dumps({"data": [{"title": "T", "paragraphs": [paragraph]},
                                              {"title": "U", "paragraphs": 3}]}))]
    with _pipeline() as p:
        out = (p | beam.Create(files)
               | beam.ParDo(ParseSquadFiles()).with_outputs(*SIDE_OUTPUTS, main="main"))
        assert_that(out.main | beam.Map(lambda t: [q.example_id for q in t.questions]),
                    equal_to([["b"]]), label="tasks")
        assert_that(out[DEAD_LETTER] | beam.Map(lambda d: (d["file"], d["reason"])),
                    equal_to([("five.json", "malformed_file"), ("list.json", "malformed_file"),
                              ("ok.json", "malformed_article"),
                              ("ok.json", "malformed_question"),
                              ("ok.json", "malformed_question")]), label="dead")
        assert_that(_tallies(out[TALLY], "T"), equal_to([
            ("input.files", 3), ("input.unreadable_files", 2),
            ("input.unreadable.malformed_file", 2), ("input.malformed.malformed_article", 1),
            ("examples.read", 4), ("examples.malformed", 2), ("paragraphs.read", 1),
            ("examples.dropped.malformed_answer", 1)]), label="tallies")


def test_lone_surrogate_drops_its_question_or_its_paragraphs_questions():
    from transforms.reqa.schema import INVALID_UNICODE

    paragraph = {"context": SQUAD_CONTEXT, "qas": [
        {"id": "bad", "question": "How tall\ud800?", "answers": [
            {"text": "tall", "answer_start": 13}]},
        {"id": "good", "question": "How tall?", "answers": [
            {"text": "tall", "answer_start": 13}]}]}
    task, drops, _ = squad_task("Tower", paragraph)
    assert [q.example_id for q in task.questions] == ["good"]
    assert [(d.example_id, d.reason) for d in drops] == [("bad", INVALID_UNICODE)]
    task, drops, _ = squad_task("Tower", {**paragraph, "context": "Bad \udc00 text."})
    assert task.paragraphs == () and task.questions == ()
    assert [(d.example_id, d.reason) for d in drops] == [("bad", INVALID_UNICODE),
                                                          ("good", INVALID_UNICODE)]


def test_truncated_gzip_squad_file_is_dead_lettered_with_its_reason(tmp_path):
    import gzip

    from apache_beam.io import fileio

    data = gzip.compress(squad_json().encode())
    (tmp_path / "squad.json.gz").write_bytes(data[:len(data) // 2])
    with _pipeline() as p:
        out = (p | beam.Create([str(tmp_path / "squad.json.gz")])
               | fileio.MatchAll() | fileio.ReadMatches()
               | beam.ParDo(ParseSquadFiles()).with_outputs(*SIDE_OUTPUTS, main="main"))
        assert_that(out.main, equal_to([]), label="NoTasks")
        assert_that(_tallies(out[TALLY], "T"), equal_to([
            ("input.files", 1), ("input.unreadable_files", 1),
            ("input.unreadable.truncated_compression", 1)]), label="Tallies")
        assert_that(out[DEAD_LETTER] | beam.Map(lambda d: (d["reason"], d["rows_read"])),
                    equal_to([("truncated_compression", 0)]), label="Dead")
