"""The capture digest of a WARC response comes from its WARC-Payload-Digest header when that
header is a usable SHA-1 of the bytes the build reads; otherwise the payload is hashed and
the reason counted (transforms.sources.warc_digest)."""

import base64
import gzip
import hashlib
import io
import re

import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from tests.conftest import TEST_RUNNER
from transforms.core.accounting import TALLY
from transforms.sources.page_files import ReadWarcPages, iter_warc_pages
from transforms.sources.pages import CapturedPage
from transforms.sources.warc_digest import (
    ENCODED_PAYLOAD,
    MALFORMED,
    MISSING,
    UNSUPPORTED_ALGORITHM,
    parse_payload_digest,
)

PAGE = b"<html><body><p>A page.</p></body></html>"
SHA1 = hashlib.sha1(PAGE).digest()
BASE32 = base64.b32encode(SHA1).decode("ascii")
URL = "https://www.bbc.co.uk/news/uk-1234567"
KEEP = object()  # the digest warcio writes (sha1 of the payload)


def _warc(digest, http_extra=(), body=PAGE) -> bytes:
    """One gzipped WARC response of ``body``; ``digest``: the WARC-Payload-Digest value
    (KEEP: warcio's own, None: no header). The header is edited in the written bytes: warcio
    computes its own when writing (the header is outside the record's Content-Length)."""
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=False)
    headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html"), *http_extra],
                               protocol="HTTP/1.1")
    writer.write_record(writer.create_warc_record(
        URL, "response", payload=io.BytesIO(body), http_headers=headers,
        warc_headers_dict={"WARC-Date": "2017-03-16T21:07:02Z"}))
    data = buffer.getvalue()
    if digest is not KEEP:
        line = re.search(rb"WARC-Payload-Digest: [^\r]*\r\n", data).group(0)
        data = data.replace(line, b"" if digest is None
                            else f"WARC-Payload-Digest: {digest}\r\n".encode())
    return gzip.compress(data, mtime=0)


def _page(data: bytes) -> tuple[CapturedPage, list[str]]:
    hashed: list[str] = []
    [page] = list(iter_warc_pages(io.BytesIO(data), "a.warc.gz", len(data), hashed=hashed))
    return page, hashed


@pytest.mark.parametrize("value", [f"sha1:{BASE32}", f"sha1:{BASE32.lower()}",
                                   f"SHA1:{SHA1.hex()}", f" sha-1:{BASE32} "])
def test_a_sha1_header_digest_is_the_payload_digest(value):
    assert parse_payload_digest(value) == (BASE32, "")


@pytest.mark.parametrize(("value", "reason"), [
    (None, MISSING), ("", MISSING), (BASE32, MALFORMED), ("sha1:", MALFORMED),
    ("sha1:ABC", MALFORMED), (f"sha1:{BASE32[:-1]}1", MALFORMED),
    (f"sha1:{SHA1.hex()}ff", MALFORMED), ("sha256:" + "A" * 52, UNSUPPORTED_ALGORITHM),
    ("md5:" + "a" * 32, UNSUPPORTED_ALGORITHM)])
def test_an_unusable_header_digest_says_why(value, reason):
    assert parse_payload_digest(value) == ("", reason)


def test_good_header_gives_the_digest_without_hashing():
    page, hashed = _page(_warc(KEEP))
    assert (page.digest, hashed) == (BASE32, [])
    assert page.payload_digest() == BASE32


def test_the_header_is_trusted_as_the_cdx_digest_is():
    """The header's digest is used as it is (the payload is not hashed to check it)."""
    other = base64.b32encode(hashlib.sha1(b"other").digest()).decode("ascii")
    page, hashed = _page(_warc(f"sha1:{other}"))
    assert (page.payload_digest(), hashed) == (other, [])


@pytest.mark.parametrize(("digest", "extra", "reason"), [
    (None, (), MISSING),
    ("sha1:not-a-digest", (), MALFORMED),
    ("sha256:" + "A" * 52, (), UNSUPPORTED_ALGORITHM),
    (KEEP, (("Content-Encoding", "gzip"),), ENCODED_PAYLOAD),
])
def test_missing_or_malformed_header_falls_back_to_hashing(digest, extra, reason):
    body = PAGE
    if extra:
        body = gzip.compress(PAGE, mtime=0)
    page, hashed = _page(_warc(digest, extra, body))
    assert (page.digest, hashed) == ("", [reason])
    assert page.content == PAGE
    assert page.payload_digest() == BASE32  # hashed: the same digest as before


def test_warc_source_counts_the_pages_it_hashed(tmp_path):
    (tmp_path / "a.warc.gz").write_bytes(_warc(KEEP))
    (tmp_path / "b.warc.gz").write_bytes(_warc(None))
    (tmp_path / "c.warc.gz").write_bytes(_warc("sha1:???"))
    with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        pages, results = p | ReadWarcPages(str(tmp_path / "*.warc.gz"))
        tallies = ([r[TALLY] for r in results] | beam.Flatten()
                   | beam.CombinePerKey(sum))
        assert_that(tallies, equal_to([("input.pages", 3),
                                       ("input.warc_digest_hashed.missing", 1),
                                       ("input.warc_digest_hashed.malformed", 1)]),
                    label="tallies")
        assert_that(pages | beam.Map(lambda page: page.payload_digest()),
                    equal_to([BASE32] * 3), label="digests")
