"""An index release on an object store is copied to local disk once per machine, verified."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fakes.object_store import use_bucket
from transforms.clients.local_search import IndexFormatError, LocalSearch
from transforms.nq.backends import BackendOptions
from transforms.sources.index_copy import (
    DamagedIndexError,
    check_index_dir,
    local_index,
)


@pytest.fixture(scope="module")
def index_release(sample_build):
    return str(sample_build("search_index")[1])  # only copied from: the run's shared build


@pytest.fixture
def bucket(tmp_path, index_release):
    use_bucket(tmp_path / "bucket")
    shutil.copytree(index_release, tmp_path / "bucket" / "idx" / "search_en" / "1.0.0")
    return tmp_path / "bucket" / "idx" / "search_en" / "1.0.0"


REMOTE = "fakegs://idx/search_en/1.0.0"


def test_a_remote_index_is_copied_once_and_verified(tmp_path, bucket):
    local = local_index(REMOTE, cache_root=str(tmp_path / "cache"))
    copied = sorted(p.relative_to(local).as_posix() for p in Path(local).rglob("*")
                    if p.is_file())
    assert "index_meta.json" in copied and not [c for c in copied if c.startswith("docs/")]
    assert any(c.startswith("bm25/") for c in copied) and any(
        c.startswith("pages/") for c in copied)
    hits = LocalSearch(local).search("who wrote the declaration of independence")
    assert hits and LocalSearch(local).page(hits[0].url.rsplit("/", 1)[1]) is not None
    shutil.rmtree(bucket / "bm25")  # the second worker process uses the machine's copy
    assert local_index(REMOTE, cache_root=str(tmp_path / "cache")) == local


def test_a_damaged_remote_file_is_never_used(tmp_path, bucket):
    store = sorted((bucket / "pages").glob("store-*.bin"))[0]
    store.write_bytes(store.read_bytes()[:-10])
    cache = tmp_path / "cache"
    with pytest.raises(DamagedIndexError, match="pages/store-00000.bin"):
        local_index(REMOTE, cache_root=str(cache))
    assert [p.name for p in cache.iterdir() if not p.name.endswith(".lock")] == []


def test_workers_build_clients_from_a_remote_index(tmp_path, bucket, monkeypatch):
    monkeypatch.setenv("QA_INDEX_CACHE", str(tmp_path / "worker-cache"))
    options = BackendOptions(index_dir=REMOTE)
    hit = options.make_search().search("declaration of independence")[0]
    page = options.make_fetcher().fetch(hit.url.rsplit("/", 1)[1])
    assert page.html and page.revision >= 0
    assert (tmp_path / "worker-cache").is_dir()


def test_index_dirs_are_checked_before_any_work(tmp_path, index_release, bucket):
    check_index_dir(index_release)
    check_index_dir(REMOTE)
    with pytest.raises(IndexFormatError, match="does not exist"):
        check_index_dir(str(tmp_path / "missing"))
    old = tmp_path / "old"
    shutil.copytree(index_release, old)
    shutil.rmtree(old / "pages")
    with pytest.raises(IndexFormatError, match="rebuild it"):
        check_index_dir(str(old))
    with pytest.raises(IndexFormatError, match="not a published index release"):
        check_index_dir("fakegs://idx/search_en/2.0.0")


def test_a_remote_file_longer_than_the_manifest_says_stops_the_copy(tmp_path, bucket):
    index_meta = bucket / "index_meta.json"
    index_meta.write_bytes(index_meta.read_bytes() + b" " * (9 << 20))  # more than one block
    cache = tmp_path / "cache"
    with pytest.raises(DamagedIndexError, match="index_meta.json"):
        local_index(REMOTE, cache_root=str(cache))
    assert [p.name for p in cache.iterdir() if not p.name.endswith(".lock")] == []
