import bz2
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
    DamagedInputError,
    ReadHtmlPages,
    ReadSamplePages,
    ReadWarcPages,
    capture_from_content,
    decompress_checked,
    iter_warc_pages,
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


def _warc_bytes(records, gzip=True):
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=gzip)
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


LONG_PAGE = PAGE.replace(b"Hi.", b"An answer that must not be cut in the middle. " * 40)
ARTICLE = ("https://www.bbc.co.uk/news/uk-3333333", "200 OK", "text/html", LONG_PAGE)


def _read_warc(data: bytes, name: str):
    """Items iter_warc_pages yields and the error it raises (None if none)."""
    items = []
    try:
        for item in iter_warc_pages(io.BytesIO(data), name, len(data)):
            items.append(item)
    except DamagedInputError as error:
        return items, error
    return items, None


def test_record_shorter_than_its_content_length_is_never_emitted():
    for gzipped in (False, True):
        whole = _warc_bytes([ARTICLE] * 2, gzip=gzipped)
        name = "a.warc.gz" if gzipped else "a.warc"
        cut = 40 if gzipped else 300  # inside record 2's page
        items, error = _read_warc(whole[: len(whole) - cut], name)
        assert [len(i.content) for i in items] == [len(LONG_PAGE)], name
        assert (error.reason, error.records_read) == ("truncated_record", 1), name
        assert error.record.startswith(f"{name}#")
        items, error = _read_warc(whole, name)
        assert (len(items), error) == (2, None), name


def test_gzip_damage_is_reported_with_the_complete_records():
    whole = _warc_bytes([ARTICLE] * 3)
    items, error = _read_warc(whole[:-6], "cut-trailer.warc.gz")  # complete records, cut CRC
    assert (len(items), error.reason, error.records_read) == (3, "truncated_archive", 3)
    record_two = whole.index(b"\x1f\x8b", 10)
    damaged = bytearray(whole)
    damaged[record_two + 40: record_two + 48] = b"\xff" * 8
    items, error = _read_warc(bytes(damaged), "corrupt.warc.gz")
    assert all(len(i.content) == len(LONG_PAGE) for i in items)
    assert error is not None and error.reason in ("corrupt_archive", "truncated_record")
    assert error.records_read == len(items) == 1


def test_empty_and_non_archive_files_get_one_clear_reason():
    text = b"".join(b"line %d of some text here ok\n" % i for i in range(51))
    for data, reason in ((b"", "empty_archive"), (b"\r\n", "empty_archive"),
                         (gzip.compress(b""), "empty_archive"), (text, "not_an_archive"),
                         (gzip.compress(text), "not_an_archive"),
                         (_warc_bytes([ARTICLE])[:6], "truncated_archive")):
        items, error = _read_warc(data, "x.warc")
        assert (items, error.reason) == ([], reason), data[:20]


def test_warc_source_counts_and_dead_letters_damaged_files_once(tmp_path):
    whole = _warc_bytes([ARTICLE] * 2, gzip=False)
    (tmp_path / "cut.warc").write_bytes(whole[: len(whole) - 300])
    (tmp_path / "empty.warc").write_bytes(b"")
    (tmp_path / "notes.warc").write_bytes(
        b"".join(b"line %d of some text here ok\n" % i for i in range(51)))

    def check(pages, results):
        assert_that(pages | beam.Map(lambda pg: len(pg.content)), equal_to([len(LONG_PAGE)]),
                    label="pages")
        assert_that(_tallies(results), equal_to([
            ("input.pages", 1), ("input.warc_truncated_records", 1),
            ("input.warc_truncated_or_corrupt_files", 1), ("input.warc_empty_files", 1),
            ("input.warc_not_archive_files", 1)]), label="tallies")
        dead = [r[DEAD_LETTER] for r in results] | "FlattenDead" >> beam.Flatten()
        assert_that(dead | beam.Map(lambda d: (d["source"].rsplit("/", 1)[-1], d["reason"],
                                               d["pages_read"])),
                    equal_to([("cut.warc", "truncated_record", 1),
                              ("empty.warc", "empty_archive", 0),
                              ("notes.warc", "not_an_archive", 0)]), label="dead")

    _run(ReadWarcPages(str(tmp_path / "*.warc")), check)


def test_truncated_or_corrupt_compressed_page_is_dead_lettered_not_emitted(tmp_path):
    index = ["file\turl\ttimestamp"]
    packed = gzip.compress(LONG_PAGE)
    corrupt = bytearray(packed)
    corrupt[len(packed) // 2: len(packed) // 2 + 4] = b"\xff" * 4
    files = {"ok.html.gz": packed, "cut.html.gz": packed[: len(packed) // 2],
             "corrupt.html.gz": bytes(corrupt), "two.html.gz": packed[:20] + packed[20:]}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        index.append(f"{name}\thttps://www.bbc.co.uk/news/uk-1234567\t20170101000000")
    (tmp_path / "index.tsv").write_text("\n".join(index) + "\n")

    def check(pages, results):
        assert_that(pages | beam.Map(lambda pg: (pg.source.rsplit("/", 1)[-1], pg.content)),
                    equal_to([("ok.html.gz", LONG_PAGE), ("two.html.gz", LONG_PAGE)]),
                    label="pages")
        assert_that(_tallies(results), equal_to([
            ("input.pages", 2), ("input.truncated_or_corrupt_files", 2)]), label="tallies")
        dead = [r[DEAD_LETTER] for r in results] | "FlattenDead" >> beam.Flatten()
        assert_that(dead | beam.Map(lambda d: (d["source"].rsplit("/", 1)[-1], d["reason"])),
                    equal_to([("cut.html.gz", "truncated_file"),
                              ("corrupt.html.gz", "corrupt_file")]), label="dead")

    _run(ReadHtmlPages(str(tmp_path / "*.html.gz")), check)


def test_valid_arc_and_plain_warc_with_warcinfo_still_read():
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + PAGE
    version = b"1 0 InternetArchive\nURL IP-address Archive-date Content-type Archive-length\n"
    arc = (b"filedesc://x.arc 0.0.0.0 20170316210702 text/plain %d\n" % len(version) + version
           + b"\nhttp://www.bbc.co.uk/news/uk-1234567 1.2.3.4 20170316210702 text/html %d\n"
           % len(http) + http + b"\n")
    items, error = _read_warc(arc, "x.arc")
    assert error is None
    assert [(i.url, i.timestamp, i.content) for i in items] == [
        ("http://www.bbc.co.uk/news/uk-1234567", "20170316210702", PAGE)]
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=False)
    writer.write_record(writer.create_warcinfo_record("x.warc", {"software": "test"}))
    buffer.write(_warc_bytes([ARTICLE], gzip=False))
    items, error = _read_warc(buffer.getvalue(), "x.warc")
    assert error is None and [i.content for i in items] == [LONG_PAGE]


def test_bzip2_pages_are_checked_too():
    packed = bz2.compress(LONG_PAGE)
    assert decompress_checked(packed + packed, "bzip2") == LONG_PAGE * 2
    for damaged, reason in ((packed[: len(packed) // 2], "truncated_file"),
                            (packed[:12] + b"\xff" * 4 + packed[16:], "corrupt_file")):
        try:
            decompress_checked(damaged, "bzip2")
        except DamagedInputError as error:
            assert error.reason == reason
        else:
            raise AssertionError(f"damaged bzip2 accepted: {reason}")
