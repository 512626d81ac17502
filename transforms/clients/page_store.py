"""An on-disk page store: each page's metadata, text and HTML read lazily by document id.

At Wikipedia scale (6.7M English articles, ~100 KB of HTML each) the pages cannot sit in a
worker's memory, and reading them back from the ``docs`` Parquet table would decompress a whole
row group per page. The store keeps two zstd frames per page, written in document-id order:

* ``meta``: a JSON line ``{"url", "title", "kind", "revision"}`` then the indexed text, read
  for every search hit (title, URL and snippet);
* ``html``: the page HTML, read only when the page becomes an NQ/JNQ document.

Files (``pages/``):

* ``store-00000.bin`` …: the frames back to back; a file is closed past ``file_bytes``;
* ``offsets.npy``: ``int64 (n, 3)``: global byte offset, meta frame length, html frame length;
  the file holding a page is found from the files' first offsets (``files.json``);
* ``title_hashes.npy`` (``uint64``, sorted) and ``title_docs.npy`` (``int64``): the blake2b-64
  hash of the title key of every page that has one (Wikipedia articles) and its doc id; a
  title lookup is a binary search, and the candidate is checked against its stored title;
* ``files.json``: the store files in order with their first offsets, the format version.

Readers memory-map the two arrays and read frames with ``os.pread``: resident memory does not
grow with the stored HTML, the page cache is shared by every process of a machine, and one
instance can serve several threads.
"""

from __future__ import annotations

import hashlib
import json
import os
from array import array
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import zstandard

STORE_DIR = "pages"
FORMAT = "qa-page-store/1"
FILE_BYTES = 1 << 30
_LEVEL = 3


def title_hash(title_key: str) -> int:
    """64-bit hash of a title key (Wikipedia title with underscores)."""
    return int.from_bytes(hashlib.blake2b(title_key.encode("utf-8"), digest_size=8).digest(),
                          "little")


@dataclass(frozen=True)
class PageMeta:
    """What a search hit needs of a page: everything but its HTML."""

    doc_id: int
    url: str
    title: str
    kind: str
    revision: int
    text: str


@dataclass(frozen=True)
class StoredPage(PageMeta):
    """A whole page, HTML included."""

    html: str


class PageStoreWriter:
    """Append pages in document-id order; ``close()`` writes the offsets and title table.

    Memory: 24 bytes per page for offsets and 16 per titled page, nothing per HTML byte.
    """

    def __init__(self, directory: str, file_bytes: int = FILE_BYTES) -> None:
        self.directory = os.path.join(directory, STORE_DIR)
        os.makedirs(self.directory, exist_ok=True)
        self._file_bytes = file_bytes
        self._compressor = zstandard.ZstdCompressor(level=_LEVEL, write_content_size=True)
        self._offsets = array("q")
        self._titles = array("Q")
        self._title_docs = array("q")
        self._starts: list[int] = []
        self._handle = None
        self._position = 0
        self._file_used = 0

    def __len__(self) -> int:
        return len(self._offsets) // 3

    def add(self, record: dict, title_key: str | None = None) -> int:
        """Store one page (``url, title, kind, revision, text, html``); returns its doc id."""
        header = json.dumps({k: record[k] for k in ("url", "title", "kind", "revision")},
                            ensure_ascii=False)
        meta_frame = self._compressor.compress(f"{header}\n{record['text']}".encode())
        html_frame = self._compressor.compress(record["html"].encode("utf-8"))
        if self._handle is None or self._file_used >= self._file_bytes:
            self._open_next()
        doc_id = len(self)
        self._offsets.extend((self._position, len(meta_frame), len(html_frame)))
        self._handle.write(meta_frame)
        self._handle.write(html_frame)
        size = len(meta_frame) + len(html_frame)
        self._position += size
        self._file_used += size
        if title_key:
            self._titles.append(title_hash(title_key))
            self._title_docs.append(doc_id)
        return doc_id

    def _open_next(self) -> None:
        if self._handle is not None:
            self._handle.close()
        self._starts.append(self._position)
        name = f"store-{len(self._starts) - 1:05d}.bin"
        self._handle = open(os.path.join(self.directory, name), "wb")
        self._file_used = 0

    def close(self) -> int:
        """Write the offsets, the title table and ``files.json``; returns the page count."""
        if self._handle is None:
            self._open_next()
        self._handle.close()
        offsets = np.frombuffer(self._offsets, dtype=np.int64).reshape(-1, 3)
        np.save(os.path.join(self.directory, "offsets.npy"), offsets)
        hashes = np.frombuffer(self._titles, dtype=np.uint64)
        docs = np.frombuffer(self._title_docs, dtype=np.int64)
        order = np.lexsort((docs, hashes))
        np.save(os.path.join(self.directory, "title_hashes.npy"), hashes[order])
        np.save(os.path.join(self.directory, "title_docs.npy"), docs[order])
        files = [{"name": f"store-{i:05d}.bin", "start": start}
                 for i, start in enumerate(self._starts)]
        with open(os.path.join(self.directory, "files.json"), "w", encoding="utf-8") as handle:
            json.dump({"format": FORMAT, "pages": len(self), "files": files}, handle, indent=1)
        return len(self)


def _meta_fields(frame: bytes) -> dict:
    header, text = zstandard.decompress(frame).decode("utf-8").split("\n", 1)
    return {**json.loads(header), "text": text}


def load_array(path: str) -> np.ndarray:
    """A ``.npy`` array memory-mapped, as a plain ndarray view (slices of a ``np.memmap`` are
    slow to make); read as is when empty: an empty file cannot be mapped."""
    try:
        return np.asarray(np.load(path, mmap_mode="r"))
    except ValueError:
        return np.load(path)


class PageStore:
    """Read pages by document id or title key from a store written by ``PageStoreWriter``."""

    _fds: list[int] = []  # until __init__ opens the files (so __del__ always works)

    def __init__(self, directory: str,
                 title_key_of: Callable[[PageMeta], str | None] | None = None) -> None:
        self.directory = os.path.join(directory, STORE_DIR)
        with open(os.path.join(self.directory, "files.json"), encoding="utf-8") as handle:
            layout = json.load(handle)
        if layout.get("format") != FORMAT:
            raise ValueError(f"{self.directory}: not a {FORMAT} page store")
        self._offsets = load_array(os.path.join(self.directory, "offsets.npy"))
        self._title_hashes = load_array(os.path.join(self.directory, "title_hashes.npy"))
        self._title_docs = load_array(os.path.join(self.directory, "title_docs.npy"))
        self._starts = np.array([f["start"] for f in layout["files"]], dtype=np.int64)
        self._fds = [os.open(os.path.join(self.directory, f["name"]), os.O_RDONLY)
                     for f in layout["files"]]
        self._title_key_of = title_key_of

    def __len__(self) -> int:
        return int(self._offsets.shape[0])

    def _frames(self, doc_id: int, html: bool) -> tuple[bytes, bytes | None]:
        offset, meta_len, html_len = (int(v) for v in self._offsets[doc_id])
        file_index = int(np.searchsorted(self._starts, offset, side="right")) - 1
        local = offset - int(self._starts[file_index])
        size = meta_len + (html_len if html else 0)
        data = os.pread(self._fds[file_index], size, local)
        if len(data) != size:
            raise OSError(f"page store truncated at page {doc_id}")
        return data[:meta_len], (data[meta_len:] if html else None)

    def meta(self, doc_id: int) -> PageMeta:
        """URL, title, kind, revision and indexed text of a page (its HTML is not read)."""
        meta, _ = self._frames(doc_id, html=False)
        return PageMeta(doc_id=doc_id, **_meta_fields(meta))

    def get(self, doc_id: int) -> StoredPage:
        """The whole page, HTML included."""
        meta, html = self._frames(doc_id, html=True)
        return StoredPage(doc_id=doc_id, html=zstandard.decompress(html).decode("utf-8"),
                          **_meta_fields(meta))

    def find_title(self, title_key: str) -> int | None:
        """The doc id of the page with this title key (the last one if several), or None."""
        key = np.uint64(title_hash(title_key))
        lo = int(np.searchsorted(self._title_hashes, key, side="left"))
        hi = int(np.searchsorted(self._title_hashes, key, side="right"))
        for row in range(hi - 1, lo - 1, -1):
            doc_id = int(self._title_docs[row])
            if self._title_key_of is None or self._title_key_of(self.meta(doc_id)) == title_key:
                return doc_id
        return None

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit the os module may be gone
            pass
