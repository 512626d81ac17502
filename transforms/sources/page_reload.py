"""A refresh's pages without their content until they are known to be new or changed.

A refresh (``--previous``) of saved pages or WARC files must read every page to know its
digest, but only the new or changed ones are parsed. Which ones those are is decided by joins
against the previous release (``transforms.nlquad.refresh``): between the read and that
decision, Beam holds every page, so pages travelling with their content cost the whole
input's bytes in memory and in coding at each boundary. ``light_page`` keeps a page's URL,
timestamp, source and digest (``CapturedPage.payload_digest``, computed once, as the page is
read) and drops its content; ``ReloadPages`` reads the content of the pages that go on again
from their ``source``: a page file's path, or a WARC record's ``<file>#<offset>``.

The page read again must have the digest the first read gave (a file rewritten during the
run does not): otherwise it is dead-lettered as ``reload_failed.changed_during_run``, and a
file that cannot be read again as ``reload_failed.unreadable`` (stage ``input``).
"""

from __future__ import annotations

from dataclasses import replace

import apache_beam as beam
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from transforms.core.accounting import dead_letter, tally
from transforms.sources.counters import INPUT, RELOAD_FAILED
from transforms.sources.page_files import _warc_item, read_page_file, resolve_limit
from transforms.sources.pages import CapturedPage

CHANGED_DURING_RUN = "changed_during_run"
UNREADABLE = "unreadable"


def light_page(page: CapturedPage) -> CapturedPage:
    """``page`` without its content, its digest kept (see the module docstring)."""
    return replace(page, content=b"", digest=page.payload_digest())


def reread_content(page: CapturedPage, warc: bool,
                   max_decoded_bytes: int | None = None) -> CapturedPage:
    """The page as its source gives it again: the WARC record at ``<file>#<offset>`` when
    ``warc``, else the page file at ``source`` (``ValueError`` when it gives no page)."""
    if warc:
        path, _, offset = page.source.rpartition("#")
        return _warc_record(path, int(offset), max_decoded_bytes)
    [match] = FileSystems.match([page.source])[0].metadata_list
    readable = fileio.ReadableFile(match, CompressionTypes.AUTO)
    return replace(page, content=read_page_file(readable, max_decoded_bytes), digest="")


def _warc_record(path: str, offset: int, max_decoded_bytes: int | None) -> CapturedPage:
    from warcio.archiveiterator import ArchiveIterator

    with FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED) as stream:
        stream.seek(offset)
        for record in ArchiveIterator(stream, arc2warc=True):
            item = _warc_item(record, resolve_limit(max_decoded_bytes))
            if isinstance(item, CapturedPage):
                return item
            break
    raise ValueError(f"{path}#{offset}: no HTML page at this offset any more")


class ReloadPages(beam.DoFn):
    """light page -> the page with its content read again (see the module docstring);
    ``warc``: the pages are WARC records (``--source warc``), else page files."""

    def __init__(self, warc: bool, max_decoded_bytes: int | None = None):
        self.warc = warc
        self.max_decoded_bytes = max_decoded_bytes

    def process(self, page: CapturedPage):
        try:
            again = reread_content(page, self.warc, self.max_decoded_bytes)
        except Exception as error:  # noqa: BLE001 - a file gone since the read must not stop the job
            yield from self._failed(page, UNREADABLE, error)
            return
        if again.payload_digest() != page.digest:
            yield from self._failed(page, CHANGED_DURING_RUN, ValueError(
                f"{page.source}: its digest is {again.payload_digest()} now, "
                f"{page.digest} when it was first read"))
            return
        yield replace(page, content=again.content)

    @staticmethod
    def _failed(page: CapturedPage, reason: str, error: Exception):
        yield tally(RELOAD_FAILED.member(reason))
        yield dead_letter(INPUT, error, url=page.url, timestamp=page.timestamp,
                          source=page.source, reason=reason,
                          detail="a refresh reads a new or changed page's content again")
