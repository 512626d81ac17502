"""What the manifest and the card say linked the questions: the search backend, the page
source and the index, by name, with where they are and which index it was.

* ``mediawiki (https://en.wikipedia.org/w/api.php)``, ``web (https://.../customsearch/v1)``,
  ``rest (https://en.wikipedia.org/api/rest_v1)``: the endpoint actually asked (a query string
  is left out: it may hold a key);
* ``bundled sample index (46 pages, for the sample only)``: the index built from the bundled
  corpus (``transforms.sources.search_corpus.ensure_sample_index``);
* ``local index search_en 1.0.0 (sha256 3f2a...)``: an index release of
  ``build_search_index``, fingerprinted by the sha256 of every file its manifest lists;
  a bare index directory (no manifest) is named by its directory and fingerprinted by its
  files' names and sizes (``files ...``), which is cheap at any size.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import replace
from typing import Any

from apache_beam.io.filesystems import FileSystems

from transforms.clients.local_search import META_FILE
from transforms.clients.search_backends import DEFAULT_API_URL
from transforms.clients.wikipedia_pages import DEFAULT_REST_URL
from transforms.release import CardInfo, md_text
from transforms.release.citations import QUERY_LOG_LICENSE
from transforms.release.storage import read_json
from transforms.release.target import MANIFEST

BUNDLED_INDEX = "bundled sample index"
SAME_INDEX = "the same index"
_FINGERPRINT_CHARS = 12


def _where(url: str) -> str:
    return url.split("?", 1)[0].rstrip("/")


def _pages_count(index_dir: str) -> str:
    """``46 pages, `` from the index's ``index_meta.json``; empty when it cannot be read."""
    try:
        with open(os.path.join(index_dir, META_FILE), encoding="utf-8") as handle:
            pages = int(json.load(handle)["pages"])
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    return f"{pages} page{'s' * (pages != 1)}, "


def index_page_count(index_dir: str) -> int | None:
    """The page count an index records (``index_meta.json``, local or ``gs://``); None when
    it cannot be read."""
    try:
        with FileSystems.open(FileSystems.join(index_dir, META_FILE)) as handle:
            return int(json.loads(handle.read().decode("utf-8"))["pages"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def bundled_index_label(index_dir: str) -> str:
    """``bundled sample index (46 pages, for the sample only)``."""
    return f"{BUNDLED_INDEX} ({_pages_count(index_dir)}for the sample only)"


def _release_label(manifest: dict[str, Any]) -> str:
    files = manifest.get("files") or {}
    listing = json.dumps(sorted((str(name), str((entry or {}).get("sha256")))
                                for name, entry in files.items()))
    digest = hashlib.sha256(listing.encode("utf-8")).hexdigest()[:_FINGERPRINT_CHARS]
    return f"{manifest.get('dataset', '?')} {manifest.get('version', '?')} (sha256 {digest})"


def _directory_label(index_dir: str) -> str:
    digest = hashlib.sha256()
    for root, directories, names in os.walk(index_dir):
        directories.sort()
        for name in sorted(names):
            path = os.path.join(root, name)
            relative = os.path.relpath(path, index_dir).replace(os.sep, "/")
            digest.update(f"{relative}\t{os.path.getsize(path)}\n".encode())
    name = os.path.basename(os.path.normpath(index_dir))
    return (f"{name} ({_pages_count(index_dir)}files "
            f"{digest.hexdigest()[:_FINGERPRINT_CHARS]})")


def local_index_label(index_dir: str) -> str:
    """``local index <name> (<fingerprint>)`` of an ``--index-dir`` (checked before)."""
    manifest_path = FileSystems.join(index_dir, MANIFEST)
    try:
        if FileSystems.exists(manifest_path):
            return f"local index {_release_label(read_json(manifest_path))}"
    except (OSError, ValueError):
        pass
    return f"local index {_directory_label(index_dir)}"


def search_label(search: str, lang: str, index: str, *, api_url: str | None,
                 web_endpoint: str) -> str:
    """The search backend as the card names it (``index``: the index's label)."""
    if search == "mediawiki":
        return f"mediawiki ({_where(api_url or DEFAULT_API_URL.format(lang=lang))})"
    if search == "web":
        return f"web ({_where(web_endpoint)})"
    return index


def pages_label(pages: str, search: str, lang: str, index: str, *,
                rest_url: str | None) -> str:
    """The page source as the card names it."""
    if pages == "rest":
        return f"rest ({_where(rest_url or DEFAULT_REST_URL.format(lang=lang))})"
    return SAME_INDEX if search == "local" else index


SAMPLE_PAGES = ("pages written for the toolkit's sample log in Wikipedia's layout (their titles "
                "and URLs name Wikipedia articles), not pages fetched from Wikipedia")
ON_PURPOSE = ("**Linked against the bundled sample index on purpose (`--sample-index`), although "
              "the input is not the bundled sample log.** Its pages were written for that log, "
              "so most questions here are paired with an unrelated page: use this release to try "
              "the toolkit, never as data.")


def linking_line(source: dict[str, Any]) -> str:
    """``Search: <backend>; pages: <source>; language: <lang>.`` as the manifest records them
    (the backend kinds for a release written before the labels were)."""
    search = source.get("search_backend") or source.get("search")
    pages = source.get("pages_backend") or source.get("pages")
    return (f"Search: {md_text(search)}; pages: {md_text(pages)}; "
            f"language: {md_text(source.get('lang'))}.")


def sample_index_lines(source: dict[str, Any]) -> list[str]:
    """What the card says when the bundled sample index linked the questions: its pages are
    not Wikipedia's, and (``--sample-index``) that it was chosen for input it was not made
    for. Nothing otherwise."""
    if not source.get("bundled_sample_index"):
        return []
    lines = [f"The pages come from the bundled sample index: {SAMPLE_PAGES}.", ""]
    return [ON_PURPOSE, "", *lines] if not source.get("sample_input") else lines


def sample_index_info(info: CardInfo, manifest: dict[str, Any]) -> CardInfo:
    """``info`` of a release linked against the bundled sample index: the licence and
    collection say where its pages come from (``DatasetCard.adapt``)."""
    if not (manifest.get("source") or {}).get("bundled_sample_index"):
        return info
    return replace(info, license_text=(
        f"The pages come from the bundled sample index: {SAMPLE_PAGES}; the toolkit's authors "
        f"wrote them for testing. {QUERY_LOG_LICENSE}"),
        collection=(f"{info.collection} For this release the search backend and the pages "
                    f"were the bundled sample index: {SAMPLE_PAGES}."))
