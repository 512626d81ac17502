"""Read the pages of a search corpus in parallel, then build the BM25 index on one machine.

Beam reads and cleans the pages (over dump files in parallel) into a staged ``_extracted``
group of URL-sorted shards of at most ``EXTRACT_ROWS_PER_SHARD`` pages; ``index_extracted``
streams them, shard by shard in name order, into ``docs/``, ``bm25/`` and ``pages/`` when the
release is published. Memory stays bounded: one batch of pages, the vocabulary, about 50
bytes per page, and one term range of the score matrix while it is written.
"""

from __future__ import annotations

import os
import shutil

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes

from transforms.core.accounting import dead_letter, tally
from transforms.release import ReleaseTarget, iter_group_rows
from transforms.search_index.counters import (
    MALFORMED_LINES,
    PAGES,
    READ,
    SKIPPED,
    UNREADABLE_DUMPS,
    UNREADABLE_FILES,
    UNREADABLE_INDEX,
)
from transforms.sources.search_corpus import (
    DOC_SCHEMA,
    Skipped,
    UnreadablePage,
    build_index,
    corpus_directory_records,
    enterprise_records,
)

EXTRACTED = "_extracted"
EXTRACT_GROUP = "pages"  # the staged group of extracted pages under EXTRACTED
EXTRACT_SCHEMA = DOC_SCHEMA.remove(DOC_SCHEMA.get_field_index("doc_id"))
EXTRACT_ROWS_PER_SHARD = 2_000  # a shard is sorted in one worker's memory: HTML included


class ReadCorpusDirectory(beam.DoFn):
    """A corpus directory (``index.tsv`` and pages) -> page records, each counted; a page
    that cannot be read (or decodes past ``max_decoded_bytes``) costs only itself
    (``pages.unreadable_files``), an unreadable ``index.tsv`` the directory."""

    def __init__(self, max_decoded_bytes: int | None = None):
        self.max_decoded_bytes = max_decoded_bytes

    def process(self, directory: str):
        try:
            for record in corpus_directory_records(directory, self.max_decoded_bytes):
                if isinstance(record, UnreadablePage):
                    yield tally(UNREADABLE_FILES)
                    yield dead_letter(PAGES, record.error, source=record.path)
                    continue
                yield tally(READ)
                yield record
        except (OSError, ValueError) as error:  # index.tsv
            yield tally(UNREADABLE_INDEX)
            yield dead_letter(PAGES, error, source=directory)


class ReadEnterpriseDump(beam.DoFn):
    """A Wikimedia Enterprise HTML dump -> article records; bad lines are dead-lettered."""

    def __init__(self, lang: str, max_decoded_bytes: int | None = None):
        self.lang, self.max_decoded_bytes = lang, max_decoded_bytes

    def process(self, readable: fileio.ReadableFile):
        path = readable.metadata.path
        try:
            with readable.open(compression_type=CompressionTypes.UNCOMPRESSED) as stream:
                for record in enterprise_records(stream, self.lang,
                                                 self.max_decoded_bytes):
                    if isinstance(record, Exception):
                        yield tally(MALFORMED_LINES)
                        yield dead_letter(PAGES, record, source=path)
                        continue
                    if isinstance(record, Skipped):
                        yield tally(SKIPPED.member(record.reason))
                        continue
                    yield tally(READ)
                    yield record
        except Exception as error:  # noqa: BLE001 - a truncated dump must not stop the job
            yield tally(UNREADABLE_DUMPS)
            yield dead_letter(PAGES, error, source=path)


def index_extracted(target: ReleaseTarget, lang: str) -> int:
    """Build docs/, bm25/ and pages/ in the staging directory from the extracted pages."""
    extracted = os.path.join(target.staging_dir, EXTRACTED)
    count = build_index(iter_group_rows(extracted, EXTRACT_GROUP), target.staging_dir, lang,
                        ordered=True)
    shutil.rmtree(extracted, ignore_errors=True)
    return count
