"""The pieces of an NLQuAD refresh: capture keys and digests, the sidecar line, deduplication and
repeated paragraphs with carried documents, and the statistics of carried rows."""

from __future__ import annotations

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from tests.fakes.wayback_server import sha1_base32
from tests.transforms.nlquad.test_stages import _article, _pipeline
from transforms.clients.wayback import CdxCapture
from transforms.core.accounting import REJECTED, SIDE_OUTPUTS, TALLY
from transforms.nlquad.capture_keys import capture_id, row_key, unit_key
from transforms.nlquad.carried_stats import CarriedStats
from transforms.nlquad.refresh import cdx_capture, page_capture
from transforms.nlquad.sidecar import CapturedDocument
from transforms.nlquad.stages import (
    DeduplicateArticles,
    ExtractQuestionAnswers,
    FindRepeatedParagraphs,
    distinct_paragraph_fingerprints,
)
from transforms.sources.pages import CapturedPage

URL, STAMP = "https://www.bbc.co.uk/news/uk-1000001", "20170101060000"


def test_a_unit_keeps_a_rows_key_only_with_the_previous_digest():
    key = capture_id(URL, STAMP)
    assert row_key({"capture_url": URL, "capture_timestamp": STAMP}) == key
    assert unit_key(URL, STAMP, "ABC", "ABC") == key
    assert unit_key(URL, STAMP, "ABC", "XYZ") == f"{key}\tABC"  # other bytes: not carried
    assert unit_key(URL, STAMP, "ABC", None) == f"{key}\tABC"  # not in the previous release


def test_pages_and_cdx_captures_have_the_cdx_digest():
    payload = b"<html>page</html>"
    digest = sha1_base32(payload)  # what the CDX server writes
    assert page_capture(CapturedPage(URL, STAMP, payload, "f")) == (
        URL, STAMP, digest, "news/1000001")
    fetched = CapturedPage(URL, STAMP, payload, "wayback", digest=f"sha1:{digest.lower()}")
    assert fetched.payload_digest() == digest
    cdx = CdxCapture("uk,co,bbc)/news/uk-1000001", STAMP, URL, "text/html", "200",
                     f"sha1:{digest}")
    assert cdx_capture(("news/1000001", cdx)) == (URL, STAMP, digest, "news/1000001")


def carried(asset: str, url: str, timestamp: str, text: str = "t", published: str = "",
            paragraphs: tuple[str, ...] = ()) -> CapturedDocument:
    return CapturedDocument(url, timestamp, "D", f"bbc-{asset}", f"news/{asset}", url,
                            published or "2017-01-01T00:00:00Z", "/amp/" in url, text,
                            paragraphs, "train", 1, {"document_words": 9}, (2,))


def test_a_sidecar_line_reads_back_as_written():
    document = carried("1000001", URL, STAMP, paragraphs=("aa", "bb"))
    line = document.to_json()
    assert CapturedDocument.from_json(line) == document
    assert CapturedDocument.from_json(line).to_json() == line
    assert document.key == capture_id(URL, STAMP)


def test_carried_documents_win_deduplication():
    fresh = _article("1000001", "http://www.bbc.co.uk/news/uk-1000001", "20170101000100")
    same_text = _article("1000002", "http://www.bbc.co.uk/news/uk-1000002", "20170101000000",
                         published="2016-01-01T00:00:00Z")  # earlier: would win a rebuild
    other = _article("1000003", "http://www.bbc.co.uk/news/uk-1000003", "20170101000000",
                     text="Other.")
    old = carried("1000001", "https://www.bbc.com/news/uk-1000001", "20190101000000",
                  text=fresh.text_fingerprint())
    with _pipeline() as p:
        documents = p | "Carried" >> beam.Create([old])
        kept, results = (p | beam.Create([fresh, same_text, other])
                         | DeduplicateArticles(documents))
        assert_that(kept | beam.Map(lambda a: a.capture_url),
                    equal_to(["http://www.bbc.co.uk/news/uk-1000003"]), label="kept")
        rejected = [r[REJECTED] for r in results] | beam.Flatten()
        assert_that(rejected | beam.Map(lambda kv: (kv[1]["url"], kv[1]["reason"],
                                                    kv[1]["kept_timestamp"])), equal_to([
            ("http://www.bbc.co.uk/news/uk-1000001", "duplicate_capture_of_carried",
             "20190101000000"),
            ("http://www.bbc.co.uk/news/uk-1000002", "duplicate_content_of_carried",
             "20190101000000")]), label="rejected")


def test_carried_fingerprints_count_towards_repeated_paragraphs():
    footer = "A repeated long footer line."
    article = _article("1000001", "u1", "2017", text=footer)
    fingerprints = tuple(distinct_paragraph_fingerprints(article, 4))
    old = [carried(str(1000002 + i), f"u{i}", "2016", paragraphs=fingerprints)
           for i in range(2)]
    with _pipeline() as p:
        repeated = (p | beam.Create([article])
                    | FindRepeatedParagraphs(3, 4, p | "Carried" >> beam.Create(old))
                    | beam.Map(lambda kv: kv[1]))
        assert_that(repeated, equal_to([3, 3]))  # the footer and the answer, 3 articles


def _extract(p, article):
    """``ExtractQuestionAnswers`` on one article, all rows to train, every output."""
    ratios = (("train", 1.0), ("dev", 0.0), ("test", 0.0))
    return (p | beam.Create([article]) | beam.ParDo(
        ExtractQuestionAnswers("s", ratios), repeated=beam.pvalue.AsDict(
            p | "NoneRepeated" >> beam.Create([])))
        .with_outputs(*SIDE_OUTPUTS, ExtractQuestionAnswers.STATS,
                      ExtractQuestionAnswers.DOCUMENTS, main="main"))


def _same_entries(tagged: list[tuple[str, tuple[str, int]]]) -> bool:
    fresh = sorted(entry for tag, entry in tagged if tag == "fresh")
    return bool(fresh) and fresh == sorted(entry for tag, entry in tagged if tag == "carried")


def test_carried_stats_repeat_what_extraction_emitted():
    article = _article("1234567", URL, STAMP, text="Short sentences here. And more of them.")
    with _pipeline() as p:
        out = _extract(p, article)
        documents = out[ExtractQuestionAnswers.DOCUMENTS]
        assert_that(documents | beam.Map(lambda d: (d.key, d.split, d.questions, d.text)),
                    equal_to([(capture_id(URL, STAMP), "train", 1,
                               article.text_fingerprint())]), label="document")
        results, stats = out.main | CarriedStats(documents)
        tagged = ((out[ExtractQuestionAnswers.STATS] | "Fresh" >> beam.Map(lambda e: ("fresh", e)),
                   stats | "Carried" >> beam.Map(lambda e: ("carried", e)))
                  | "Both" >> beam.Flatten() | beam.combiners.ToList()
                  | beam.Map(_same_entries))
        assert_that(tagged, equal_to([True]), label="stats")
        tallies = ([r[TALLY] for r in results] | "Tallies" >> beam.Flatten()
                   | beam.CombinePerKey(sum))
        assert_that(tallies, equal_to([("question_prefix_1.why", 1),
                                       ("question_prefix_2.why", 1)]), label="prefixes")
