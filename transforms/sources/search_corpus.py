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
import itertools
import json
import os
import shutil
import stat
import tarfile
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from filters.text import safe_json
from transforms.clients.bm25_index import Bm25IndexWriter
from transforms.clients.local_search import (
    BM25_DIR,
    DOCS_DIR,
    META_FILE,
    IndexTokenizer,
    page_title_key,
)
from transforms.clients.page_store import FORMAT as PAGE_STORE_FORMAT
from transforms.clients.page_store import PageStoreWriter
from transforms.release.formats import parquet_writer, write_row_groups
from transforms.sources.compressed import CHUNK, DecodedTooLarge, resolve_limit

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
DOCS_PER_FILE = 50_000


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


def _read_text(path: str, limit: int) -> str:
    """A UTF-8 regular file's text; ``DecodedTooLarge`` past ``limit`` bytes (never read
    whole), ``OSError`` for a FIFO, device or directory (opened non-blocking, never read)."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(f"{path} is not a regular file")
        os.set_blocking(descriptor, True)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise DecodedTooLarge(limit)
    return data.decode("utf-8")


@dataclass(frozen=True)
class UnreadablePage:
    """A page of a corpus directory that could not be read (missing, not UTF-8, over the
    cap, not a regular file): the caller counts and dead-letters it, the others are read."""

    path: str
    error: Exception


def corpus_directory_records(directory: str, max_decoded_bytes: int | None = None
                             ) -> Iterator[dict[str, Any] | UnreadablePage]:
    """Page records of a corpus directory with ``index.tsv``, and an ``UnreadablePage`` for
    each page that cannot be read (a file of more than ``max_decoded_bytes`` included; None:
    the default cap). An unreadable ``index.tsv`` raises: there is nothing to read then."""
    limit = resolve_limit(max_decoded_bytes)
    rows = read_corpus_index(_read_text(os.path.join(directory, "index.tsv"), limit))
    for row in rows:
        path = os.path.join(directory, row["file"])
        try:
            html = _read_text(path, limit)
        except (OSError, ValueError) as error:  # UnicodeDecodeError, DecodedTooLarge
            yield UnreadablePage(path, error)
            continue
        yield page_record(row["url"], row["title"], row["kind"], row.get("revision"), html)


def readable_pages(records: Iterable[dict[str, Any] | UnreadablePage]
                   ) -> Iterator[dict[str, Any]]:
    """The page records, raising the first ``UnreadablePage``'s error (the bundled corpus,
    which must be whole)."""
    for record in records:
        if isinstance(record, UnreadablePage):
            raise record.error
        yield record


@dataclass(frozen=True)
class Skipped:
    """A dump line that was read but is not indexed, and why: the caller counts it as
    ``pages.skipped.<reason>`` (``not_article``: a namespace other than 0)."""

    reason: str
    name: str = ""


def enterprise_records(stream, lang: str = "en", max_decoded_bytes: int | None = None
                       ) -> Iterator[dict[str, Any] | Skipped | Exception]:
    """Article records of a Wikimedia Enterprise ``*.json.tar.gz`` stream; a line that cannot
    be read is yielded as the exception (the caller counts and dead-letters it: a line longer
    than ``max_decoded_bytes`` is a ``DecodedTooLarge``, never held whole; one nested too deep
    a ``JsonTooDeep``), a record that is not an article as ``Skipped`` (the caller counts it)."""
    limit = resolve_limit(max_decoded_bytes)
    with tarfile.open(fileobj=stream, mode="r|gz") as archive:
        for member in archive:
            handle = archive.extractfile(member) if member.isfile() else None
            if handle is None:
                continue
            while raw := handle.readline(limit + 1):
                if len(raw) > limit and not raw.endswith(b"\n"):
                    while (rest := handle.readline(CHUNK)) and not rest.endswith(b"\n"):
                        pass  # the rest of the over-long line, read and discarded
                    yield DecodedTooLarge(limit)
                    continue
                if not raw.strip():
                    continue
                try:
                    record = _enterprise_record(safe_json.loads(raw.decode("utf-8")), lang)
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


def build_index(records: Iterable[dict[str, Any]], directory: str, lang: str = "en", *,
                ordered: bool = False, batch_size: int = 256,
                rows_per_file: int = DOCS_PER_FILE) -> int:
    """Write ``docs/``, the BM25 index (``bm25/``), the page store (``pages/``) and
    ``index_meta.json``; returns the page count.

    Document ids follow the records' order: with ``ordered=False`` the records are first
    sorted by URL in memory (corpus directories, tests), so ids do not depend on input order;
    ``ordered=True`` streams records already in a deterministic order (``index_extracted``:
    URL-sorted shards in name order) with memory bounded by one batch, the vocabulary and a
    few bytes per page.
    """
    if not ordered:
        records = sorted(records, key=lambda r: r["url"])
    tokenize = IndexTokenizer(lang)
    index = Bm25IndexWriter(os.path.join(directory, BM25_DIR))
    store = PageStoreWriter(directory)
    docs = _DocsWriter(os.path.join(directory, DOCS_DIR), rows_per_file)
    count = 0
    for batch in _batches(records, batch_size):
        for row in batch:
            row["doc_id"] = count
            count += 1
            store.add(row, page_title_key(row["url"], row["kind"], lang))
        index.add(tokenize([row["text"] for row in batch]))
        docs.write(batch)
    docs.close()
    store.close()
    index.close()
    with open(os.path.join(directory, META_FILE), "w", encoding="utf-8") as handle:
        json.dump({"lang": lang, "pages": count}, handle)
    return count


def _batches(records: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    iterator = iter(records)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


class _DocsWriter:
    """``docs-NNNNN-of-MMMMM.parquet`` files of at most ``rows_per_file`` rows, written as
    rows arrive (one row group per batch) and named when the count is known."""

    def __init__(self, directory: str, rows_per_file: int) -> None:
        self.directory = directory
        self.rows_per_file = rows_per_file
        self._files: list[str] = []
        self._writer: pq.ParquetWriter | None = None
        self._rows = 0
        os.makedirs(directory, exist_ok=True)

    def write(self, rows: Sequence[dict[str, Any]]) -> None:
        while rows:
            if self._writer is None or self._rows >= self.rows_per_file:
                self._next_file()
            room = self.rows_per_file - self._rows
            part, rows = rows[:room], rows[room:]
            write_row_groups(self._writer, pa.Table.from_pylist(list(part), schema=DOC_SCHEMA))
            self._rows += len(part)

    def _next_file(self) -> None:
        if self._writer is not None:
            self._writer.close()
        path = os.path.join(self.directory, f".docs-{len(self._files):05d}.parquet")
        self._files.append(path)
        self._writer = parquet_writer(path, DOC_SCHEMA)
        self._rows = 0

    def close(self) -> None:
        if self._writer is None:
            self._next_file()
        self._writer.close()
        total = len(self._files)
        for index, path in enumerate(self._files):
            os.replace(path, os.path.join(self.directory,
                                          f"docs-{index:05d}-of-{total:05d}.parquet"))


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
    digest = hashlib.sha256(PAGE_STORE_FORMAT.encode())
    for root, _, files in sorted(os.walk(corpus)):
        for name in sorted(files):
            with open(os.path.join(root, name), "rb") as handle:
                digest.update(name.encode() + handle.read())
    target = os.path.join(cache_root, f"sample-{lang}-{digest.hexdigest()[:12]}")
    if not os.path.isdir(target):
        os.makedirs(cache_root, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".building-", dir=cache_root)
        build_index(readable_pages(corpus_directory_records(corpus)), staging, lang)
        try:
            os.rename(staging, target)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)  # another process built it first
    return target
