import gzip
import io

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from tests.conftest import TEST_RUNNER
from transforms.core.accounting import DEAD_LETTER, TALLY
from transforms.sources.page_files import (
    ReadHtmlPages,
    ReadSamplePages,
    ReadWarcPages,
    capture_from_content,
    read_index,
    sample_index,
    warc_timestamp,
)

PAGE = b"<html><body><div class='story-body__inner'><p>Hi.</p></div></body></html>"


def _run(transform, check):
    with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        pages, results = p | transform
        check(pages, results)


def _tallies(results):
    return ([r[TALLY] for r in results] | beam.Flatten()
            | "SumTallies" >> beam.CombinePerKey(sum))


def test_read_index_requires_columns():
    assert read_index("file\turl\ttimestamp\na.html\thttp://x\t2017\n") == {
        "a.html": ("http://x", "2017")}
    try:
        read_index("name\tlink\n")
    except ValueError as error:
        assert "missing" in str(error)
    else:
        raise AssertionError("bad header accepted")


def test_capture_from_saved_page_comment_and_name():
    saved = (b"<!-- saved from url=(0074)https://web.archive.org/web/20170316220000/"
             b"http://www.bbc.com/news/world-1234567 -->")
    assert capture_from_content("x.html", saved) == (
        "http://www.bbc.com/news/world-1234567", "20170316220000")
    canonical = b'<link rel="canonical" href="https://www.bbc.co.uk/news/uk-7654321">'
    assert capture_from_content("/d/page_20180102030405.html", canonical) == (
        "https://www.bbc.co.uk/news/uk-7654321", "20180102030405")
    assert capture_from_content("x.html", b"<p>nothing</p>") == ("", "")


def test_html_source_uses_sidecar_index_and_counts_unknown_urls(tmp_path):
    (tmp_path / "a.html").write_bytes(PAGE)
    (tmp_path / "b.html").write_bytes(PAGE)
    (tmp_path / "index.tsv").write_text(
        "file\turl\ttimestamp\na.html\thttps://www.bbc.co.uk/news/uk-1234567\t20170101000000\n")

    def check(pages, results):
        assert_that(pages | beam.Map(lambda pg: (pg.url, pg.timestamp, pg.content)),
                    equal_to([("https://www.bbc.co.uk/news/uk-1234567", "20170101000000", PAGE)]),
                    label="pages")
        assert_that(_tallies(results), equal_to([("input.pages", 1),
                                                 ("input.skipped.no_capture_url", 1)]),
                    label="tallies")

    _run(ReadHtmlPages(str(tmp_path / "*.html")), check)


def test_sample_source_reads_every_bundled_page():
    expected = len(sample_index())
    assert expected >= 30

    def check(pages, results):
        assert_that(pages | beam.combiners.Count.Globally(), equal_to([expected]))

    _run(ReadSamplePages(), check)


def _warc_bytes(records):
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    for url, status, content_type, body in records:
        headers = StatusAndHeaders(f"{status} X", [("Content-Type", content_type)],
                                   protocol="HTTP/1.1")
        record = writer.create_warc_record(url, "response", payload=io.BytesIO(body),
                                           http_headers=headers,
                                           warc_headers_dict={"WARC-Date": "2017-03-16T21:07:02Z"})
        writer.write_record(record)
    return buffer.getvalue()


def test_warc_source_keeps_html_200_and_counts_the_rest(tmp_path):
    (tmp_path / "a.warc.gz").write_bytes(_warc_bytes([
        ("https://www.bbc.co.uk/news/uk-1234567", "200 OK", "text/html; charset=utf-8", PAGE),
        ("https://www.bbc.co.uk/img.png", "200 OK", "image/png", b"\x89PNG"),
        ("https://www.bbc.co.uk/news/uk-7654321", "404 Not Found", "text/html", b"gone"),
    ]))
    whole = _warc_bytes([("https://www.bbc.co.uk/news/uk-2222222", "200 OK", "text/html", PAGE)]
                        * 3)
    (tmp_path / "truncated.warc.gz").write_bytes(whole[: len(whole) - 100])  # inside record 3

    def check(pages, results):
        assert_that(pages | beam.Map(lambda pg: (pg.url, pg.timestamp)),
                    equal_to([("https://www.bbc.co.uk/news/uk-1234567", "20170316210702")]
                             + [("https://www.bbc.co.uk/news/uk-2222222", "20170316210702")] * 2),
                    label="pages")
        assert_that(_tallies(results), equal_to([
            ("input.pages", 3), ("input.warc_skipped.not_html", 1),
            ("input.warc_skipped.http_404", 1), ("input.warc_truncated_or_corrupt_files", 1)]),
            label="tallies")
        dead = [r[DEAD_LETTER] for r in results] | "FlattenDead" >> beam.Flatten()
        assert_that(dead | beam.Map(lambda d: (d["source"].endswith("truncated.warc.gz"),
                                               "after 2 HTML pages" in d["detail"])),
                    equal_to([(True, True)]), label="dead")

    _run(ReadWarcPages(str(tmp_path / "*.warc.gz")), check)


def test_warc_timestamp_forms():
    assert warc_timestamp("2017-03-16T21:07:02Z") == "20170316210702"
    assert warc_timestamp("20170316210702") == "20170316210702"
    assert warc_timestamp("") == ""


def test_gzip_helper_roundtrip():
    assert gzip.decompress(gzip.compress(PAGE)) == PAGE
