"""Beam sources of captured pages: the bundled sample, saved HTML files, WARC/ARC archives.

Each emits ``CapturedPage`` and accounts for what it could not read
(``transforms.core.accounting``). Damaged inputs are never half-read in silence: a compressed
page file cut short or corrupt (every compression Beam detects, zstd included), a page file or
WARC page decoding past ``max_decoded_bytes`` (``decoded_too_large``), and a WARC/ARC file
that is empty, not an archive, truncated (a record shorter than its ``Content-Length``, a gzip
member without its end) or corrupt, is counted and dead-lettered with a ``reason`` and how much
was read before the damage; a partial record is never emitted.
The Wayback source lives in ``transforms.sources.wayback``.
"""

from __future__ import annotations

import csv
import io
import posixpath
import re
import zlib
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from importlib import resources

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, rejected, tally
from transforms.core.inputs import beam_pattern
from transforms.sources.compressed import (
    CORRUPT_COMPRESSION,
    DECODED_TOO_LARGE,
    DECOMPRESSORS,
    TRUNCATED_COMPRESSION,
    UNSUPPORTED_COMPRESSION,
    damage_reason,
    decompress,
    read_decompressed,
    resolve_limit,
)
from transforms.sources.counters import (
    DECODED_TOO_LARGE_FILES,
    INPUT,
    INPUT_PAGES,
    NO_CAPTURE_URL,
    TRUNCATED_OR_CORRUPT_FILES,
    UNREADABLE_FILES,
    UNSUPPORTED_COMPRESSION_FILES,
    WARC_DECODED_TOO_LARGE_RECORDS,
    WARC_DIGEST_HASHED,
    WARC_EMPTY_FILES,
    WARC_NOT_ARCHIVE_FILES,
    WARC_SKIPPED,
    WARC_TRUNCATED_OR_CORRUPT_FILES,
    WARC_TRUNCATED_RECORDS,
)
from transforms.sources.pages import CapturedPage
from transforms.sources.warc_digest import header_digest

SAMPLE_PACKAGE = "pipelines"
SAMPLE_DIR = ("samples", "nlquad")

_SAVED_FROM = re.compile(rb"<!--\s*saved from url=\(\d+\)\s*(\S+?)\s*-->", re.I)
_WAYBACK_URL = re.compile(r"^https?://web\.archive\.org/web/(\d{14})[a-z_]*/(.+)$")
_TIMESTAMP_IN_NAME = re.compile(r"(?<!\d)((?:19|20)\d{12})(?!\d)")
_RECORD_SEPARATOR = 4  # CRLF CRLF may trail the last record of an uncompressed archive
_SNIFF_BYTES = 65536
_GZIP_MAGIC = b"\x1f\x8b"
_ARCHIVE_START = re.compile(
    rb"WARC/\d|\S+ \S+ \d{14}(?: \S+)* \d+\s*$")  # a WARC record or an ARC header line
_FILE_TALLIES = {"empty_archive": WARC_EMPTY_FILES, "not_an_archive": WARC_NOT_ARCHIVE_FILES,
                 DECODED_TOO_LARGE: DECODED_TOO_LARGE_FILES,
                 UNSUPPORTED_COMPRESSION: UNSUPPORTED_COMPRESSION_FILES}
#: the record-level tallies of a WARC page that ``iter_warc_pages`` dead-letters, by reason
_RECORD_TALLIES = {DECODED_TOO_LARGE: WARC_DECODED_TOO_LARGE_RECORDS}
_LINK_OR_META = re.compile(rb"<(link|meta)\b([^>]*)>", re.I)
_ATTRIBUTE = re.compile(rb"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")


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
    be a Wayback URL), the canonical link or og:url (``page_url_in_head``, in the first
    64 KiB); a 14-digit timestamp in the file name."""
    url, timestamp = "", ""
    head = content[:65536]
    saved = _SAVED_FROM.search(head)
    if saved:
        url = saved.group(1).decode("utf-8", "replace")
    else:
        url = page_url_in_head(head)
    wayback = _WAYBACK_URL.match(url)
    if wayback:
        timestamp, url = wayback.group(1), wayback.group(2)
    if not timestamp:
        in_name = _TIMESTAMP_IN_NAME.search(posixpath.basename(name))
        timestamp = in_name.group(1) if in_name else ""
    return url, timestamp


def _attributes(text: bytes) -> dict[str, str]:
    return {m.group(1).decode("ascii", "replace").lower():
            (m.group(2) or m.group(3) or m.group(4) or b"").decode("utf-8", "replace").strip()
            for m in _ATTRIBUTE.finditer(text)}


def page_url_in_head(head: bytes) -> str:
    """The page's own URL in its markup: ``<link rel="canonical" href>``, else the
    ``og:url`` meta tag's ``content`` (or ``value``), attributes in any order; "" if none."""
    og_url = ""
    for match in _LINK_OR_META.finditer(head):
        attributes = _attributes(match.group(2))
        if match.group(1).lower() == b"link":
            if "canonical" in attributes.get("rel", "").lower().split() and \
                    attributes.get("href"):
                return attributes["href"]
        elif not og_url and "og:url" in (attributes.get("property", "").lower(),
                                         attributes.get("name", "").lower()):
            og_url = attributes.get("content") or attributes.get("value") or ""
    return og_url


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
            yield tally(UNREADABLE_FILES)
            yield dead_letter(INPUT, error, url=url, timestamp=timestamp,
                              source=f"sample:{name}")
            return
        yield tally(INPUT_PAGES)
        yield CapturedPage(url, timestamp, content, f"sample:{name}")


class ReadSamplePages(beam.PTransform):
    """The pages bundled with the package (``--source sample``), read on the workers."""

    def expand(self, pbegin):
        result = (pbegin
                  | "SampleIndex" >> beam.Create(sorted(sample_index().items()))
                  | "ReadSample" >> beam.ParDo(_ReadSampleFile()).with_outputs(
                      *SIDE_OUTPUTS, main="main"))
        return result.main, [result]


class DamagedInputError(ValueError):
    """An input file that cannot be read (completely); ``reason`` names why for the tallies
    and dead letters: ``truncated_file`` / ``corrupt_file`` / ``decoded_too_large`` /
    ``unsupported_compression`` (page files),
    ``empty_archive``, ``not_an_archive``, ``truncated_record``, ``truncated_archive``,
    ``corrupt_archive`` (WARC/ARC)."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


class GzipCheck:
    """Follows the raw bytes of a (multi-member) gzip stream to tell, at its end, whether it
    was complete: Beam's and warcio's readers stop quietly at a cut or corrupt member."""

    def __init__(self):
        self._member = None
        self.error: zlib.error | None = None
        self.bytes_fed = 0

    def feed(self, data: bytes) -> None:
        """Decompress (and discard) the next raw bytes."""
        if self.error is not None:
            return
        self.bytes_fed += len(data)
        while data:
            if self._member is None:
                if not data.strip(b"\0"):  # zero padding after the last member
                    return
                self._member = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                self._member.decompress(data)
            except zlib.error as error:
                self.error = error
                return
            if not self._member.eof:
                return
            data = self._member.unused_data
            self._member = None

    def problem(self, what: str) -> DamagedInputError | None:
        """The damage seen so far, if any, with ``what`` naming the reasons (file, archive)."""
        if self.error is not None:
            return DamagedInputError(f"corrupt_{what}", f"corrupt gzip data: {self.error}")
        if self._member is not None:
            return DamagedInputError(
                f"truncated_{what}",
                f"gzip stream ends inside a member after {self.bytes_fed} bytes (truncated)")
        return None


_PAGE_REASONS = {TRUNCATED_COMPRESSION: "truncated_file", CORRUPT_COMPRESSION: "corrupt_file"}


def _page_damage(error: Exception, decoded: int) -> DamagedInputError:
    """The ``DamagedInputError`` of a page file's decoding error: ``truncated_file``,
    ``corrupt_file``, ``decoded_too_large`` or ``unsupported_compression``."""
    reason = damage_reason(error)
    detail = (f"stream ends after {decoded} bytes of content (truncated)"
              if reason == TRUNCATED_COMPRESSION else str(error))
    return DamagedInputError(_PAGE_REASONS.get(reason, reason), detail)


def decompress_checked(raw: bytes, compression: str,
                       max_decoded_bytes: int | None = None) -> bytes:
    """Decompress a whole (multi-stream) file of a compression type Beam names;
    ``DamagedInputError`` (``truncated_file``, ``corrupt_file``, ``decoded_too_large``)
    instead of the bytes before the damage."""
    data, error = decompress(raw, DECOMPRESSORS[compression], max_decoded_bytes)
    if error is not None:
        raise _page_damage(error, len(data))
    return data


def read_page_file(readable: fileio.ReadableFile, max_decoded_bytes: int | None = None) -> bytes:
    """A page file's bytes, decompressed by extension (every type Beam detects) and checked,
    never more than ``max_decoded_bytes`` (None: the default cap)."""
    data, error = read_decompressed(readable, max_decoded_bytes=max_decoded_bytes)
    if error is not None:
        raise _page_damage(error, len(data))
    return data


class _ReadHtmlFile(beam.DoFn):
    """ReadableFile -> CapturedPage; URL and timestamp from a sidecar ``index.tsv``."""

    def __init__(self, index_path: str | None, max_decoded_bytes: int | None = None):
        self.index_path = index_path
        self.max_decoded_bytes = max_decoded_bytes

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
            content = read_page_file(readable, self.max_decoded_bytes)
            index, index_dir = self._index_for(path)
            relative = posixpath.relpath(path, index_dir) if index_dir else path
            url, timestamp = index.get(relative) or index.get(posixpath.basename(path)) or (
                capture_from_content(path, content))
        except DamagedInputError as error:
            yield tally(_FILE_TALLIES.get(error.reason, TRUNCATED_OR_CORRUPT_FILES))
            yield dead_letter(INPUT, error, url="", timestamp="", source=path,
                              reason=error.reason, pages_read=0,
                              detail="no page emitted from a damaged or oversized file")
            return
        except Exception as error:  # noqa: BLE001 - an unreadable file must not stop the job
            yield tally(UNREADABLE_FILES)
            yield dead_letter(INPUT, error, url="", timestamp="", source=path,
                              reason="unreadable")
            return
        if not url:
            yield tally(NO_CAPTURE_URL)
            yield rejected("skipped_pages", {"url": "", "timestamp": timestamp, "source": path,
                                             "reason": "no_capture_url",
                                             "detail": "not in the index and no URL in the page"})
            return
        yield tally(INPUT_PAGES)
        yield CapturedPage(url, timestamp, content, path)


class ReadHtmlPages(beam.PTransform):
    """Saved pages matching a glob (any Beam filesystem), ``--source html``."""

    def __init__(self, pattern: str, index_path: str | None = None,
                 max_decoded_bytes: int | None = None):
        super().__init__()
        self.pattern = pattern
        self.index_path = index_path
        self.max_decoded_bytes = max_decoded_bytes  # per page file; None: the default cap

    def expand(self, pbegin):
        result = (pbegin
                  | "MatchHtml" >> fileio.MatchFiles(beam_pattern(self.pattern))
                  | "OpenHtml" >> fileio.ReadMatches(
                      compression=CompressionTypes.AUTO)
                  | "ReadHtml" >> beam.ParDo(
                      _ReadHtmlFile(self.index_path, self.max_decoded_bytes)).with_outputs(
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


class TruncatedArchiveError(DamagedInputError):
    """The archive ends in the middle of a record, or holds unread bytes after its records."""


class _SniffedStream:
    """A raw stream whose first bytes were already read (to sniff the format), fed to a
    ``GzipCheck`` as warcio reads it; ``tell`` counts from the start of the file."""

    def __init__(self, head: bytes, rest, check: GzipCheck | None):
        self._head, self._rest, self._check = head, rest, check
        self._position = 0
        if check is not None:
            check.feed(head)

    def read(self, size: int = -1) -> bytes:
        data = b""
        if self._position < len(self._head):
            stop = len(self._head) if size is None or size < 0 else self._position + size
            data = self._head[self._position:stop]
        wanted = -1 if size is None or size < 0 else size - len(data)
        if wanted:
            more = self._rest.read(wanted) if wanted > 0 else self._rest.read()
            if self._check is not None:
                self._check.feed(more)
            data += more
        self._position += len(data)
        return data

    def tell(self) -> int:
        return self._position


def sniff_archive(head: bytes, source: str) -> None:
    """Raise ``DamagedInputError`` (``empty_archive``, ``not_an_archive``, ``truncated_archive``,
    ``corrupt_archive``) unless ``head``, the first bytes of a file, starts like a WARC or ARC
    file (gzipped or not)."""
    if not head.strip():
        raise DamagedInputError("empty_archive", f"{source}: empty file")
    start, member = head, None
    if head.startswith(_GZIP_MAGIC):
        member = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            start = member.decompress(head, _SNIFF_BYTES)
        except zlib.error as error:
            raise DamagedInputError("corrupt_archive", f"corrupt gzip data: {error}") from None
    start = start.lstrip(b"\r\n\t ")
    if not start:
        if member is not None and member.eof:
            raise DamagedInputError("empty_archive", f"{source}: gzip data without content")
        if len(head) < _SNIFF_BYTES:
            raise DamagedInputError("truncated_archive", f"{source}: gzip stream cut short")
        return  # a first gzip member with no output yet: let warcio decide
    first_line = start.split(b"\n", 1)[0][:1024]
    if not _ARCHIVE_START.match(first_line):
        raise DamagedInputError(
            "not_an_archive",
            f"{source}: starts with neither a WARC record nor an ARC header: {first_line[:80]!r}")


def _drain(record) -> int:
    """Read the rest of a record; the bytes its ``Content-Length`` promised but the file lacks."""
    while record.raw_stream.read(65536):
        pass
    return max(getattr(record.raw_stream, "limit", 0) or 0, 0)


def _has_length(record) -> bool:
    """Content-Length is mandatory: a record without one was cut inside its headers."""
    length = record.rec_headers.get_header("Content-Length") or ""
    return record.length is not None and length.strip().isdigit()


def _short_record(source: str, offset: int, record, missing: int,
                  check: GzipCheck | None) -> TruncatedArchiveError:
    damage = check.problem("archive") if check is not None else None
    reason = "corrupt_archive" if damage and damage.reason == "corrupt_archive" else (
        "truncated_record")
    shortfall = (f"is {missing} bytes short of its Content-Length {record.length}"
                 if _has_length(record) else "ends inside its headers")
    error = TruncatedArchiveError(
        reason, f"{source}#{offset}: record {shortfall} (truncated or corrupt)")
    error.record = f"{source}#{offset}"
    return error


def iter_warc_pages(stream, source: str, size: int | None = None, *,
                    max_decoded_bytes: int | None = None, hashed: list[str] | None = None
                    ) -> Iterator[CapturedPage | tuple[str, ...]]:
    """Yield CapturedPage for HTML 200 responses, ``("skip", reason)`` for other responses
    and revisits (``source`` is ``<file>#<record offset>``), and
    ``("dead_letter", "decoded_too_large", record)`` for a page whose content is longer than
    ``max_decoded_bytes`` (None: the default cap; it is never held whole, and the next
    records are read).

    Raises ``DamagedInputError`` after the complete records were yielded: ``empty_archive`` and
    ``not_an_archive`` before any; ``truncated_record`` (never yielded) when a record is shorter
    than its ``Content-Length``; ``truncated_archive`` / ``corrupt_archive`` for a gzip stream cut
    inside a member or corrupt; and, when ``size`` (bytes of the file) is given,
    ``corrupt_archive`` if the records end before the file does. The error's ``records_read``
    attribute counts the complete records. A page's ``digest`` is its
    ``WARC-Payload-Digest`` header when usable (``warc_digest.header_digest``), else empty
    (its payload is hashed) and the reason appended to ``hashed`` before it is yielded.
    """
    from warcio.archiveiterator import ArchiveIterator

    head = stream.read(_SNIFF_BYTES)
    sniff_archive(head, source)
    check = GzipCheck() if head.startswith(_GZIP_MAGIC) else None
    records = ArchiveIterator(_SniffedStream(head, stream, check), arc2warc=True)
    count = 0
    limit = resolve_limit(max_decoded_bytes)
    try:
        for record in records:
            item = _warc_item(record, limit)
            if isinstance(item, CapturedPage) and not item.digest and hashed is not None:
                hashed.append(header_digest(record.rec_headers, record.http_headers)[1])
            missing = _drain(record)
            offset = records.get_record_offset()
            if missing or not _has_length(record):
                raise _short_record(source, offset, record, missing, check)
            count += 1
            if isinstance(item, CapturedPage):
                yield replace(item, source=f"{source}#{offset}")
            elif item == _OVERSIZED:
                yield "dead_letter", DECODED_TOO_LARGE, f"{source}#{offset}"
            elif item is not None:
                yield item
    except DamagedInputError as error:
        error.records_read = count
        raise
    except Exception as error:  # noqa: BLE001 - warcio fails in many ways on damaged bytes
        damage = (check.problem("archive") if check is not None else None) or (
            DamagedInputError("corrupt_archive", f"{source}: unreadable record: {error!r}"))
        damage.records_read = count
        raise damage from error
    damage = check.problem("archive") if check is not None else None
    if damage is None and count == 0:
        damage = DamagedInputError("truncated_archive",
                                   f"{source}: no complete record (truncated)")
    if damage is None and size is not None:
        consumed = records.get_record_offset() + records.get_record_length()
        slack = 0 if check is not None else _RECORD_SEPARATOR
        if size - consumed > slack:
            damage = TruncatedArchiveError(
                "corrupt_archive",
                f"{source}: records end at byte {consumed} of {size} (truncated or corrupt)")
    if damage is not None:
        damage.records_read = count
        raise damage


_OVERSIZED = ("oversized",)


def _warc_item(record, limit: int) -> CapturedPage | tuple[str, ...] | None:
    """The page (its ``source`` still to be set) or the skip reason of a response or revisit
    record, its content read (at most ``limit`` bytes: ``_OVERSIZED`` past it) but not
    drained; None for other record types."""
    if record.rec_type == "revisit":
        return "skip", "revisit_record"
    if record.rec_type != "response":
        return None
    headers = record.http_headers
    status = headers.get_statuscode() if headers else ""
    content_type = (headers.get_header("Content-Type") or "") if headers else ""
    if status != "200":
        return "skip", f"http_{status or 'unknown'}"
    if "html" not in content_type.lower():
        return "skip", "not_html"
    url = record.rec_headers.get_header("WARC-Target-URI") or ""
    timestamp = warc_timestamp(record.rec_headers.get_header("WARC-Date") or "")
    content = record.content_stream().read(limit + 1)
    if len(content) > limit:
        return _OVERSIZED
    digest, _ = header_digest(record.rec_headers, headers)
    return CapturedPage(url, timestamp, content, "", content_type, digest)


class _ReadWarcFile(beam.DoFn):
    def __init__(self, max_decoded_bytes: int | None = None):
        self.max_decoded_bytes = max_decoded_bytes

    def process(self, readable: fileio.ReadableFile):
        path = readable.metadata.path
        pages = 0
        hashed: list[str] = []
        try:
            with readable.open(compression_type=CompressionTypes.UNCOMPRESSED) as stream:
                for item in iter_warc_pages(stream, path, readable.metadata.size_in_bytes,
                                            max_decoded_bytes=self.max_decoded_bytes,
                                            hashed=hashed):
                    while hashed:
                        yield tally(WARC_DIGEST_HASHED.member(hashed.pop()))
                    if isinstance(item, CapturedPage):
                        pages += 1
                        yield tally(INPUT_PAGES)
                        yield item
                    elif item[0] == "dead_letter":
                        yield tally(_RECORD_TALLIES[item[1]])
                        yield dead_letter(INPUT, f"page content over the cap of {path}",
                                          url="", timestamp="", source=path, reason=item[1],
                                          record=item[2])
                    else:
                        yield tally(WARC_SKIPPED.member(item[1]))
        except DamagedInputError as error:
            if error.reason == "truncated_record":
                yield tally(WARC_TRUNCATED_RECORDS)
            yield tally(_FILE_TALLIES.get(error.reason, WARC_TRUNCATED_OR_CORRUPT_FILES))
            yield self._dead_letter(path, error, error.reason, pages,
                                    getattr(error, "records_read", None))
        except Exception as error:  # noqa: BLE001 - a damaged archive must not stop the job
            yield tally(WARC_TRUNCATED_OR_CORRUPT_FILES)
            yield self._dead_letter(path, error, "corrupt_archive", pages, None)

    @staticmethod
    def _dead_letter(path: str, error: Exception, reason: str, pages: int,
                     records: int | None):
        counted = "" if records is None else f" ({records} complete records)"
        return dead_letter(INPUT, error, url="", timestamp="", source=path, reason=reason,
                           record=getattr(error, "record", ""), pages_read=pages,
                           records_read=records,
                           detail=f"archive ended after {pages} HTML pages were read{counted}")


class ReadWarcPages(beam.PTransform):
    """HTML responses from WARC/ARC files (gzipped or not) matching a glob, ``--source warc``."""

    def __init__(self, pattern: str, max_decoded_bytes: int | None = None):
        super().__init__()
        self.pattern = pattern
        self.max_decoded_bytes = max_decoded_bytes  # per page (record content)

    def expand(self, pbegin):
        result = (pbegin
                  | "MatchWarc" >> fileio.MatchFiles(beam_pattern(self.pattern))
                  | "OpenWarc" >> fileio.ReadMatches(compression=CompressionTypes.UNCOMPRESSED)
                  | "ReadWarc" >> beam.ParDo(_ReadWarcFile(self.max_decoded_bytes)).with_outputs(
                      *SIDE_OUTPUTS, main="main"))
        return result.main, [result]
