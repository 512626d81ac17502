"""The skipped captures of an NLQuAD release: ``refresh/skipped/skipped-*.jsonl``.

A capture the parser skips (``stages.ParsePages``: a URL that is no article, or a page the
parser skips with a named reason) makes no document, so the refresh sidecar
(``transforms.nlquad.sidecar``) has no line for it. Every build also writes one JSON line per
such capture: its URL, timestamp and payload digest, the skip reason and detail, and the
decoding method the parser counted before it skipped (``""`` when none). The outcome depends
on the page's bytes and URL alone (and on ``--layout``, an option a refresh refuses to
change), so a refresh (``--previous``) that has a page with the same URL, timestamp and
digest takes the outcome from this file instead of parsing the page again
(``transforms.nlquad.refresh``): it counts and rejects it exactly as ``ParsePages`` would
(``carried_skip``), and writes the line again.

Only parser skips are recorded: a text duplicate depends on the other articles of the run, and
a dead letter may not happen again, so both are parsed again at every refresh. The lines are
sorted by capture id, digest and reason, and sharded like the sidecar, so the same skips give
the same bytes. A line that is no outcome is a damaged release (exit 5).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

import apache_beam as beam

from transforms.core.accounting import rejected, tally
from transforms.nlquad.capture_keys import SEPARATOR, capture_id
from transforms.nlquad.counters import ENCODING, PAGES_READ, PAGES_SKIPPED, SKIPS_CARRIED
from transforms.nlquad.sidecar import DIRECTORY, MAX_LINE_BYTES, SidecarLineDamaged, sidecar_lines
from transforms.release import WriteShards, jsonl_bytes
from transforms.release.refresh.checked_read import Release, open_file, release_path
from transforms.release.refresh.previous import PreviousRelease
from transforms.sources.pages import CapturedPage

GROUP = "skipped"
PREFIX = f"{DIRECTORY}/{GROUP}/"
ROWS_PER_FILE = 200_000  # skipped captures per file (about 200 bytes each)
SKIPPED_PAGES = "skipped_pages"  # the rejected records' group (as ParsePages writes it)


@dataclass(frozen=True)
class SkipOutcome:
    """One line of the skipped captures: what ``ParsePages`` made of a capture it skipped."""

    capture_url: str
    capture_timestamp: str
    digest: str  # CapturedPage.payload_digest of the capture
    reason: str
    detail: str
    encoding: str  # the decoding method counted (a key of counters.ENCODING), or ""

    @property
    def key(self) -> str:
        """The id of its capture (``capture_keys.capture_id``)."""
        return capture_id(self.capture_url, self.capture_timestamp)

    def sort_key(self) -> str:
        """Where its line goes in the files (ties of one capture id broken by the rest)."""
        return SEPARATOR.join((self.key, self.digest, self.reason, self.detail, self.encoding))

    def __reduce__(self) -> tuple[type, tuple]:
        """Pickled as its values in field order (as ``sidecar.CapturedDocument``)."""
        return SkipOutcome, tuple(getattr(self, name) for name in FIELDS)


FIELDS = tuple(f.name for f in fields(SkipOutcome))


def skip_outcome(page: CapturedPage, reason: str, detail: str, encoding: str) -> SkipOutcome:
    """The outcome of a page ``ParsePages`` skipped."""
    return SkipOutcome(page.url, page.timestamp, page.payload_digest(), reason, detail, encoding)


def carried_skip(page: CapturedPage, outcome: SkipOutcome):
    """What ``ParsePages`` yields for ``page`` when it skips it as ``outcome`` says (its
    counts and its rejected record), without parsing it, and ``carried.skipped_pages``."""
    yield tally(PAGES_READ)
    if outcome.encoding:
        yield tally(ENCODING[outcome.encoding])
    yield tally(PAGES_SKIPPED.member(outcome.reason))
    yield rejected(SKIPPED_PAGES, {**page.describe(), "reason": outcome.reason,
                                   "detail": outcome.detail})
    yield tally(SKIPS_CARRIED)


def outcome_files(previous: PreviousRelease) -> list[str]:
    """The release-relative skipped-capture files of a previous release (none when it was
    built before releases had them: its skipped pages are then parsed again)."""
    return [name for name in previous.all_files
            if name.startswith(PREFIX) and name.endswith(".jsonl")]


def parse_outcome(line: bytes, where: str) -> SkipOutcome:
    """A line's ``SkipOutcome``; anything else is ``SidecarLineDamaged`` naming ``where``."""
    try:
        data = json.loads(line)
    except ValueError as error:
        raise SidecarLineDamaged(f"{where} is not JSON ({error}): the previous release is "
                                 "damaged") from None
    if (not isinstance(data, dict) or sorted(data) != sorted(FIELDS)
            or not all(isinstance(value, str) for value in data.values())
            or (data["encoding"] and data["encoding"] not in ENCODING)):
        raise SidecarLineDamaged(f"{where} is no skipped capture (an object of the strings "
                                 f"{', '.join(FIELDS)}), which no build writes: the previous "
                                 "release is damaged")
    return SkipOutcome(**data)


def read_outcome_file(name: str, version_dir: Release) -> Iterator[SkipOutcome]:
    """The outcomes of one file of the release at ``version_dir``, a line at a time, checked
    against its verified manifest at the end (``checked_read.open_file``)."""
    label = f"{release_path(version_dir)}: {name}"
    with open_file(version_dir, name) as handle:
        for number, line in enumerate(sidecar_lines(handle, label, MAX_LINE_BYTES), 1):
            if line.strip():
                yield parse_outcome(line, f"{label}: line {number}")


def keyed_outcomes(name: str, version_dir: Release) -> Iterator[tuple[str, SkipOutcome]]:
    """``(capture id, SkipOutcome)`` of ``read_outcome_file`` (what the refresh's join,
    ``capture_join.ReadBatches``, reads)."""
    for outcome in read_outcome_file(name, version_dir):
        yield outcome.key, outcome


def outcome_json(outcome: SkipOutcome) -> dict[str, Any]:
    """The line's object."""
    return dict(vars(outcome))


def _sort_key(line: Mapping[str, Any]) -> str:
    return SkipOutcome(**line).sort_key()


class WriteOutcomes(beam.PTransform):
    """Write ``SkipOutcome`` into ``<staging>/refresh/skipped/``; emits what ``WriteShards``
    emits (no file when there is no skipped capture)."""

    def __init__(self, staging_dir: str):
        super().__init__()
        self.staging_dir = staging_dir

    def expand(self, outcomes):
        return (outcomes
                | "ToLines" >> beam.Map(lambda outcome: (GROUP, outcome_json(outcome)))
                | "WriteLines" >> WriteShards(self.staging_dir, _sort_key, jsonl_bytes, "jsonl",
                                              subdir=DIRECTORY, max_rows_per_shard=ROWS_PER_FILE))
