"""Typed client settings (issue 24 §3): frozen, picklable, one home for each default."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError

import pytest

from transforms.clients.bounded_http import MIB, RequestLimits
from transforms.clients.http_json import DEFAULT_LIMITS as HTTP_LIMITS
from transforms.clients.http_json import HttpPolicy, PoliteHttp, build_http
from transforms.clients.search_backends import SearchEndpoints
from transforms.clients.wayback import WaybackClient, WaybackPolicy
from transforms.clients.wayback.policy import DEFAULT_LIMITS as WAYBACK_LIMITS


def test_wayback_defaults_live_in_the_policy() -> None:
    policy = WaybackPolicy()
    assert (policy.cdx_per_minute, policy.fetches_per_minute, policy.rate_limit_pause,
            policy.fetch_workers, policy.cache_dir) == (20, 240, 60.0, 2, None)
    assert (policy.backoff_base, policy.backoff_max) == (2.0, 120.0)
    assert (policy.max_retry_after, policy.request_wait_budget, policy.run_wait_budget,
            policy.max_cdx_pages, policy.capture_redirects) == (300.0, 600.0, 7200.0, 10_000,
                                                                "refuse")
    assert policy.limits == WAYBACK_LIMITS == RequestLimits(
        timeout=(10.0, 60.0), deadline=300.0, max_retries=5, max_redirects=5,
        max_body_bytes=64 * MIB, max_decoded_bytes=256 * MIB)


def test_http_defaults_live_in_the_policy() -> None:
    policy = HttpPolicy()
    assert (policy.per_minute, policy.cache_dir, policy.rate_limit_pause,
            policy.backoff_base, policy.backoff_max) == (None, None, 60.0, 1.0, 60.0)
    assert policy.limits == HTTP_LIMITS == RequestLimits(
        timeout=(10.0, 30.0), deadline=120.0, max_retries=4, max_redirects=5,
        max_body_bytes=16 * MIB, max_decoded_bytes=64 * MIB)


@pytest.mark.parametrize("settings", [
    WAYBACK_LIMITS, WaybackPolicy(cache_dir="gs://bucket/wayback"),
    HttpPolicy(per_minute=15, cache_dir=".cache/http"),
    SearchEndpoints(api_url="https://ja.wikipedia.org/w/api.php"),
])
def test_settings_are_frozen_and_pickle(settings: object) -> None:
    assert pickle.loads(pickle.dumps(settings)) == settings
    with pytest.raises(FrozenInstanceError):
        settings.cache_dir = "elsewhere"  # type: ignore[attr-defined]


def test_override_routes_limit_fields_to_the_limits() -> None:
    policy = WaybackPolicy().override(max_retries=1, timeout=2.0, cdx_per_minute=0)
    assert policy.limits.max_retries == 1 and policy.limits.timeout == (2.0, 2.0)
    assert policy.cdx_per_minute == 0 and policy.limits.deadline == WAYBACK_LIMITS.deadline
    assert WaybackPolicy().override() == WaybackPolicy()
    with pytest.raises(TypeError):
        HttpPolicy().override(no_such_setting=1)


def test_a_fetcher_gets_its_share_of_the_fetch_rate() -> None:
    share = WaybackPolicy(fetches_per_minute=240, fetch_workers=3).per_fetcher()
    assert (share.fetches_per_minute, share.fetch_workers) == (80, 1)
    assert WaybackPolicy(fetch_workers=0).per_fetcher().fetches_per_minute == 240


def test_fetchers_share_the_runs_wait_budget() -> None:
    share = WaybackPolicy(run_wait_budget=7200.0, fetch_workers=4).per_fetcher()
    assert (share.run_wait_budget, share.request_wait_budget) == (1800.0, 600.0)


@pytest.mark.parametrize("changes", [{"capture_redirects": "follow"}, {"max_cdx_pages": 0}])
def test_a_policy_refuses_what_it_cannot_do(changes: dict) -> None:
    with pytest.raises(ValueError):
        WaybackPolicy(**changes)


def test_clients_follow_their_policy() -> None:
    policy = HttpPolicy(per_minute=0, rate_limit_pause=7.0).override(deadline=9.0)
    http = PoliteHttp("ua", policy=policy)
    assert (http.limits.deadline, http.rate_limit_pause, http.max_retries) == (9.0, 7.0, 4)
    http.close()
    built = build_http(30, user_agent="ua", policy=HttpPolicy())
    assert built.policy.per_minute == 30  # the client kind's default rate
    built.close()
    wayback = WaybackClient("http://127.0.0.1:9", WaybackPolicy(cdx_per_minute=0),
                            max_retries=2)
    assert (wayback.max_retries, wayback.timeout, wayback.policy.cdx_per_minute) == (
        2, (10.0, 60.0), 0)
    wayback.close()


def test_search_endpoints_give_each_backend_only_its_own() -> None:
    endpoints = SearchEndpoints(api_url="https://w/api.php", endpoint="https://s/v1")
    assert endpoints.for_backend("mediawiki") == {"api_url": "https://w/api.php"}
    assert endpoints.for_backend("web") == {"endpoint": "https://s/v1"}
    assert endpoints.for_backend("local") == {}
    assert SearchEndpoints().for_backend("mediawiki") == {}
