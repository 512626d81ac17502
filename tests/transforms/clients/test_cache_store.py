"""CacheStore on the local disk and on a non-local Beam filesystem (object-store path)."""

from __future__ import annotations

import os

import pytest
from apache_beam.io.localfilesystem import LocalFileSystem

from transforms.clients.cache_store import CacheStore

ROOT = {"dir": ""}


class FakeObjectStore(LocalFileSystem):
    """``fakegs://bucket/key`` stored under a temporary directory (scheme routing as for gs://)."""

    @classmethod
    def scheme(cls):
        return "fakegs"

    def _local(self, path: str) -> str:
        return os.path.join(ROOT["dir"], path[len("fakegs://"):])

    def join(self, base, *paths):
        return "/".join([base.rstrip("/"), *paths])

    def create(self, path, *args, **kwargs):
        os.makedirs(os.path.dirname(self._local(path)), exist_ok=True)
        return super().create(self._local(path), *args, **kwargs)

    def open(self, path, *args, **kwargs):
        return super().open(self._local(path), *args, **kwargs)

    def exists(self, path):
        return super().exists(self._local(path))


@pytest.mark.parametrize("remote", [False, True])
def test_round_trip_and_missing_entries(tmp_path, remote):
    ROOT["dir"] = str(tmp_path / "bucket")
    store = CacheStore("fakegs://cache" if remote else tmp_path / "cache")
    path = store.path("ab", "entry.http")
    assert store.read(path) is None
    store.write(path, b"payload")
    assert store.read(path) == b"payload"
    store.write(path, b"replaced")
    assert store.read(path) == b"replaced"
    if remote:
        assert path == "fakegs://cache/ab/entry.http"
        assert (tmp_path / "bucket" / "cache" / "ab" / "entry.http").read_bytes() == b"replaced"
    else:
        assert not [n for n in os.listdir(tmp_path / "cache" / "ab") if n.endswith(".tmp")]


def test_http_client_uses_an_object_store_cache(tmp_path):
    from tests.fakes.wiki_server import FakePage, FakeWiki
    from transforms.clients.wikipedia_pages import WikipediaPageFetcher

    ROOT["dir"] = str(tmp_path / "bucket")
    with FakeWiki([FakePage("Nile", "A river.", 7)]) as wiki:
        fetcher = WikipediaPageFetcher(rest_url=wiki.rest_url, cache_dir="fakegs://http",
                                       per_minute=0)
        assert fetcher.fetch("Nile").revision == 7
        asked = len(wiki.requests)
        again = WikipediaPageFetcher(rest_url=wiki.rest_url, cache_dir="fakegs://http",
                                     per_minute=0)
        assert again.fetch("Nile").revision == 7
        assert len(wiki.requests) == asked  # a re-run on another worker hits the cache
