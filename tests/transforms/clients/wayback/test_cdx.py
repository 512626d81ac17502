"""transforms.clients.wayback.cdx: captures, CDX parsing, query building and paging
(against the in-process fake Wayback server)."""

from __future__ import annotations

import json

import pytest

from tests.fakes.wayback_server import FakeWayback, sha1_base32
from tests.transforms.clients.wayback.helpers import (
    STORY_TS,
    STORY_URL,
    html,
    make_client,
    query_of,
)
from transforms.clients.wayback.cdx import CdxCapture, CdxPage, bbc_cdx_queries, parse_cdx_json


def test_capture_round_trip_and_id_url() -> None:
    capture = CdxCapture("uk,co,bbc)/news/a", STORY_TS, STORY_URL, "text/html", "200", "X" * 32)
    assert CdxCapture.from_dict(capture.to_dict()) == capture
    assert CdxCapture.from_dict({**capture.to_dict(), "length": "12"}) == capture
    assert capture.id_url("https://web.archive.org/") == (
        f"https://web.archive.org/web/{STORY_TS}id_/{STORY_URL}"
    )


def test_parse_cdx_json_reads_columns_by_header_name() -> None:
    body = json.dumps(
        [
            ["timestamp", "length", "digest", "original", "urlkey", "statuscode", "mimetype"],
            [
                "20150101000000",
                "99",
                "D1",
                "http://bbc.co.uk/news/a",
                "uk,co,bbc)/news/a",
                "200",
                "text/html",
            ],
            [],
            ["uk%2Cco%2Cbbc%29%2Fnews%2Fa+20150101000000%21"],
        ]
    )
    parsed = parse_cdx_json(body)
    assert list(parsed.captures) == [
        CdxCapture(
            "uk,co,bbc)/news/a",
            "20150101000000",
            "http://bbc.co.uk/news/a",
            "text/html",
            "200",
            "D1",
        )
    ]
    assert parsed.resume_key == "uk%2Cco%2Cbbc%29%2Fnews%2Fa+20150101000000%21"
    assert parsed.bad_rows == ()


@pytest.mark.parametrize("body", ['{"not": "a table"}', '[["timestamp", "original"]]', "<html>"])
def test_parse_cdx_json_rejects_malformed_bodies(body: str) -> None:
    with pytest.raises(ValueError):
        parse_cdx_json(body)


def test_parse_cdx_json_empty_result() -> None:
    assert parse_cdx_json("") == CdxPage((), (), None)
    assert parse_cdx_json("[]") == CdxPage((), (), None)


def test_iter_cdx_pages_through_three_pages_with_resume_keys(sleeps: list[float]) -> None:
    captures = [
        (f"https://www.bbc.co.uk/news/story-{i}", "20160101000000", html(i)) for i in range(7)
    ]
    with FakeWayback(captures) as fake, make_client(fake.base_url, sleeps) as client:
        got = list(client.iter_cdx("bbc.co.uk/news/", limit=3))
    assert [c.original for c in got] == sorted(c[0] for c in captures)
    assert len(fake.cdx_requests) == 3
    first, second, third = (query_of(path) for path in fake.cdx_requests)
    assert "resumeKey" not in first
    assert second["resumeKey"] != third["resumeKey"]
    assert first["filter"] == ["statuscode:200|-", "mimetype:text/html|warc/revisit"]
    assert first["output"] == ["json"] and first["showResumeKey"] == ["true"]
    assert first["collapse"] == ["urlkey"] and first["limit"] == ["3"]
    assert first["fl"] == ["urlkey,timestamp,original,mimetype,statuscode,digest"]
    assert all(c.digest == sha1_base32(html(int(c.original[-1]))) for c in got)


def test_iter_cdx_applies_filters_and_collapse(sleeps: list[float]) -> None:
    captures = [
        ("https://www.bbc.co.uk/news/a", "20160101000000", html(1)),
        ("https://www.bbc.co.uk/news/a", "20160202000000", html(2)),
        ("https://www.bbc.co.uk/news/a", "20160303000000", html(3)),
        ("https://www.bbc.co.uk/news/b", "20160101000000", html(4), "text/html", "404"),
        ("https://www.bbc.co.uk/news/c.jpg", "20160101000000", b"\xff\xd8", "image/jpeg"),
        ("https://www.bbc.co.uk/news/d", "20160101000000", html(5)),
    ]
    with FakeWayback(captures) as fake, make_client(fake.base_url, sleeps) as client:
        collapsed = list(client.iter_cdx("bbc.co.uk/news/"))
        # limit=1 forces the server to re-send "a" on later pages; the client drops them.
        paged = list(client.iter_cdx("bbc.co.uk/news/", limit=1))
        everything = list(client.iter_cdx("bbc.co.uk/news/", filters=(), collapse=None))
    expected = [
        ("https://www.bbc.co.uk/news/a", "20160101000000"),
        ("https://www.bbc.co.uk/news/d", "20160101000000"),
    ]
    assert [(c.original, c.timestamp) for c in collapsed] == expected
    assert [(c.original, c.timestamp) for c in paged] == expected
    assert len(everything) == 6
    assert {c.statuscode for c in everything} == {"200", "404"}


def test_iter_cdx_from_to_restricts_years(sleeps: list[float]) -> None:
    captures = [
        (f"https://www.bbc.co.uk/news/y{year}", f"{year}0615000000", html(year))
        for year in range(2013, 2019)
    ]
    with FakeWayback(captures) as fake, make_client(fake.base_url, sleeps) as client:
        got = list(client.iter_cdx("bbc.co.uk/news/", from_="2015", to="2016"))
    assert sorted(c.timestamp[:4] for c in got) == ["2015", "2016"]
    assert query_of(fake.cdx_requests[0])["from"] == ["2015"]
    assert query_of(fake.cdx_requests[0])["to"] == ["2016"]


def test_bbc_cdx_queries_enumerate_both_hosts(sleeps: list[float]) -> None:
    queries = bbc_cdx_queries(2014, 2016)
    assert queries == [
        {"url": "bbc.co.uk/news/", "match_type": "prefix", "from_": "2014", "to": "2016"},
        {"url": "bbc.com/news/", "match_type": "prefix", "from_": "2014", "to": "2016"},
    ]
    captures = [
        ("https://www.bbc.co.uk/news/uk-1", "20150101000000", html(1)),
        ("http://bbc.co.uk/news/uk-2", "20160101000000", html(2)),
        ("https://www.bbc.com/news/world-3", "20140101000000", html(3)),
        ("https://www.bbc.com/news/world-4", "20190101000000", html(4)),
        ("https://www.bbc.co.uk/sport/football-5", "20150101000000", html(5)),
    ]
    with FakeWayback(captures) as fake, make_client(fake.base_url, sleeps) as client:
        got = [c.original for q in queries for c in client.iter_cdx(**q)]
    assert sorted(got) == sorted(c[0] for c in captures[:3])
    with pytest.raises(ValueError):
        bbc_cdx_queries(2017, 2016)
