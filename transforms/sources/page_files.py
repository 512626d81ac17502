"""Beam sources of captured pages: the bundled sample, saved HTML files, WARC/ARC archives.

Each emits ``CapturedPage`` and accounts for what it could not read
(``transforms.core.accounting``).
The Wayback source lives in ``transforms.sources.wayback``.
"""

from __future__ import annotations

import csv
import io
import posixpath
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib import resources

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, rejected, tally
from transforms.sources.pages import CapturedPage

SAMPLE_PACKAGE = "pipelines"
SAMPLE_DIR = ("samples", "nlquad")

_SAVED_FROM = re.compile(rb"<!--\s*saved from url=\(\d+\)\s*(\S+?)\s*-->", re.I)
_WAYBACK_URL = re.compile(r"^https?://web\.archive\.org/web/(\d{14})[a-z_]*/(.+)$")
_TIMESTAMP_IN_NAME = re.compile(r"(?<!\d)((?:19|20)\d{12})(?!\d)")
_RECORD_SEPARATOR = 4  # CRLF CRLF may trail the last record of an uncompressed archive
_CANONICAL = re.compile(
    rb"""<link[^>]+rel=["']canonical["'][^>]*href=["']([^"']+)["']"""
    rb"""|<meta[^>]+property=["']og:url["'][^>]*content=["']([^"']+)["']""", re.I)


def read_index(text: str) -> dict[str, tuple[str, str]]:
    """Parse a sidecar index: TSV with header ``file<TAB>url<TAB>timestamp``."""
    rows = csv.DictReader(io.StringIO(text), delimiter="\t")
    missing = {"file", "url"} - set(rows.fieldnames or ())
    if missing:
        raise ValueError(f"index needs columns file, url[, timestamp]; missing {sorted(missing)}")
    return {row["file"]: (row["url"].strip(), (row.get("timestamp") or "").strip())
            for row in rows if row.get("file")}


def capture_from_content(name: str, content: bytes) -> tuple[str, str]:
    """Capture URL and timestamp when no index names them: a "saved from" comment (which may
    be a Wayback URL), the canonical link or og:url; a 14-digit timestamp in the file name."""
    url, timestamp = "", ""
    head = content[:65536]
    saved = _SAVED_FROM.search(head)
    if saved:
        url = saved.group(1).decode("utf-8", "replace")
    else:
        canonical = _CANONICAL.search(head)
        if canonical:
            url = (canonical.group(1) or canonical.group(2)).decode("utf-8", "replace")
    wayback = _WAYBACK_URL.match(url)
    if wayback:
        timestamp, url = wayback.group(1), wayback.group(2)
    if not timestamp:
        in_name = _TIMESTAMP_IN_NAME.search(posixpath.basename(name))
        timestamp = in_name.group(1) if in_name else ""
    return url, timestamp


def sample_index() -> dict[str, tuple[str, str]]:
    """The bundled sample's index (file -> (url, timestamp))."""
    base = resources.files(SAMPLE_PACKAGE).joinpath(*SAMPLE_DIR)
    return read_index(base.joinpath("index.tsv").read_text(encoding="utf-8"))


class _ReadSampleFile(beam.DoFn):
    def process(self, item: tuple[str, tuple[str, str]]):
        name, (url, timestamp) = item
        try:
            base = resources.files(SAMPLE_PACKAGE).joinpath(*SAMPLE_DIR, "pages")
            content = base.joinpath(name).read_bytes()
        except OSError as error:
            yield dead_letter("input", error, url=url, timestamp=timestamp,
                              source=f"sample:{name}")
            return
        yield tally("input", "pages")
        yield CapturedPage(url, timestamp, content, f"sample:{name}")


class ReadSamplePages(beam.PTransform):
    """The pages bundled with the package (``--source sample``), read on the workers."""

    def expand(self, pbegin):
        result = (pbegin
                  | "SampleIndex" >> beam.Create(sorted(sample_index().items()))
                  | "ReadSample" >> beam.ParDo(_ReadSampleFile()).with_outputs(
                      *SIDE_OUTPUTS, main="main"))
        return result.main, [result]


class _ReadHtmlFile(beam.DoFn):
    """ReadableFile -> CapturedPage; URL and timestamp from a sidecar ``index.tsv``."""

    def __init__(self, index_path: str | None):
        self.index_path = index_path

    def setup(self):
        self._indexes: dict[str, dict[str, tuple[str, str]]] = {}

    def _index_for(self, path: str) -> tuple[dict[str, tuple[str, str]], str]:
        index_path = self.index_path or posixpath.join(posixpath.dirname(path), "index.tsv")
        if index_path not in self._indexes:
            if FileSystems.exists(index_path):
                with FileSystems.open(index_path,
                                      compression_type=CompressionTypes.UNCOMPRESSED) as f:
                    self._indexes[index_path] = read_index(f.read().decode("utf-8"))
            else:
                self._indexes[index_path] = {}
        return self._indexes[index_path], posixpath.dirname(index_path)

    def process(self, readable: fileio.ReadableFile):
        path = readable.metadata.path
        try:
            content = readable.read()
            index, index_dir = self._index_for(path)
            relative = posixpath.relpath(path, index_dir) if index_dir else path
            url, timestamp = index.get(relative) or index.get(posixpath.basename(path)) or (
                capture_from_content(path, content))
        except Exception as error:  # noqa: BLE001 - an unreadable file must not stop the job
            yield dead_letter("input", error, url="", timestamp="", source=path)
            return
        if not url:
            yield tally("input", "skipped.no_capture_url")
            yield rejected("skipped_pages", {"url": "", "timestamp": timestamp, "source": path,
                                             "reason": "no_capture_url",
                                             "detail": "not in the index and no URL in the page"})
            return
        yield tally("input", "pages")
        yield CapturedPage(url, timestamp, content, path)


class ReadHtmlPages(beam.PTransform):
    """Saved pages matching a glob (any Beam filesystem), ``--source html``."""

    def __init__(self, pattern: str, index_path: str | None = None):
        super().__init__()
        self.pattern = pattern
        self.index_path = index_path

    def expand(self, pbegin):
        result = (pbegin
                  | "MatchHtml" >> fileio.MatchFiles(self.pattern)
                  | "OpenHtml" >> fileio.ReadMatches(
                      compression=CompressionTypes.AUTO)
                  | "ReadHtml" >> beam.ParDo(_ReadHtmlFile(self.index_path)).with_outputs(
                      *SIDE_OUTPUTS, main="main"))
        return result.main, [result]


def warc_timestamp(warc_date: str) -> str:
    """``2017-03-16T21:07:02Z`` (WARC-Date) or ``20170316210702`` (ARC) -> 14 digits."""
    digits = re.sub(r"\D", "", warc_date or "")
    if len(digits) >= 14:
        return digits[:14]
    try:
        moment = datetime.fromisoformat(warc_date.replace("Z", "+00:00"))
    except ValueError:
        return digits.ljust(14, "0") if digits else ""
    return moment.astimezone(UTC).strftime("%Y%m%d%H%M%S")


class TruncatedArchiveError(ValueError):
    """The archive ends in the middle of a record (or holds no readable record)."""


def iter_warc_pages(stream, source: str,
                    size: int | None = None) -> Iterator[CapturedPage | tuple[str, str]]:
    """Yield CapturedPage for HTML 200 responses, ``("skip", reason)`` for other records.

    warcio stops quietly at a truncated gzip member or record; when ``size`` (bytes of the
    file) is given, an archive whose records end before the file does raises
    ``TruncatedArchiveError`` after the complete records were yielded.
    """
    from warcio.archiveiterator import ArchiveIterator

    records = ArchiveIterator(stream, arc2warc=True)
    for record in records:
        if record.rec_type == "revisit":
            yield "skip", "revisit_record"
            continue
        if record.rec_type != "response":
            continue
        headers = record.http_headers
        status = headers.get_statuscode() if headers else ""
        content_type = (headers.get_header("Content-Type") or "") if headers else ""
        if status != "200":
            yield "skip", f"http_{status or 'unknown'}"
            continue
        if "html" not in content_type.lower():
            yield "skip", "not_html"
            continue
        url = record.rec_headers.get_header("WARC-Target-URI") or ""
        timestamp = warc_timestamp(record.rec_headers.get_header("WARC-Date") or "")
        content = record.content_stream().read()
        source_id = f"{source}#{records.get_record_offset()}"
        yield CapturedPage(url, timestamp, content, source_id, content_type)
    if size is not None:
        consumed = records.get_record_offset() + records.get_record_length()
        slack = 0 if source.endswith(".gz") else _RECORD_SEPARATOR
        if size - consumed > slack:
            raise TruncatedArchiveError(
                f"{source}: records end at byte {consumed} of {size} (truncated or corrupt)")


class _ReadWarcFile(beam.DoFn):
    def process(self, readable: fileio.ReadableFile):
        path = readable.metadata.path
        read = 0
        try:
            with readable.open(compression_type=CompressionTypes.UNCOMPRESSED) as stream:
                for item in iter_warc_pages(stream, path, readable.metadata.size_in_bytes):
                    if isinstance(item, CapturedPage):
                        read += 1
                        yield tally("input", "pages")
                        yield item
                    else:
                        yield tally("input", f"warc_skipped.{item[1]}")
        except Exception as error:  # noqa: BLE001 - a truncated archive must not stop the job
            yield tally("input", "warc_truncated_or_corrupt_files")
            yield dead_letter("input", error, url="", timestamp="", source=path,
                              detail=f"archive ended after {read} HTML pages were read")


class ReadWarcPages(beam.PTransform):
    """HTML responses from WARC/ARC files (gzipped or not) matching a glob, ``--source warc``."""

    def __init__(self, pattern: str):
        super().__init__()
        self.pattern = pattern

    def expand(self, pbegin):
        result = (pbegin
                  | "MatchWarc" >> fileio.MatchFiles(self.pattern)
                  | "OpenWarc" >> fileio.ReadMatches(compression=CompressionTypes.UNCOMPRESSED)
                  | "ReadWarc" >> beam.ParDo(_ReadWarcFile()).with_outputs(
                      *SIDE_OUTPUTS, main="main"))
        return result.main, [result]
