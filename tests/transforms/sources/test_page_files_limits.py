"""Page files: every compression is checked (zstd, xz too; issue 23 §5) and no page decodes
past its cap (§15)."""

from __future__ import annotations

import gzip
import io
import lzma

import apache_beam as beam
import zstandard
from apache_beam.testing.util import assert_that, equal_to

from tests.transforms.sources.test_page_files import (
    ARTICLE,
    LONG_PAGE,
    _run,
    _tallies,
    _warc_bytes,
)
from transforms.core.accounting import DEAD_LETTER
from transforms.sources.page_files import ReadHtmlPages, iter_warc_pages

INDEX = "file\turl\ttimestamp\n" + "".join(
    f"{name}\thttps://www.bbc.co.uk/news/uk-{number}\t20170101000000\n"
    for number, name in enumerate(["ok.html.zst", "cut.html.zst", "cut.html.xz",
                                   "bomb.html.gz", "ok.html.xz"], start=1000000))


def _dead(results):
    return ([r[DEAD_LETTER] for r in results] | "FlattenDead" >> beam.Flatten()
            | beam.Map(lambda d: (d["source"].rsplit("/", 1)[-1], d["reason"])))


def test_truncated_zstd_and_xz_pages_and_bombs_are_dead_lettered(tmp_path):
    page = LONG_PAGE * 400  # several zstd blocks, so a cut leaves a decodable start
    zst = zstandard.ZstdCompressor().compress(page)
    xz = lzma.compress(page)
    (tmp_path / "ok.html.zst").write_bytes(zst)
    (tmp_path / "cut.html.zst").write_bytes(zst[:len(zst) // 2])
    (tmp_path / "ok.html.xz").write_bytes(xz)
    (tmp_path / "cut.html.xz").write_bytes(xz[:len(xz) // 2])
    (tmp_path / "bomb.html.gz").write_bytes(gzip.compress(b"<p>" + b" " * (4 << 20)))
    (tmp_path / "index.tsv").write_text(INDEX)

    def check(pages, results):
        assert_that(pages | beam.Map(lambda pg: (pg.source.rsplit("/", 1)[-1], pg.content)),
                    equal_to([("ok.html.zst", page), ("ok.html.xz", page)]), label="pages")
        assert_that(_tallies(results), equal_to([
            ("input.pages", 2), ("input.truncated_or_corrupt_files", 2),
            ("input.decoded_too_large_files", 1)]), label="tallies")
        assert_that(_dead(results), equal_to([
            ("cut.html.zst", "truncated_file"), ("cut.html.xz", "truncated_file"),
            ("bomb.html.gz", "decoded_too_large")]), label="dead")

    _run(ReadHtmlPages(str(tmp_path / "*.html.*"), max_decoded_bytes=1 << 20), check)


def test_an_oversized_warc_record_costs_only_itself():
    big = ("https://www.bbc.co.uk/news/uk-4444444", "200 OK", "text/html",
           b"<p>" + b" " * (2 << 20))
    data = _warc_bytes([ARTICLE, big, ARTICLE])
    items = list(iter_warc_pages(io.BytesIO(data), "x.warc.gz", len(data),
                                 max_decoded_bytes=1 << 20))
    assert [getattr(item, "content", None) for item in items] == [LONG_PAGE, None, LONG_PAGE]
    assert items[1][:2] == ("dead_letter", "decoded_too_large")
