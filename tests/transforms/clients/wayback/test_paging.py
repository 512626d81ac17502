"""Bounds on CDX paging (issue 27 §2): a resume-key cycle, a page that lists nothing new and
more pages than the cap each stop the listing with a named kind, from the network and from
the cache alike."""

from __future__ import annotations

from itertools import islice
from pathlib import Path

import pytest

from tests.fakes.wayback_server import FakeWayback
from tests.transforms.clients.wayback.helpers import (
    ScriptedCdx,
    cdx_page,
    cdx_row,
    html,
    make_client,
)
from transforms.clients.wayback.cdx import CdxCapture
from transforms.clients.wayback.errors import WaybackError

STORIES = [(f"https://www.bbc.co.uk/news/story-{i}", "20160101000000", html(i))
           for i in range(7)]
BOUND = 200  # entries read before a test gives up on a listing that never ends


def _listing(client, **query):
    """At most BOUND entries of a listing (a listing that never ends cannot hang a test)."""
    return list(islice(client.iter_cdx_entries("bbc.co.uk/news/", **query), BOUND))


def test_a_resume_key_cycle_stops_the_listing(sleeps: list[float], tmp_path: Path) -> None:
    with FakeWayback(STORIES) as fake:
        fake.cycle_resume_keys(2)  # A -> B -> A
        with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
            with pytest.raises(WaybackError) as info:
                _listing(client, limit=2)
        assert info.value.kind == "resume_key_cycle" and not info.value.retryable
        assert "after 3 pages" in info.value.message and "url=bbc.co.uk" in info.value.url
        assert len(fake.cdx_requests) == 3
        with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
            with pytest.raises(WaybackError) as again:
                _listing(client, limit=2)  # from the cache: the same three pages, then stop
            assert client.stats["cache_hits"] == 3
        assert again.value.kind == "resume_key_cycle" and len(fake.cdx_requests) == 3


def test_a_key_that_comes_back_at_once_is_a_cycle_too(sleeps: list[float]) -> None:
    with FakeWayback(STORIES) as fake:
        fake.cycle_resume_keys(1)
        with make_client(fake.base_url, sleeps) as client, pytest.raises(WaybackError) as info:
            _listing(client, limit=2)
    assert info.value.kind == "resume_key_cycle" and len(fake.cdx_requests) == 2


def test_the_captures_before_a_cycle_are_listed_once(sleeps: list[float]) -> None:
    pages = {None: cdx_page([cdx_row("a"), cdx_row("b")], "A"),
             "A": cdx_page([cdx_row("c")], "B"),
             "B": cdx_page([cdx_row("d")], "A")}
    listed: list[str] = []
    with ScriptedCdx(pages) as fake, make_client(fake.base_url, sleeps) as client:
        with pytest.raises(WaybackError) as info:
            for entry in islice(client.iter_cdx_entries("bbc.co.uk/news/", limit=2), BOUND):
                assert isinstance(entry, CdxCapture)
                listed.append(entry.urlkey.rsplit("/", 1)[1])
    assert info.value.kind == "resume_key_cycle"
    assert listed == ["a", "b", "c", "d"] and len(fake.cdx_requests) == 3


@pytest.mark.parametrize(("pages", "requests"), [
    # a page with a resume key but no row
    ({None: cdx_page([], "A"), "A": cdx_page([cdx_row("a")])}, 1),
    # a server that ignores resumeKey and hands out fresh keys with the same rows
    ({None: cdx_page([cdx_row("a")], "k1"), "k1": cdx_page([cdx_row("a")], "k2"),
      "k2": cdx_page([cdx_row("b")])}, 2),
])
def test_a_page_that_lists_nothing_new_stops_the_listing(
    sleeps: list[float], pages: dict, requests: int
) -> None:
    with ScriptedCdx(pages) as fake, make_client(fake.base_url, sleeps) as client:
        with pytest.raises(WaybackError) as info:
            _listing(client, limit=1)
    assert info.value.kind == "cdx_no_progress" and not info.value.retryable
    assert len(fake.cdx_requests) == requests


def test_pages_per_query_are_capped(sleeps: list[float]) -> None:
    with FakeWayback(STORIES) as fake, make_client(fake.base_url, sleeps,
                                                   max_cdx_pages=2) as client:
        listed: list[object] = []
        with pytest.raises(WaybackError) as info:
            for entry in client.iter_cdx_entries("bbc.co.uk/news/", limit=2):
                listed.append(entry)
    assert info.value.kind == "too_many_cdx_pages" and "more than 2 pages" in info.value.message
    assert len(listed) == 4 and len(fake.cdx_requests) == 2
    with FakeWayback(STORIES) as fake, make_client(fake.base_url, sleeps,
                                                   max_cdx_pages=4) as client:
        assert len(list(client.iter_cdx("bbc.co.uk/news/", limit=2))) == 7  # exactly 4 pages
