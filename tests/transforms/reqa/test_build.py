"""The ReQA composites (transforms.reqa.build) on small SQuAD, NQ and NLQuAD inputs."""

from __future__ import annotations

import gzip
import json

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from tests.conftest import TEST_RUNNER
from tests.transforms.reqa.samples import nlquad_rows, nq_example
from transforms.core.accounting import TALLY
from transforms.reqa.build import BuildReqa
from transforms.reqa.schema import candidate_id, paragraph_id


def _pipeline():
    return test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER]))


def _tallies(pcoll, label: str):
    return pcoll | f"Sum{label}" >> beam.CombinePerKey(sum)


def test_build_reqa_squad_dedups_paragraphs_and_merges_questions(tmp_path):
    context = "Alpha is first. Beta is second."
    data = {"data": [
        {"title": "A", "paragraphs": [{"context": context, "qas": [
            {"id": "1", "question": "Which is first?",
             "answers": [{"text": "Alpha", "answer_start": 0}]},
            {"id": "2", "question": "Which is second?",
             "answers": [{"text": "Beta", "answer_start": 16}]}]}]},
        {"title": "A", "paragraphs": [{"context": context, "qas": [
            {"id": "3", "question": "Which is first?",
             "answers": [{"text": "first", "answer_start": 9}]}]}]},
    ]}
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(data))
    pid = paragraph_id("squad", "A", context)
    alpha, beta = candidate_id("squad", pid, 0, 15), candidate_id("squad", pid, 16, 31)
    with _pipeline() as p:
        questions, candidates, stats, results = p | BuildReqa("squad", str(path), 2)
        assert_that(questions | beam.Map(lambda r: (r["question"], r["correct_candidate_ids"],
                                                    r["example_ids"])),
                    equal_to([("Which is first?", [alpha], ["1", "3"]),
                              ("Which is second?", [beta], ["2"])]), label="questions")
        assert_that(candidates | beam.Map(lambda r: (r["candidate_id"], r["sentence"],
                                                     r["sentence_start"], r["sentence_end"])),
                    equal_to([(alpha, "Alpha is first.", 0, 15),
                              (beta, "Beta is second.", 16, 31)]), label="candidates")
        assert_that(stats | beam.combiners.Count.PerElement(), equal_to([
            (("all/correct_per_question", 1), 2), (("all/sentences_per_paragraph", 2), 1),
            (("all/sentence_words", 3), 2)]), label="stats")
        tallies = [r[TALLY] for r in results]
        assert_that(_tallies(tallies | beam.Flatten(), "All")
                    | beam.Filter(lambda kv: kv[0].split(".")[0] in ("examples", "questions",
                                                                     "candidates")),
                    equal_to([("examples.read", 3), ("examples.kept", 3),
                              ("questions.unique", 2), ("questions.merged_occurrences", 1),
                              ("candidates.emitted", 4), ("candidates.unique", 2),
                              ("candidates.duplicates", 2)]), label="tallies")


def test_build_reqa_reads_gzipped_nq_and_parquet_nlquad(tmp_path):
    nq_path = tmp_path / "nq-dev-00.jsonl.gz"
    with gzip.open(nq_path, "wt", encoding="utf-8") as handle:
        for example in (nq_example(1), nq_example(2, shorts=("1810",)),
                        nq_example(3, long_tag="table", shorts=("35 m tall",))):
            handle.write(json.dumps(example) + "\n")
    nlquad_dir = tmp_path / "nlquad" / "train"
    nlquad_dir.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(nlquad_rows()[:2]), nlquad_dir / "train-0.parquet")
    with _pipeline() as p:
        nq_questions, nq_candidates, _, _ = p | "Nq" >> BuildReqa("nq", str(nq_path), 2)
        assert_that(nq_questions | beam.Map(lambda r: (r["example_ids"],
                                                       len(r["correct_candidate_ids"]))),
                    equal_to([(["1"], 1), (["2"], 1)]), label="nq_questions")
        # examples 1 and 2 share the paragraph: its two sentences are indexed once
        assert_that(nq_candidates | beam.Map(lambda r: r["sentence"]), equal_to([
            "The tower is 35 m tall .", "It was built in 1810 by masons ."]),
            label="nq_candidates")
        nl_questions, nl_candidates, _, _ = p | "Nlquad" >> BuildReqa(
            "nlquad", str(tmp_path / "nlquad" / "*" / "*.parquet"), 2)
        assert_that(nl_questions | beam.Map(lambda r: (r["question"],
                                                       len(r["correct_candidate_ids"]))),
                    equal_to([("What is second?", 2), ("What is third?", 1)]),
                    label="nl_questions")
        assert_that(nl_candidates | beam.Map(lambda r: (r["context"][:6], r["sentence"])),
                    equal_to([("First ", "First paragraph here."),
                              ("First ", "Still first."), ("Second", "Second one."),
                              ("Second", "It has two."), ("Third.", "Third.")]),
                    label="nl_candidates")
