"""Pages for the local search index: the bundled corpus, page directories, Wikimedia dumps.

A corpus directory has ``index.tsv`` (``file, url, title, revision, kind``) next to the pages.
A Wikimedia Enterprise HTML dump is a ``*.json.tar.gz`` of NDJSON files, one article per line
(``name``, ``url``, ``version.identifier``, ``namespace.identifier``, ``article_body.html``);
only namespace 0 (articles) is indexed. ``build_index`` turns page records into the index
directory that ``transforms.clients.local_search.LocalSearch`` loads; ``ensure_sample_index``
builds the bundled corpus's index once into a cache.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from transforms.clients.local_search import BM25_DIR, DOCS_DIR, META_FILE, build_bm25_index

DOC_SCHEMA = pa.schema([
    pa.field("doc_id", pa.int64(), nullable=False),
    pa.field("url", pa.string(), nullable=False),
    pa.field("title", pa.string(), nullable=False),
    pa.field("kind", pa.string(), nullable=False),
    pa.field("revision", pa.int64(), nullable=False),
    pa.field("text", pa.string(), nullable=False),
    pa.field("html", pa.string(), nullable=False),
], metadata={"dataset": "search_index"})
FIELD_DOCS = {
    "doc_id": "position in the BM25 index",
    "url": "page URL (Wikipedia articles: https://<lang>.wikipedia.org/wiki/<Title>)",
    "title": "page title",
    "kind": "wikipedia or web",
    "revision": "Wikipedia revision id (oldid), 0 when unknown or not Wikipedia",
    "text": "visible text that was indexed (title first)",
    "html": "the page HTML (served as the document when the page is chosen)",
}
_SKIP = ("script", "style", "noscript", "template")


def visible_text(html: str) -> str:
    """Title and visible body text of a page, whitespace collapsed."""
    from lxml import etree
    from lxml import html as lxml_html

    try:
        doc = lxml_html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return ""
    etree.strip_elements(doc, *_SKIP, with_tail=False)
    title = " ".join(doc.xpath("//title//text()"))
    body = doc.find("body")
    text = " ".join(body.itertext()) if body is not None else ""
    return " ".join(f"{title} {text}".split())


def page_record(url: str, title: str, kind: str, revision: int | str | None,
                html: str) -> dict[str, Any]:
    """One index row without its ``doc_id`` (assigned when the index is built)."""
    return {"url": url, "title": title, "kind": kind,
            "revision": int(revision) if str(revision or "").strip().isdigit() else 0,
            "text": visible_text(html), "html": html}


def read_corpus_index(text: str) -> list[dict[str, str]]:
    rows = list(csv.DictReader(io.StringIO(text), delimiter="\t"))
    missing = {"file", "url", "title", "kind"} - set(rows[0] if rows else {})
    if missing:
        raise ValueError(f"corpus index.tsv needs columns file, url, title, kind, revision; "
                         f"missing {sorted(missing)}")
    return rows


def corpus_directory_records(directory: str) -> Iterator[dict[str, Any]]:
    """Page records of a corpus directory with ``index.tsv``."""
    with open(os.path.join(directory, "index.tsv"), encoding="utf-8") as handle:
        rows = read_corpus_index(handle.read())
    for row in rows:
        with open(os.path.join(directory, row["file"]), encoding="utf-8") as handle:
            html = handle.read()
        yield page_record(row["url"], row["title"], row["kind"], row.get("revision"), html)


@dataclass(frozen=True)
class Skipped:
    """A dump line that was read but is not indexed, and why: the caller counts it as
    ``pages.skipped.<reason>`` (``not_article``: a namespace other than 0)."""

    reason: str
    name: str = ""


def enterprise_records(stream, lang: str = "en"
                       ) -> Iterator[dict[str, Any] | Skipped | Exception]:
    """Article records of a Wikimedia Enterprise ``*.json.tar.gz`` stream; a line that cannot
    be read is yielded as the exception (the caller counts and dead-letters it), a record that
    is not an article as ``Skipped`` (the caller counts it)."""
    with tarfile.open(fileobj=stream, mode="r|gz") as archive:
        for member in archive:
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is None:
                continue
            for raw in iter(handle.readline, b""):
                if not raw.strip():
                    continue
                try:
                    record = _enterprise_record(json.loads(raw.decode("utf-8")), lang)
                except (ValueError, KeyError, TypeError, AttributeError) as error:
                    yield error
                    continue
                yield record


def _enterprise_record(obj: Any, lang: str) -> dict[str, Any] | Skipped:
    """Raises ValueError, KeyError or TypeError for a line of the wrong shape."""
    if not isinstance(obj, dict):
        raise TypeError(f"a dump line is a JSON object, not {type(obj).__name__}")
    namespace = obj.get("namespace") or {}
    if not isinstance(namespace, dict):
        raise TypeError(f"namespace is an object, not {type(namespace).__name__}")
    if namespace.get("identifier", 0) != 0:
        return Skipped("not_article", str(obj.get("name", "")))
    title, html = obj["name"], obj["article_body"]["html"]
    if not (isinstance(title, str) and isinstance(html, str)):
        raise TypeError("name and article_body.html are strings")
    url = obj.get("url") or f"https://{lang}.wikipedia.org/wiki/{title.replace(' ', '_')}"
    if not isinstance(url, str):
        raise TypeError("url is a string")
    revision = (obj.get("version") or {}).get("identifier")
    return page_record(url, title, "wikipedia", revision, html)


def build_index(records: Iterable[dict[str, Any]], directory: str, lang: str = "en") -> int:
    """Write ``docs/docs-00000-of-00001.parquet``, the BM25 index and ``index_meta.json``;
    returns the page count. Pages are ordered by URL so ids do not depend on input order."""
    rows = sorted(records, key=lambda r: r["url"])
    for doc_id, row in enumerate(rows):
        row["doc_id"] = doc_id
    os.makedirs(os.path.join(directory, DOCS_DIR), exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=DOC_SCHEMA),
                   os.path.join(directory, DOCS_DIR, "docs-00000-of-00001.parquet"),
                   compression="zstd")
    build_bm25_index([row["text"] for row in rows], os.path.join(directory, BM25_DIR), lang)
    with open(os.path.join(directory, META_FILE), "w", encoding="utf-8") as handle:
        json.dump({"lang": lang, "pages": len(rows)}, handle)
    return len(rows)


SAMPLE_CORPORA = {"en": ("nq", "corpus"), "ja": ("jnq", "corpus")}


class NoSampleCorpusError(ValueError):
    """No corpus is bundled for the language asked for."""


def sample_corpus_dir(lang: str = "en") -> str:
    """The bundled corpus of a language (English for NQ, Japanese for JNQ)."""
    if lang not in SAMPLE_CORPORA:
        raise NoSampleCorpusError(
            f"no bundled corpus for --lang {lang}; pass --source pages --input DIR")
    return str(resources.files("pipelines").joinpath("samples", *SAMPLE_CORPORA[lang]))


def ensure_sample_index(cache_root: str = ".cache/search", lang: str = "en") -> str:
    """The index of the bundled corpus, built once into the cache (keyed by corpus content)."""
    corpus = sample_corpus_dir(lang)
    digest = hashlib.sha256()
    for root, _, files in sorted(os.walk(corpus)):
        for name in sorted(files):
            with open(os.path.join(root, name), "rb") as handle:
                digest.update(name.encode() + handle.read())
    target = os.path.join(cache_root, f"sample-{lang}-{digest.hexdigest()[:12]}")
    if not os.path.isdir(target):
        os.makedirs(cache_root, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".building-", dir=cache_root)
        build_index(corpus_directory_records(corpus), staging, lang)
        try:
            os.rename(staging, target)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)  # another process built it first
    return target
