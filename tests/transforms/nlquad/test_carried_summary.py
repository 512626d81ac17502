"""A refresh's carried documents and rows take part in this run's stages as a few elements:
the documents as one summary (``carried_summary``), the rows' statistics counted per
previous file. The results are those of one element per document, row and value (the
refresh tests check the bytes); here, that the carried ones are not sent one by one."""

from __future__ import annotations

from collections import Counter

import apache_beam as beam
import pyarrow as pa
from apache_beam.testing.util import assert_that, equal_to

from tests.transforms.nlquad.test_refresh import carried
from tests.transforms.nlquad.test_stages import _article, _pipeline
from transforms.core.accounting import TALLY
from transforms.nlquad.carried_stats import CarriedStats
from transforms.nlquad.lengths import histogram_entries, row_lengths
from transforms.nlquad.stages import DeduplicateArticles, FindRepeatedParagraphs

QUESTIONS = ["Why is it so?"] * 30 + ["How does it work?"] * 10


def _rows() -> pa.RecordBatch:
    """40 carried rows as Arrow data (what a previous file gives), two question prefixes."""
    return pa.RecordBatch.from_pylist([
        {"question": question, "answer_word_start": i % 7, "answer_word_end": i % 7 + 5 + i % 3,
         "answer_paragraphs": 1 + i % 2} for i, question in enumerate(QUESTIONS)])


def _expected_histograms() -> dict[str, dict[int, int]]:
    """The histograms of the same rows one value at a time (as extraction emits them)."""
    histograms: dict[str, Counter[int]] = {}
    for row in _rows().to_pylist():
        for metric, value in histogram_entries("train", row_lengths(row)):
            histograms.setdefault(metric, Counter())[value] += 1
    return {metric: dict(values) for metric, values in histograms.items()}


def _histograms(entries: list[tuple[str, object]]) -> dict[str, dict[int, int]]:
    """Histogram entries and parts summed per metric (as ``PartialHistogramFn`` does)."""
    histograms: dict[str, Counter[int]] = {}
    for metric, value in entries:
        histograms.setdefault(metric, Counter()).update(
            value if isinstance(value, dict) else {value: 1})
    return {metric: dict(values) for metric, values in histograms.items()}


def test_carried_rows_are_counted_once_per_prefix_and_metric():
    with _pipeline() as p:
        documents = p | "NoDocuments" >> beam.Create([])
        results, stats = (p | beam.Create([("train", _rows())])
                          | CarriedStats(documents))
        tallies = [r[TALLY] for r in results] | "Tallies" >> beam.Flatten()
        assert_that(tallies, equal_to([
            ("question_prefix_1.why", 30), ("question_prefix_1.how", 10),
            ("question_prefix_2.why is", 30), ("question_prefix_2.how does", 10)]),
            label="one tally per prefix, with its count")
        metrics = len(_expected_histograms())
        assert_that(stats | beam.combiners.Count.Globally(), equal_to([metrics]),
                    label="one histogram part per metric")
        histograms = stats | beam.combiners.ToList() | beam.Map(_histograms)
        assert_that(histograms, equal_to([_expected_histograms()]),
                    label="the histograms of one value at a time")


def _consumers(pipeline, pcoll) -> list[str]:
    """The leaf transforms of ``pipeline`` that read ``pcoll`` (as main or side input)."""
    proto, context = pipeline.to_runner_api(return_context=True)
    wanted = context.pcollections.get_id(pcoll)
    return sorted(t.unique_name for t in proto.components.transforms.values()
                  if not t.subtransforms and wanted in t.inputs.values())


def test_carried_documents_reach_the_stages_as_one_summary():
    old = [carried(str(1000001 + i), f"https://www.bbc.co.uk/news/uk-{1000001 + i}",
                   "20170101000000", text=f"t{i}", paragraphs=("aa", "bb")) for i in range(5)]
    fresh = _article("1000001", "http://www.bbc.co.uk/news/uk-1000001", "20170101000100")
    p = _pipeline()
    documents = p | "Carried" >> beam.Create(old)
    articles = p | "Fresh" >> beam.Create([fresh])
    kept, _ = articles | DeduplicateArticles(documents)
    repeated = articles | FindRepeatedParagraphs(3, 4, documents)
    _, stats = p | "Rows" >> beam.Create([]) | CarriedStats(documents)
    assert_that(kept, equal_to([]), label="the fresh capture loses to the carried one")
    assert_that(repeated, equal_to([("aa", 5), ("bb", 5)]), label="in the 5 carried")
    assert_that(stats | beam.combiners.Count.Globally(), equal_to([4]),
                label="one part per metric (document words, answer sentences; split, all)")
    consumers = _consumers(p, documents)
    assert len(consumers) == 1 and "SummarizeCarried" in consumers[0], consumers
    p.run().wait_until_finish()


def test_a_summary_is_the_same_however_its_documents_are_split():
    from transforms.nlquad.carried_summary import CarriedSummary, SummarizeCarried

    documents = [carried(str(1000001 + i), f"u{i % 3}", f"2017010100000{i}", text=f"t{i % 2}",
                         paragraphs=(f"p{i % 4}", "all")) for i in range(8)]
    combine = SummarizeCarried()
    whole = combine.add_inputs(combine.create_accumulator(), documents)
    parts = [combine.add_inputs(combine.create_accumulator(), documents[start::3])
             for start in range(3)]
    merged = combine.merge_accumulators(parts)
    assert merged == whole
    summaries = combine.add_inputs(combine.create_accumulator(), parts)  # a join's partials
    assert summaries == whole
    mixed = combine.add_inputs(combine.create_accumulator(), [parts[0], *documents[1::3],
                                                              parts[2]])
    assert mixed == whole
    assert isinstance(whole, CarriedSummary) and whole.documents == 8
    assert whole.fingerprints["all"] == 8 and sum(whole.fingerprints.values()) == 16


def test_two_carried_documents_of_one_article_keep_the_preferred_capture():
    from filters.nlquad.dedup import capture_preference
    from transforms.nlquad.carried_summary import SummarizeCarried

    near = carried("1000001", "https://www.bbc.co.uk/news/uk-1000001", "20170101010000")
    far = carried("1000001", "https://www.bbc.co.uk/news/uk-1000001", "20190101010000")
    best = min((near, far), key=lambda d: capture_preference(
        d.published, d.capture_timestamp, d.is_amp, d.capture_url))
    combine = SummarizeCarried()
    for order in ((near, far), (far, near)):
        summary = combine.add_inputs(combine.create_accumulator(), order)
        assert summary.captures["news/1000001"][1:] == (best.capture_url,
                                                        best.capture_timestamp)
