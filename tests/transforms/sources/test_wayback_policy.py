"""The Wayback DoFns and the linking options hold frozen settings that survive pickling the way
Beam ships them to workers (issue 24 §3)."""

from __future__ import annotations

import pickle

from apache_beam.internal import pickler

from transforms.clients.http_json import HttpPolicy
from transforms.clients.search_backends import SearchEndpoints
from transforms.clients.wayback import WaybackPolicy
from transforms.nq.backends import BackendOptions
from transforms.sources.wayback import FetchCaptures, ListCdxCaptures, ReadWaybackPages

POLICY = WaybackPolicy(cache_dir="gs://bucket/wayback", fetch_workers=4).override(deadline=30.0)


def test_wayback_dofns_pickle_with_their_policy() -> None:
    for stage in (ListCdxCaptures("http://127.0.0.1:9", POLICY),
                  FetchCaptures("http://127.0.0.1:9", POLICY.per_fetcher())):
        for loads, dumps in ((pickle.loads, pickle.dumps), (pickler.loads, pickler.dumps)):
            copy = loads(dumps(stage))
            assert (type(copy), copy.base_url, copy.policy) == (
                type(stage), stage.base_url, stage.policy)


def test_source_hands_each_stage_its_policy() -> None:
    source = ReadWaybackPages("http://127.0.0.1:9", 2016, 2016, POLICY)
    assert source.cdx_policy == POLICY and source.fetch_workers == 4
    assert source.fetch_policy.fetches_per_minute == POLICY.fetches_per_minute / 4
    assert source.fetch_policy.limits == POLICY.limits


def test_backend_options_pickle_with_typed_settings() -> None:
    options = BackendOptions("mediawiki", "rest", "ja", "", HttpPolicy(per_minute=15),
                             SearchEndpoints(api_url="https://ja.wikipedia.org/w/api.php"))
    assert pickle.loads(pickle.dumps(options)) == options
    assert pickler.loads(pickler.dumps(options)) == options
