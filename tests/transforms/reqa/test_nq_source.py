"""NQ original-format reader (transforms.reqa.nq_source): pure functions and TestPipeline."""

from __future__ import annotations

import json

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from tests.conftest import TEST_RUNNER
from tests.transforms.reqa.samples import nq_example
from transforms.core.accounting import DEAD_LETTER, REJECTED, SIDE_OUTPUTS, TALLY
from transforms.reqa.nq_source import ParseNqFiles, nq_task, nq_token_text
from transforms.reqa.schema import paragraph_id
from transforms.reqa.tasks import Drop, ReqaTask


def _pipeline():
    return test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER]))


def _tallies(pcoll, label: str):
    return pcoll | f"Sum{label}" >> beam.CombinePerKey(sum)


def test_nq_token_text_joins_words_and_keeps_offsets():
    tokens = [{"token": "<P>", "html_token": True}, {"token": "The", "html_token": False},
              {"token": "<B>", "html_token": True}, {"token": "tower", "html_token": False},
              {"token": ".", "html_token": False}, {"token": "</P>", "html_token": True}]
    text, spans = nq_token_text(tokens, 0, 6)
    assert text == "The tower ."
    assert spans == {1: (0, 3), 3: (4, 9), 4: (10, 11)}


def test_nq_task_keeps_a_paragraph_with_one_short_answer():
    task = nq_task(nq_example(7))
    assert isinstance(task, ReqaTask)
    (paragraph,) = task.paragraphs
    assert paragraph.text == "The tower is 35 m tall . It was built in 1810 by masons ."
    (question,) = task.questions
    (start, end), = question.spans
    assert paragraph.text[start:end] == "35 m"
    assert (question.example_id, task.document) == ("7", "Tower")
    assert paragraph.paragraph_id == paragraph_id("nq", "Tower", paragraph.text)


def test_nq_answer_span_comes_from_token_offsets_not_string_search():
    example = nq_example(8, shorts=("masons",))
    tokens = example["document_tokens"]
    # the same word twice: the second occurrence is the annotated one
    for token in tokens:
        if token["token"] == "tower":
            token["token"] = "masons"
    task = nq_task(example)
    (start, end), = task.questions[0].spans
    text = task.paragraphs[0].text
    assert text.count("masons") == 2 and text[start:end] == "masons"
    assert start == text.rindex("masons")


@pytest.mark.parametrize("example, reason", [
    (nq_example(1, annotations=False), "no_annotation"),
    (nq_example(2, long_tag=None, shorts=()), "null_long_answer"),
    (nq_example(3, long_tag="table", shorts=("35 m tall",)), "long_answer_not_paragraph"),
    (nq_example(4, shorts=()), "not_one_short_answer"),
    (nq_example(5, shorts=("35 m", "1810")), "not_one_short_answer"),
    (nq_example(6, shorts=("Height",)), "short_answer_outside_long_answer"),
])
def test_nq_task_drop_reasons(example, reason):
    outcome = nq_task(example)
    assert isinstance(outcome, Drop) and outcome.reason == reason


def test_parse_nq_files_accounts_for_every_line():
    lines = [json.dumps(nq_example(1)), "{not json", "", json.dumps(nq_example(2, None, ())),
             json.dumps({"example_id": 3, "question_text": "q"})]
    with _pipeline() as p:
        out = (p | beam.Create([("nq.jsonl", "\n".join(lines))])
               | beam.ParDo(ParseNqFiles()).with_outputs(*SIDE_OUTPUTS, main="main"))
        assert_that(out.main | beam.Map(lambda t: (t.questions[0].example_id,
                                                   t.paragraphs[0].text[:9])),
                    equal_to([("1", "The tower")]), label="tasks")
        assert_that(_tallies(out[TALLY], "T"), equal_to([
            ("input.files", 1), ("input.lines", 4), ("examples.read", 4),
            ("examples.malformed", 2), ("examples.dropped.null_long_answer", 1),
            ("paragraphs.read", 1)]), label="tallies")
        assert_that(out[DEAD_LETTER] | beam.Map(lambda d: (d["line"], d["error_type"])),
                    equal_to([(2, "JSONDecodeError"), (5, "KeyError")]), label="dead")
        assert_that(out[REJECTED] | beam.Map(lambda kv: (kv[0], kv[1]["reason"])),
                    equal_to([("dropped_examples", "null_long_answer")]), label="rejected")


def test_a_line_that_is_not_utf8_or_not_an_object_loses_only_itself(tmp_path):
    import gzip

    from apache_beam.io import fileio

    path = tmp_path / "nq.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"question_text": "caf\xe9"}\n5\n[]\n'))
    with test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        out = (p | fileio.MatchFiles(str(path)) | fileio.ReadMatches()
               | beam.ParDo(ParseNqFiles()).with_outputs(*SIDE_OUTPUTS, main="main"))
        assert_that(out[TALLY] | beam.CombinePerKey(sum), equal_to([
            ("input.files", 1), ("input.lines", 3), ("examples.read", 3),
            ("examples.malformed", 3)]), label="tallies")
        assert_that(out[DEAD_LETTER] | beam.Map(lambda d: (d["line"], d["error_type"])), equal_to([
            (1, "UnicodeDecodeError"), (2, "TypeError"), (3, "TypeError")]), label="dead")


def test_lone_surrogate_in_question_or_paragraph_drops_the_example():
    from transforms.reqa.schema import INVALID_UNICODE

    example = nq_example(9)
    example["question_text"] = "how tall\ud800"
    drop = nq_task(example)
    assert isinstance(drop, Drop) and drop.reason == INVALID_UNICODE
    example = nq_example(10)
    for token in example["document_tokens"]:
        if token["token"] == "tower":
            token["token"] = "tow\udfffer"
    drop = nq_task(example)
    assert isinstance(drop, Drop) and drop.reason == INVALID_UNICODE


def _read_nq_file(path: str):
    from apache_beam.io import fileio

    p = _pipeline()
    out = (p | beam.Create([path]) | fileio.MatchAll() | fileio.ReadMatches()
           | beam.ParDo(ParseNqFiles()).with_outputs(*SIDE_OUTPUTS, main="main"))
    return p, out


@pytest.mark.parametrize("damage", ["truncated_compression", "corrupt_compression"])
def test_damaged_gzip_nq_file_is_dead_lettered_without_a_partial_record(tmp_path, damage):
    import gzip

    lines = "".join(json.dumps(nq_example(i)) + "\n" for i in range(40)).encode()
    data = bytearray(gzip.compress(lines))
    if damage == "truncated_compression":
        data = data[:len(data) * 3 // 4]
    else:
        data[len(data) // 2:len(data) // 2 + 40] = b"\xff" * 40
    (tmp_path / "nq.jsonl.gz").write_bytes(bytes(data))
    p, out = _read_nq_file(str(tmp_path / "nq.jsonl.gz"))
    with p:
        def check_dead(dead):
            (letter,) = dead
            assert letter["reason"] == damage
            if damage == "truncated_compression":
                assert 0 < letter["rows_read"] < 40
            else:
                assert letter["rows_read"] == 0

        def check_tallies(tallies):
            counts = dict(tallies)
            assert counts.get(f"input.unreadable.{damage}") == 1
            assert counts.get("input.unreadable_files") == 1
            assert "examples.malformed" not in counts  # no partial last record
            if damage == "corrupt_compression":
                assert "examples.read" not in counts

        assert_that(out[DEAD_LETTER], check_dead, label="Dead")
        assert_that(_tallies(out[TALLY], "T"), check_tallies, label="Tallies")
