"""CacheStore on the local disk, on an injected storage and on a non-local Beam filesystem
(object-store path, through :class:`transforms.core.beam_storage.BeamFileSystemStorage`)."""

from __future__ import annotations

import os

import pytest

from tests.fakes.object_store import use_bucket
from transforms.clients.cache_store import CacheStore, ObjectStorage, is_remote_root
from transforms.core.beam_storage import BeamFileSystemStorage


class MemoryStorage:
    """An ObjectStorage in a dict (no Beam), recording the calls."""

    def __init__(self) -> None:
        self.objects: dict[str, bytes] = {}

    def join(self, root: str, *parts: str) -> str:
        return "/".join([root.rstrip("/"), *parts])

    def read(self, path: str) -> bytes | None:
        if path.endswith("unreadable"):
            raise OSError("permission denied")
        return self.objects.get(path)

    def write(self, path: str, data: bytes) -> None:
        self.objects[path] = data


@pytest.mark.parametrize("remote", [False, True])
def test_round_trip_and_missing_entries(tmp_path, remote):
    use_bucket(tmp_path / "bucket")
    store = (CacheStore("fakegs://cache", storage=BeamFileSystemStorage()) if remote
             else CacheStore(tmp_path / "cache"))
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


def test_remote_root_without_storage_is_refused():
    with pytest.raises(ValueError, match="storage"):
        CacheStore("gs://bucket/cache")
    assert is_remote_root("gs://bucket/cache") and not is_remote_root("/tmp/cache")
    assert not is_remote_root(None)


def test_injected_storage_needs_no_beam():
    storage = MemoryStorage()
    assert isinstance(storage, ObjectStorage)
    assert isinstance(BeamFileSystemStorage(), ObjectStorage)
    store = CacheStore("mem://cache", storage=storage)
    path = store.path("cdx", "page.json")
    assert path == "mem://cache/cdx/page.json" and store.remote
    assert store.read(path) is None
    store.write(path, b"{}")
    assert storage.objects == {path: b"{}"} and store.read(path) == b"{}"
    assert store.read(store.path("unreadable")) is None


def test_http_client_uses_an_object_store_cache(tmp_path):
    from tests.fakes.wiki_server import FakePage, FakeWiki
    from transforms.clients.wikipedia_pages import WikipediaPageFetcher

    use_bucket(tmp_path / "bucket")
    storage = BeamFileSystemStorage()
    with FakeWiki([FakePage("Nile", "A river.", 7)]) as wiki:
        fetcher = WikipediaPageFetcher(rest_url=wiki.rest_url, cache_dir="fakegs://http",
                                       cache_storage=storage, per_minute=0)
        assert fetcher.fetch("Nile").revision == 7
        asked = len(wiki.requests)
        again = WikipediaPageFetcher(rest_url=wiki.rest_url, cache_dir="fakegs://http",
                                     cache_storage=storage, per_minute=0)
        assert again.fetch("Nile").revision == 7
        assert len(wiki.requests) == asked  # a re-run on another worker hits the cache
