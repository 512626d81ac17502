"""Write the static site of a release: ``write_site(release_dir, out_dir)``.

It checks where the site goes (``check_out_dir``) and the release before any work: no
symbolic link or special file anywhere in it (``check_members``; the release is then read
only through ``base.open_member``, which follows no link), and every file's sha256, size,
rows and schema against the manifest (``require_intact``). Then it picks the release's
renderer (``renderers.choose``), streams every main table through ``renderer.entries`` into
the example pages while tallying each row's ``renderer.measures`` into length histograms,
then writes the overview, the rejected pages, the assets and ``site.json`` (what was
written). Everything goes into ``<out>.tmp-<pid>``,
renamed to ``<out>`` at the end, so a site is complete or absent. The same release gives the
same bytes.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from filters.text import safe_json
from transforms.browse.assets import write_assets
from transforms.browse.base import ReleaseView, Renderer, check_members
from transforms.browse.decisions import DecisionIndex, with_decisions
from transforms.browse.examples import ExampleWriter
from transforms.browse.html import release_label, simulated_banner
from transforms.browse.overview import write_overview
from transforms.browse.rejected import write_rejected
from transforms.browse.renderers import choose, for_release
from transforms.browse.workers import write_workers
from transforms.release import require_intact

GENERATOR = "qa-dataset-toolkit release browser"
SITE_JSON = "site.json"
MAX_SITE_JSON = 16 << 20  # a bigger site.json is no site of ours
PAGE_SIZE = 100


class SiteError(Exception):
    """The site cannot be written where asked."""


class SiteExistsError(SiteError):
    """The output directory exists (and ``overwrite`` is off, or it is no site of ours)."""


class InvalidSiteDir(SiteError):
    """The output directory is inside the release, holds it, or is not a directory."""


def is_our_site(path: str) -> bool:
    """Whether ``path`` is a directory holding a ``site.json`` this module wrote."""
    try:
        with open(os.path.join(path, SITE_JSON), "rb") as handle:
            return safe_json.loads(handle.read(MAX_SITE_JSON + 1)).get("generator") == GENERATOR
    except (OSError, ValueError, AttributeError):
        return False


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def check_out_dir(release_dir: str, out_dir: str, overwrite: bool = False) -> None:
    """Raise unless a site may be written to ``out_dir``: not inside the release (nor holding
    it), absent, or ``overwrite`` and a site of ours."""
    out, release = Path(out_dir).resolve(), Path(release_dir).resolve()
    if _inside(out, release):
        raise InvalidSiteDir(f"{out_dir} is inside the release {release_dir}; write the site "
                             "elsewhere (a release holds only what its manifest lists)")
    if _inside(release, out):
        raise InvalidSiteDir(f"{out_dir} holds the release {release_dir}; write the site "
                             "into a directory of its own")
    if not os.path.lexists(out_dir):
        return
    if not os.path.isdir(out_dir) or os.path.islink(out_dir):
        raise InvalidSiteDir(f"{out_dir} exists and is not a directory")
    if not overwrite:
        raise SiteExistsError(f"{out_dir} exists; pass --overwrite to replace a site written "
                              "by this browser")
    if not is_our_site(out_dir):
        raise SiteExistsError(f"{out_dir} exists and is no site of the release browser (no "
                              f"{SITE_JSON} of ours); it is left alone")


def tally(rows: Iterator[dict[str, Any]], renderer: Renderer,
          histograms: dict[str, Counter[int]], counter: Counter[str]) -> Iterator[dict[str, Any]]:
    """``rows`` unchanged, each tallied into ``histograms`` (measure -> value -> rows) and
    ``counter["rows"]``."""
    for row in rows:
        counter["rows"] += 1
        for name, value in renderer.measures(row).items():
            histograms.setdefault(name, Counter())[int(value)] += 1
        yield row


def write_examples(out_dir: str, view: ReleaseView, renderer: Renderer, page_size: int,
                   limit: int | None) -> tuple[dict[str, Any], dict[str, dict[int, int]]]:
    """Stream every main table through the renderer into the example pages (at most
    ``limit`` entries per table); the pages' summary with rows read per table, and the
    histograms."""
    histograms: dict[str, Counter[int]] = {}
    rows_read: dict[str, int] = {}
    note = "" if limit is None else f" (at most {limit} per split: --limit {limit})"
    writer = ExampleWriter(out_dir, tuple(renderer.columns), page_size=page_size,
                           details_per_page=renderer.details_per_page,
                           release=release_label(view.manifest), note=note,
                           banner=simulated_banner(view.manifest, view.stats))
    decisions = DecisionIndex.open(view, out_dir)  # None without a decisions/ table
    for table in view.main_tables():
        counter: Counter[str] = Counter()
        entries = renderer.entries(view, table, tally(view.rows(table), renderer, histograms,
                                                      counter))
        try:
            for entry in itertools.islice(with_decisions(entries, decisions), limit):
                writer.add(entry)
        finally:
            close = getattr(entries, "close", None)
            if close is not None:
                close()
        rows_read[table.directory] = counter["rows"]
    if decisions is not None:
        decisions.close()
    summary = writer.close()
    summary["rows_read"] = rows_read
    return summary, {name: dict(sorted(values.items()))
                     for name, values in sorted(histograms.items())}


def _replace(staging: str, out_dir: str) -> None:
    if not os.path.lexists(out_dir):
        os.rename(staging, out_dir)
        return
    retired = f"{out_dir}.old-{os.getpid()}"
    os.rename(out_dir, retired)
    os.rename(staging, out_dir)
    shutil.rmtree(retired)


def write_site(release_dir: str, out_dir: str, page_size: int = PAGE_SIZE,
               limit: int | None = None, *, overwrite: bool = False) -> dict[str, Any]:
    """Write the site of the release at ``release_dir`` (a version directory) to ``out_dir``;
    what ``site.json`` records. ``limit``: at most that many examples per table (the
    histograms then cover the rows read). Raises ``SiteExistsError``, ``InvalidSiteDir``,
    ``DamagedReleaseError`` or ``ValueError`` before any work."""
    if page_size < 1:
        raise ValueError(f"page_size must be at least 1, not {page_size}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must not be negative, not {limit}")
    out_dir = os.path.normpath(out_dir)
    check_out_dir(release_dir, out_dir, overwrite)
    check_members(release_dir)
    require_intact(release_dir, deep=True)
    view = ReleaseView.open(release_dir)
    name, refused = choose(view)
    renderer = for_release(view, name)
    staging = f"{out_dir}.tmp-{os.getpid()}"
    if os.path.lexists(staging):
        shutil.rmtree(staging)
    os.makedirs(staging)
    try:
        assets = write_assets(staging)
        examples, histograms = write_examples(staging, view, renderer, page_size, limit)
        write_overview(staging, view, histograms, renderer, note=refused)
        rejected = write_rejected(staging, view, page_size)
        workers = write_workers(staging, view)
        summary = {
            "generator": GENERATOR,
            "release": {key: view.manifest.get(key)
                        for key in ("dataset", "version", "run_id", "created")},
            "renderer": name,
            "renderer_refused": refused or None,
            "title": renderer.title,
            "page_size": page_size,
            "limit": limit,
            "examples": examples,
            "histograms": {name: sum(values.values()) for name, values in histograms.items()},
            "rejected": rejected,
            "pages": {"overview": "index.html", "assets": assets,
                      "examples_index": "examples/index-{:05d}.html",
                      "examples_detail": "examples/page-{:05d}.html",
                      "examples_data": "examples/data-{:05d}.js",
                      "rejected_index": "rejected/index.html",
                      **({"workers": workers} if workers else {})},
        }
        with open(os.path.join(staging, SITE_JSON), "w", encoding="utf-8",
                  newline="\n") as handle:
            handle.write(json.dumps(summary, ensure_ascii=False, indent=1, sort_keys=True)
                         + "\n")
        check_out_dir(release_dir, out_dir, overwrite)
        _replace(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return summary
