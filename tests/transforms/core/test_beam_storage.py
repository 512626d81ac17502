"""BeamFileSystemStorage and the Beam stages that hand it to the clients for remote caches."""

from __future__ import annotations

import pickle

from tests.fakes.object_store import use_bucket
from tests.fakes.wiki_server import FakePage, FakeWiki
from transforms.clients.http_json import HttpPolicy
from transforms.clients.search_backends import SearchEndpoints
from transforms.core.beam_storage import BeamFileSystemStorage, beam_storage_for
from transforms.nq.backends import BackendOptions


def test_storage_only_for_remote_roots(tmp_path):
    assert isinstance(beam_storage_for("gs://bucket/cache"), BeamFileSystemStorage)
    assert beam_storage_for(str(tmp_path)) is None
    assert beam_storage_for(tmp_path) is None
    assert beam_storage_for("") is None and beam_storage_for(None) is None


def test_raw_bytes_visible_after_close(tmp_path):
    use_bucket(tmp_path)
    storage = BeamFileSystemStorage()
    path = storage.join("fakegs://cache", "ab", "entry.gz")
    assert path == "fakegs://cache/ab/entry.gz"
    assert storage.read(path) is None
    storage.write(path, b"\x1f\x8b not really gzip")  # no compression inferred from ".gz"
    assert storage.read(path) == b"\x1f\x8b not really gzip"
    assert (tmp_path / "cache" / "ab" / "entry.gz").read_bytes() == b"\x1f\x8b not really gzip"


def test_backend_options_build_clients_on_a_remote_cache(tmp_path):
    use_bucket(tmp_path / "bucket")
    with FakeWiki([FakePage("Nile", "A river flowing north.", 7)]) as wiki:
        options = BackendOptions(search="mediawiki", pages="rest",
                                 http=HttpPolicy(per_minute=0, cache_dir="fakegs://http"),
                                 search_options=SearchEndpoints(api_url=wiki.api_url),
                                 rest_url=wiki.rest_url)
        options = pickle.loads(pickle.dumps(options))  # shipped to the workers
        for _ in range(2):  # the second worker is served from the object store
            assert options.make_fetcher().fetch("Nile").revision == 7
            assert [hit.title for hit in options.make_search().search("river")] == ["Nile"]
        assert len(wiki.requests) == 2
    assert list((tmp_path / "bucket" / "http").rglob("*.http"))
    assert not hasattr(options.http, "cache_storage")
