"""The refresh sidecar of an NLQuAD release: ``refresh/captures/captures-*.jsonl``.

Every build writes one JSON line per document it kept (a capture that was parsed, won
deduplication and reached question extraction, with or without questions), sorted and
sharded like the splits so the same documents give the same bytes. It is no table (no
Parquet), and the manifest checksums it like every file. A refresh (``--previous``) reads it
to know, for the previous release's documents:

* the digest of their capture: the key of "unchanged" (``transforms.nlquad.capture_keys``);
* what deduplication compares (NLQuAD §3, duplicates removed): the article's asset key and
  publication time, its capture, and the fingerprint of its text;
* the fingerprints of its paragraphs of at least ``--boilerplate-min-words`` words, so the
  corpus-wide count of repeated paragraphs (NLQuAD §3, templates removed) still covers the
  documents it does not parse again;
* the length statistics of a document that one of its rows cannot give (NLQuAD Table 2:
  per-document values, and sentence counts, which need the paragraph boundaries).

A carried document's line is written again as it was read. A sidecar file is read a line
at a time, each line at most ``MAX_LINE_BYTES``; a longer line, or one that is no document
(not a JSON object, a field no build writes, a field missing) is a damaged release (exit 5)
naming the file and the line. A refresh passes the capture ids of this run's units
(``wanted``): a line whose capture this run has not is dropped as it is read, so what goes on
(into the join of ``transforms.nlquad.refresh``) is bounded by the run, not by the sidecar.
The Beam counters ``METRICS`` / ``LINES_READ`` and ``DOCUMENTS_WANTED`` say how many lines were
read and how many went on (live monitoring only: they are not in ``stats.json``).
"""

from __future__ import annotations

import json
from collections.abc import Container, Iterator, Mapping
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, NamedTuple

import apache_beam as beam
from apache_beam.metrics import Metrics

from transforms.nlquad.capture_keys import capture_id
from transforms.release import ReleaseTarget, WriteShards
from transforms.release.formats import jsonl_line
from transforms.release.refresh.checked_read import (
    Release,
    bounded_lines,
    open_file,
    release_path,
)
from transforms.release.refresh.previous import PreviousRelease
from transforms.release.shards import ensure_group_file
from transforms.release.verify import DamagedReleaseError

DIRECTORY = "refresh"  # a release directory, so no split may have this name
GROUP = "captures"
PREFIX = f"{DIRECTORY}/{GROUP}/"
ROWS_PER_FILE = 50_000  # documents per sidecar file (about 1 KB each)
MAX_LINE_BYTES = 8 << 20  # a sidecar line read back, at most (one document: about 1 KB)
METRICS = "qa_datasets.nlquad.sidecar"  # Beam counters of a refresh's sidecar read
LINES_READ = "lines_read"  # every document line read
DOCUMENTS_WANTED = "documents_wanted"  # lines of a capture this run has: they reach the join


@dataclass(frozen=True)
class CapturedDocument:
    """One sidecar line: a kept document, by the capture it was built from."""

    capture_url: str
    capture_timestamp: str
    digest: str  # base32 SHA-1 of the capture's payload, as the Wayback CDX gives it
    document_id: str
    asset_key: str
    canonical_url: str
    published: str
    is_amp: bool
    text: str  # filters.bbc.boilerplate.document_fingerprint of its paragraphs
    paragraphs: tuple[str, ...]  # distinct paragraph fingerprints (long enough to count)
    split: str
    questions: int  # rows it made
    lengths: Mapping[str, int] = field(default_factory=dict)  # per-document statistics
    answer_sentences: tuple[int, ...] = ()  # sentences of each kept answer

    @property
    def key(self) -> str:
        """The id of its capture (``capture_keys.capture_id``)."""
        return capture_id(self.capture_url, self.capture_timestamp)

    def text_fingerprint(self) -> str:
        """What content deduplication compares (as ``ArticleRecord.text_fingerprint``)."""
        return self.text

    def to_json(self) -> dict[str, Any]:
        """The sidecar line's object (tuples are written as JSON arrays)."""
        return dict(vars(self))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CapturedDocument:
        """A sidecar line's object read back."""
        return cls(**{**data, "paragraphs": tuple(data["paragraphs"]),
                      "answer_sentences": tuple(data.get("answer_sentences", ()))})

    def __reduce__(self) -> tuple[type, tuple]:
        """Pickled as its values in field order: Beam codes a carried document at each stage
        boundary it crosses, and the default pickle names every field (a third of the time
        to encode, four fifths of the bytes)."""
        return CapturedDocument, tuple(getattr(self, name) for name in _FIELD_ORDER)


def sidecar_files(previous: PreviousRelease) -> list[str]:
    """The release-relative sidecar files of a previous release (none when it was built
    before releases had one)."""
    return [name for name in previous.all_files
            if name.startswith(PREFIX) and name.endswith(".jsonl")]


_FIELD_ORDER = tuple(f.name for f in fields(CapturedDocument))
FIELDS = frozenset(_FIELD_ORDER)
REQUIRED = frozenset(f.name for f in fields(CapturedDocument)
                     if f.default is MISSING and f.default_factory is MISSING)


class SidecarLineTooLong(DamagedReleaseError):
    """A sidecar line longer than ``MAX_LINE_BYTES``: no build writes one (exit 5)."""


class SidecarLineDamaged(DamagedReleaseError):
    """A sidecar line that is no ``CapturedDocument``: no build writes one (exit 5)."""


def _damaged(where: str, what: str) -> SidecarLineDamaged:
    return SidecarLineDamaged(f"{where} {what}, which no build writes (a sidecar line is one "
                              "document): the previous release is damaged")


def parse_line(line: bytes, where: str) -> dict[str, Any]:
    """A sidecar line's object, checked to hold the fields of a ``CapturedDocument`` and
    no other (``where`` names the file and the line in ``SidecarLineDamaged``)."""
    try:
        data = json.loads(line)
    except ValueError as error:
        raise _damaged(where, f"is not JSON ({error})") from None
    if not isinstance(data, dict):
        raise _damaged(where, f"is a JSON {type(data).__name__}, not an object")
    unknown, missing = sorted(set(data) - FIELDS), sorted(REQUIRED - set(data))
    if unknown or missing:
        raise _damaged(where, "has " + "; ".join(
            [*([f"fields no document has: {', '.join(unknown)}"] if unknown else []),
             *([f"no {', '.join(missing)}"] if missing else [])]))
    if not (isinstance(data["capture_url"], str) and isinstance(data["capture_timestamp"], str)):
        raise _damaged(where, "has a capture_url or capture_timestamp that is no string")
    return data


def document_of(data: Mapping[str, Any], where: str) -> CapturedDocument:
    """The ``CapturedDocument`` of a checked line's object (``parse_line``); a value of the
    wrong shape is ``SidecarLineDamaged``."""
    try:
        return CapturedDocument.from_json(data)
    except (TypeError, ValueError) as error:
        raise _damaged(where, f"has a value of the wrong type ({error})") from None


def sidecar_lines(handle: Any, label: str, max_line_bytes: int = MAX_LINE_BYTES
                  ) -> Iterator[bytes]:
    """The lines of a sidecar file, each at most ``max_line_bytes`` in memory
    (``checked_read.bounded_lines``); a longer line raises ``SidecarLineTooLong`` naming
    ``label`` and the line number."""
    return bounded_lines(handle, max_line_bytes, lambda number: SidecarLineTooLong(
        f"{label}: line {number} is longer than {max_line_bytes} bytes, which no "
        "build writes (a sidecar line is one document, about 1 KB): the previous "
        "release is damaged"))


def _checked_lines(name: str, version_dir: Release, wanted: Container[str] | None
                   ) -> Iterator[tuple[dict[str, Any], bytes, str]]:
    """``(object, line, where)`` of every document line of one sidecar file (of the wanted
    capture ids only, when given), see ``read_sidecar_file``."""
    label = f"{release_path(version_dir)}: {name}"
    read, kept = Metrics.counter(METRICS, LINES_READ), Metrics.counter(METRICS, DOCUMENTS_WANTED)
    with open_file(version_dir, name) as handle:
        for number, line in enumerate(sidecar_lines(handle, label, MAX_LINE_BYTES), 1):
            if not line.strip():
                continue
            where = f"{label}: line {number}"
            data = parse_line(line, where)
            read.inc()
            if wanted is None or capture_id(data["capture_url"],
                                            data["capture_timestamp"]) in wanted:
                kept.inc()
                yield data, line, where


def read_sidecar_file(name: str, version_dir: Release,
                      wanted: Container[str] | None = None) -> Iterator[CapturedDocument]:
    """The documents of one sidecar file of the release at ``version_dir``, streamed a line
    at a time (``sidecar_lines``: memory bounded by a line, not by the file) and checked
    against its verified manifest at the end (``checked_read.open_file``). Every line is
    checked (``parse_line``); with ``wanted`` (capture ids) only the documents of those
    captures are yielded, the others dropped as they are read."""
    for data, _, where in _checked_lines(name, version_dir, wanted):
        yield document_of(data, where)


class SidecarDocument(NamedTuple):
    """A previous sidecar's document, and the line it is written as again when carried."""

    document: CapturedDocument
    line: bytes

    @property
    def digest(self) -> str:
        return self.document.digest


def sidecar_row(document: CapturedDocument) -> tuple[str, bytes]:
    """What ``WriteSidecar`` writes of a document: ``(capture id, its line)``."""
    return document.key, jsonl_line(document.to_json())


def _line_again(data: Mapping[str, Any], line: bytes, document: CapturedDocument) -> bytes:
    """The line a carried document is written as: the line read, byte for byte, when it
    holds every field (what this version writes, so no field of an older version's line
    goes missing), else the document's line as this version writes it."""
    if len(data) == len(FIELDS) and line.endswith(b"}\n"):
        return line
    return sidecar_row(document)[1]


def keyed_documents(name: str, version_dir: Release, wanted: Container[str]
                    ) -> Iterator[tuple[str, SidecarDocument]]:
    """``(capture id, SidecarDocument)`` of the documents of ``read_sidecar_file`` (what the
    refresh's join, ``capture_join.ReadBatches``, reads): a carried document is written
    again from its line (``_line_again``), not from its object."""
    for data, line, where in _checked_lines(name, version_dir, wanted):
        document = document_of(data, where)
        yield document.key, SidecarDocument(document, _line_again(data, line, document))


class WriteSidecar(beam.PTransform):
    """Write documents into ``<staging>/refresh/captures/``, sorted by capture id; emits
    what ``WriteShards`` emits. A document is a ``CapturedDocument`` (made by this run), or
    a carried one's ``(capture id, line)`` (``SidecarDocument``'s line, as
    ``capture_join.decide_bucket`` emits it): its line read from the previous sidecar is
    not parsed into an object and dumped again."""

    def __init__(self, staging_dir: str):
        super().__init__()
        self.staging_dir = staging_dir

    def expand(self, documents):
        return (documents
                | "ToLines" >> beam.Map(_to_line)
                | "WriteLines" >> WriteShards(
                    self.staging_dir, _capture_of_line, _joined_lines, "jsonl",
                    subdir=DIRECTORY, max_rows_per_shard=ROWS_PER_FILE))


def _to_line(document: CapturedDocument | tuple[str, bytes]) -> tuple[str, tuple[str, bytes]]:
    return GROUP, document if isinstance(document, tuple) else sidecar_row(document)


def _capture_of_line(row: tuple[str, bytes]) -> str:
    return row[0]


def _joined_lines(rows: list[tuple[str, bytes]], schema: Any = None) -> bytes:
    return b"".join(line for _, line in rows)


def ensure_sidecar(target: ReleaseTarget) -> None:
    """An empty sidecar file when the run kept no document (before publishing), so a
    release always says which captures it has, also when it has none."""
    ensure_group_file(target.staging_dir, DIRECTORY, GROUP, "jsonl")
