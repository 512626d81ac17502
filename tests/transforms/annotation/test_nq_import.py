import apache_beam as beam
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from filters.annotation.votes import parse_nq_vote
from tests.filters.annotation.test_nq import _example
from transforms.annotation.nq_import import JUDGMENTS, AnnotateNqExamples
from transforms.annotation.release_examples import nq_view
from transforms.core.accounting import SIDE_OUTPUTS, TALLY

RUNNER = ["--runner=FnApiRunner"]


def _vote(annotator, candidate=0, release=None, line=1, **change):
    record = {"example_id": "-42", "annotator_id": annotator, "long_answer_candidate": candidate,
              "short_answers": [], "yes_no_answer": "NONE", **change}
    if release:
        record["release"] = release
    return parse_nq_vote(record, "votes.jsonl", line)


def test_annotates_with_one_entry_per_annotator_and_counts_everything():
    example = _example()
    votes = [_vote("w2", 1), _vote("w1", 0, release="abc"), _vote("w1", 2, line=9),
             _vote("w3", 5), _vote("w4", 0, release="other")]
    with test_pipeline.TestPipeline(argv=RUNNER) as pipeline:
        out = (pipeline | beam.Create([("-42", {"examples": [("dev", nq_view(example))],
                                                "votes": votes})])
               | beam.ParDo(AnnotateNqExamples({"dev": 2}, "abc")).with_outputs(
                   *SIDE_OUTPUTS, JUDGMENTS, main="main"))
        assert_that(out.main | beam.MapTuple(lambda example_id, annotations: (example_id, [
            a["long_answer"]["candidate_index"] for a in annotations])),
            equal_to([("-42", [1, 2])]), label="annotations in the order given")
        assert_that(out[TALLY] | beam.combiners.Count.PerElement(), equal_to([
            (("votes.refused.candidate_out_of_range", 1), 1),
            (("votes.refused.other_release", 1), 1), (("votes.superseded", 1), 1),
            (("votes.used", 2), 1), (("examples.annotated", 1), 1),
            (("examples.ways.2", 1), 1)]), label="tallies")
        assert_that(out[JUDGMENTS] | beam.MapTuple(lambda s, r: (r["annotator_id"],
                                                               r["long_answer_type"])),
                    equal_to([("w1", "table_row"), ("w2", "table")]), label="judgments")


def test_too_few_annotators_is_pending_and_unknown_ids_are_dead_lettered():
    with test_pipeline.TestPipeline(argv=RUNNER) as pipeline:
        out = (pipeline | beam.Create([
            ("-42", {"examples": [("dev", nq_view(_example()))], "votes": [_vote("w1")]}),
            ("7", {"examples": [], "votes": [_vote("w1")]})])
            | beam.ParDo(AnnotateNqExamples({"dev": 5}, "abc")).with_outputs(
                *SIDE_OUTPUTS, JUDGMENTS, main="main"))
        assert_that(out.main, equal_to([]), label="nothing published")
        assert_that(out["rejected"] | beam.MapTuple(lambda kind, r: (kind, r["annotators"],
                                                                     r["required"])),
                    equal_to([("pending_examples", 1, 5)]), label="pending")
        assert_that(out["dead_letter"] | beam.Map(lambda r: r["reason"]),
                    equal_to(["unknown_example"]), label="dead letters")
