"""A refresh of NLQuAD read from WARC files (``--source warc --previous``): pages whose
WARC-Payload-Digest header is usable are keyed by it, the others hashed (and counted); only
new captures are read again for their content; the release is the full rebuild's, byte for
byte, and the digests are those the previous release recorded by hashing."""

from __future__ import annotations

import io
import re
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from tests.pipelines.test_build_nlquad_refresh import INDEX, NEW, SAMPLE, build, data_files


def _warc(path: Path, rows: list[list[str]], header: bool) -> None:
    """The sample pages of ``rows`` as one gzip-less WARC of responses; ``header``: keep
    warcio's WARC-Payload-Digest (else the records have none)."""
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=False)
    for name, url, timestamp in rows:
        date = (f"{timestamp[:4]}-{timestamp[4:6]}-{timestamp[6:8]}T{timestamp[8:10]}:"
                f"{timestamp[10:12]}:{timestamp[12:14]}Z")
        headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")],
                                   protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(
            url, "response", payload=io.BytesIO((SAMPLE / "pages" / name).read_bytes()),
            http_headers=headers, warc_headers_dict={"WARC-Date": date}))
    data = buffer.getvalue()
    if not header:
        data = re.sub(rb"WARC-Payload-Digest: [^\r]*\r\n", b"", data)
    path.write_bytes(data)


def _source(directory: Path) -> list[str]:
    return ["--source", "warc", "--input", str(directory / "*.warc")]


def test_a_warc_refresh_writes_the_rebuilds_files(tmp_path):
    old = [row for row in INDEX if row[0] != NEW]
    first, second = tmp_path / "v1", tmp_path / "v2"
    first.mkdir()
    second.mkdir()
    _warc(first / "a.warc", old, header=False)  # the previous release hashed every page
    _warc(second / "a.warc", old, header=True)  # the same pages, now with their header
    _warc(second / "b.warc", [row for row in INDEX if row[0] == NEW], header=False)
    root = tmp_path / "r"
    previous = build(root, "1", *_source(first))
    assert previous["stats"]["counts"]["input"]["warc_digest_hashed.missing"] == len(old)
    refreshed = build(root, "2", *_source(second), "--previous", "auto")
    rebuilt = build(tmp_path / "rebuild", "2", *_source(second))
    refresh = refreshed["stats"]["refresh"]
    assert (refresh["recomputed"], refresh["new"] > 0, refresh["carried"] > 0) == (0, True, True)
    assert refreshed["stats"]["counts"]["input"]["warc_digest_hashed.missing"] == 1
    assert data_files(Path(refreshed["path"])) == data_files(Path(rebuilt["path"]))
