"""transforms.clients.preflight: each endpoint asked once before the job, against local
servers on 127.0.0.1: reachable passes; a refused connection, a 5xx and a timeout fail at
once with a message naming the endpoint and the cause."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
import requests

from tests.fakes.wayback_server import FakeWayback
from tests.fakes.wiki_server import FakeWiki
from transforms.clients.preflight import (
    Endpoint,
    EndpointUnavailable,
    check_endpoints,
    failure_cause,
)
from transforms.clients.search_backends import search_endpoint
from transforms.clients.wikipedia_pages import pages_endpoint
from transforms.sources.wayback import cdx_endpoint

AGENT = "qa-dataset-toolkit/test (tests@example.org)"
SHORT = (1.0, 0.3)  # a probe's (connect, read) timeouts in these tests


@pytest.fixture
def wiki() -> Iterator[FakeWiki]:
    with FakeWiki([("Trade winds", "The trade winds.", 817251427, 1)],
                  hang_seconds=3.0) as server:
        yield server


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def endpoints(wiki: FakeWiki) -> list[Endpoint]:
    return [search_endpoint("mediawiki", api_url=wiki.api_url, timeout=SHORT,
                            option="--mediawiki-api-url"),
            pages_endpoint(rest_url=wiki.rest_url, timeout=SHORT, option="--rest-url")]


def test_reachable_endpoints_pass_with_one_request_each(wiki: FakeWiki) -> None:
    check_endpoints(endpoints(wiki), AGENT)
    assert len(wiki.requests) == 2
    assert wiki.requests[0] == "/w/api.php?action=query&meta=siteinfo&format=json"
    assert wiki.requests[1] == "/api/rest_v1/"  # answered 404: the server is there
    assert wiki.user_agents == [AGENT, AGENT]


def test_web_search_probe_sends_no_key_and_a_refusal_still_counts_as_reachable(
        wiki: FakeWiki) -> None:
    probe = search_endpoint("web", endpoint=f"{wiki.base_url}/customsearch/v1", timeout=SHORT)
    check_endpoints([probe], AGENT)  # 403 without a key: the server answers
    assert wiki.requests == ["/customsearch/v1"]
    assert search_endpoint("local") is None


def test_refused_connection_fails_fast_naming_the_endpoint() -> None:
    port = closed_port()
    probe = search_endpoint("mediawiki", api_url=f"http://127.0.0.1:{port}/w/api.php",
                            timeout=SHORT, option="--mediawiki-api-url")
    with pytest.raises(EndpointUnavailable) as info:
        check_endpoints([probe], AGENT)
    message = str(info.value)
    assert message.startswith(f"cannot reach the MediaWiki search API at "
                              f"http://127.0.0.1:{port}/w/api.php (--mediawiki-api-url): "
                              "connection refused")
    assert "--no-preflight" in message


@pytest.mark.parametrize("status", [500, 503])
def test_server_error_fails_naming_the_status(wiki: FakeWiki, status: int) -> None:
    wiki.fail("/api/rest_v1/", [status])
    with pytest.raises(EndpointUnavailable) as info:
        check_endpoints(endpoints(wiki), AGENT)
    lines = str(info.value).splitlines()
    assert lines[0].startswith(f"cannot reach the Wikimedia REST API (pages) at "
                               f"{wiki.rest_url}/ (--rest-url): HTTP {status}")
    assert len(lines) == 2  # the search API answered: only the pages are named
    assert len(wiki.requests) == 2  # never retried


def test_hung_server_fails_with_a_timeout(wiki: FakeWiki) -> None:
    wiki.fail("/w/api.php", ["hang"])  # stalls 3 s; the probe waits 0.3 s for an answer
    with pytest.raises(EndpointUnavailable, match=r"API at .*: no answer within 0.3 s"):
        check_endpoints(endpoints(wiki)[:1], AGENT)
    assert len(wiki.requests) == 1


def test_every_failing_endpoint_is_named() -> None:
    port = closed_port()
    probes = [search_endpoint("mediawiki", api_url=f"http://127.0.0.1:{port}/w/api.php",
                              timeout=SHORT),
              pages_endpoint(rest_url=f"http://127.0.0.1:{port}/api/rest_v1", timeout=SHORT)]
    with pytest.raises(EndpointUnavailable) as info:
        check_endpoints(probes, AGENT)
    assert [line.split(" at ")[0].strip() for line in str(info.value).splitlines()[:2]] == [
        "cannot reach the MediaWiki search API", "cannot reach the Wikimedia REST API (pages)"]


def test_the_body_is_never_read(wiki: FakeWiki) -> None:
    wiki.endless_limit = 1 << 40  # an answer that never ends: only its headers are read
    wiki.fail("/w/api.php", ["endless"])
    check_endpoints(endpoints(wiki)[:1], AGENT)


def test_an_unresolvable_host_is_named() -> None:
    """As requests reports it (no DNS lookup is made: no test touches the network)."""
    lookup = socket.gaierror(-3, "Temporary failure in name resolution")
    error = requests.exceptions.ConnectionError("Max retries exceeded")
    error.__context__ = lookup
    assert failure_cause(error, SHORT) == "host name not resolved (no network, or a wrong host)"


def test_wayback_cdx_probe_asks_for_one_line() -> None:
    with FakeWayback() as archive:
        check_endpoints([cdx_endpoint(archive.base_url, SHORT)], AGENT)
        assert archive.requests == ["/cdx/search/cdx?url=bbc.co.uk%2Fnews%2F&limit=1&output=json"]
        archive.fail("/cdx/", [502])
        with pytest.raises(EndpointUnavailable, match="Wayback Machine CDX API at .*: HTTP 502"):
            check_endpoints([cdx_endpoint(archive.base_url, SHORT)], AGENT)


def test_no_endpoint_no_request() -> None:
    check_endpoints([], AGENT)
