"""A refresh (``--previous``) of the search index: the lineage is recorded and every row is
recomputed.

A BM25 index is one global structure. A page's ``docs`` row holds its ``doc_id``, its position
in URL order, so one page added or removed shifts the id of every page after it; the
``bm25/`` scores depend on every page (inverse document frequencies, the average document
length of BM25's length normalization); ``pages/`` is addressed by those ids. So no file of a
previous index can be carried as it is once any page changed. A weekly schedule passes
``--previous auto`` to every builder, so refusing it would fail the job; instead a refresh is
a full build that behaves as ``--recompute-all`` (the plan sets it: no option change is
refused, since nothing is carried), records the previous release in the manifest, counts each
page, by URL, as ``refresh.recomputed``, ``new`` or ``removed`` against it (reading only the
previous ``url`` column), and the card's "Changes since" says what changed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any, TypeVar

import apache_beam as beam
import pyarrow.parquet as pq

from transforms.release.refresh.carry import Carry
from transforms.release.refresh.checked_read import Release, seekable_file
from transforms.release.refresh.previous import PreviousRelease

KEY = "url"
UNIT = ("none: BM25 scores and doc ids depend on every page, so a refresh recomputes every row "
        "and records the lineage")
NOTE = ("A BM25 index is global: each page's `doc_id` is its position in URL order and its "
        "scores depend on every page (document frequencies, average length), so nothing can be "
        "carried from one version to the next: every row and index file was recomputed (as "
        "with `--recompute-all`).")
REFRESH_NOTE = ("every row was recomputed, and every index file: doc ids follow URL order "
                "and BM25 scores depend on every page, so none can be carried")
O = TypeVar("O")  # noqa: E741 - the options dataclass


def row_key(row: dict[str, Any]) -> str:
    """A page's key: its URL."""
    return row[KEY]


def recompute_everything(options: O) -> O:
    """The options of a refresh: ``--previous`` given means ``--recompute-all``."""
    return replace(options, recompute_all=True) if options.previous else options


def read_previous_urls(item: tuple[str, str], version_dir: Release
                       ) -> Iterator[tuple[str, dict[str, str]]]:
    """``(split, {"url": ...})`` of every row of one ``docs`` file of the previous release:
    the URL column only, never the pages' text and HTML."""
    split, name = item
    with seekable_file(version_dir, name) as handle:  # checked against the manifest
        for batch in pq.ParquetFile(handle).iter_batches(columns=[KEY]):
            for url in batch.column(0).to_pylist():
                yield split, {KEY: url}


def count_against_previous(pbegin, previous: PreviousRelease | None, pages, group: str) -> list:
    """The ``refresh.*`` tallies of this run's page records against the previous release
    (results for ``WriteAccounting``; none without one)."""
    if previous is None:
        return []
    carry = Carry(pbegin, previous, row_key, recompute_all=True, reader=read_previous_urls)
    fresh = carry.fresh(pages, row_key)  # all of them: nothing is carried
    _, results = carry.finish(fresh | "RefreshGroup" >> beam.Map(lambda page: (group, page)))
    return results
