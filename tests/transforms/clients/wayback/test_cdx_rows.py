"""Hostile CDX pages: a malformed row costs only itself, a duplicate is counted, a nesting
bomb is a ``bad_cdx_response`` (issue 23, items 7, 8 and 11), against a scripted fake archive."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.wayback_server import FakeWayback
from tests.transforms.clients.wayback.helpers import (
    CDX_HEADER,
    ScriptedCdx,
    cdx_page,
    cdx_row,
    html,
    make_client,
)
from transforms.clients.wayback.cdx import (
    BAD_TIMESTAMP,
    CONTROL_CHARACTER,
    EMPTY_URL,
    FIELD_TOO_LONG,
    LONE_SURROGATE,
    MALFORMED_ROW_REASONS,
    MAX_FIELD_CHARS,
    NON_STRING_FIELD,
    NOT_A_LIST,
    ROW_EXCERPT_CHARS,
    WRONG_FIELD_COUNT,
    CdxBadRow,
    CdxCapture,
    CdxDuplicate,
    parse_cdx_json,
)
from transforms.clients.wayback.errors import WaybackError

BAD_ROWS: list[tuple[str, Any]] = [
    (NOT_A_LIST, {"urlkey": "uk,co,bbc)/news/x"}),
    (NOT_A_LIST, "uk,co,bbc)/news/x 20160101000000"),
    (WRONG_FIELD_COUNT, cdx_row("short")[:4]),
    (WRONG_FIELD_COUNT, [*cdx_row("long"), "extra"]),
    (BAD_TIMESTAMP, cdx_row("letters", timestamp="2016010100000x")),
    (BAD_TIMESTAMP, cdx_row("month13", timestamp="20161301000000")),
    (BAD_TIMESTAMP, cdx_row("short-ts", timestamp="2016")),
    (BAD_TIMESTAMP, cdx_row("slash-ts", timestamp="../../../../x")),
    (NON_STRING_FIELD, cdx_row("int-status", statuscode=200)),
    (NON_STRING_FIELD, cdx_row("nested", original=["https://www.bbc.co.uk/news/nested"])),
    (NON_STRING_FIELD, cdx_row("null-digest", digest=None)),
    (LONE_SURROGATE, cdx_row("surrogate", original="https://www.bbc.co.uk/news/\ud800")),
    (CONTROL_CHARACTER, cdx_row("crlf", original="https://www.bbc.co.uk/news/a\r\nX-Evil: 1")),
    (CONTROL_CHARACTER, cdx_row("nul", urlkey="uk,co,bbc)/news/\x00")),
    (FIELD_TOO_LONG, cdx_row("long-url", original="https://www.bbc.co.uk/news/" + "a" * 200_000)),
    (EMPTY_URL, cdx_row("empty", original="")),
]


def test_reasons_are_distinct_constants() -> None:
    assert len(set(MALFORMED_ROW_REASONS)) == len(MALFORMED_ROW_REASONS)
    assert {reason for reason, _ in BAD_ROWS} == set(MALFORMED_ROW_REASONS)


@pytest.mark.parametrize(("reason", "bad"), BAD_ROWS, ids=[f"{r}-{i}" for i, (r, _) in
                                                        enumerate(BAD_ROWS)])
def test_a_malformed_row_costs_only_itself(reason: str, bad: Any) -> None:
    body = cdx_page([cdx_row("before"), bad, cdx_row("after")], "next-page")
    parsed = parse_cdx_json(body, page="p1")
    assert [c.urlkey for c in parsed.captures] == ["uk,co,bbc)/news/before",
                                                   "uk,co,bbc)/news/after"]
    assert parsed.resume_key == "next-page"
    assert len(parsed.bad_rows) == 1
    bad_row = parsed.bad_rows[0]
    assert (bad_row.reason, bad_row.page, bad_row.index) == (reason, "p1", 1)
    assert bad_row.row.isascii() and len(bad_row.row) <= ROW_EXCERPT_CHARS
    assert bad_row.detail
    assert CdxBadRow.from_dict(json.loads(json.dumps(bad_row.to_dict()))) == bad_row


def test_the_longest_allowed_field_is_kept() -> None:
    original = "https://www.bbc.co.uk/news/" + "a" * (MAX_FIELD_CHARS - 27)
    parsed = parse_cdx_json(cdx_page([cdx_row("x", original=original)]))
    assert [c.original for c in parsed.captures] == [original]
    assert not parsed.bad_rows


@pytest.mark.parametrize("body", [
    "[" * 100_000 + "]" * 100_000,
    json.dumps([CDX_HEADER, cdx_row("a")])[:-1] + ", " + "[" * 50_000 + "]" * 50_000 + "]",
])
def test_nesting_bomb_is_a_value_error_not_a_recursion_error(body: str) -> None:
    with pytest.raises(ValueError, match="nested"):
        parse_cdx_json(body)


@pytest.mark.parametrize("body", [
    json.dumps([CDX_HEADER, cdx_row("a"), [], [5]]),
    json.dumps([CDX_HEADER, cdx_row("a"), [], [""]]),
    json.dumps([CDX_HEADER, cdx_row("a"), [], ["k" * (MAX_FIELD_CHARS + 1)]]),
    json.dumps([{"urlkey": 1}, cdx_row("a")]),
    json.dumps(["urlkey", cdx_row("a")]),
])
def test_a_page_whose_header_or_resume_key_is_broken_is_refused(body: str) -> None:
    with pytest.raises(ValueError):
        parse_cdx_json(body)


def _describe(entries: list[Any]) -> list[tuple[str, str]]:
    out = []
    for entry in entries:
        if isinstance(entry, CdxCapture):
            out.append(("capture", entry.urlkey))
        elif isinstance(entry, CdxDuplicate):
            out.append(("duplicate", entry.capture.urlkey))
        else:
            out.append((entry.reason, entry.page))
    return out


SCRIPT = {
    None: cdx_page([cdx_row("a"), cdx_row("b", timestamp="2016"), cdx_row("c")], "k2"),
    "k2": cdx_page([cdx_row("c", timestamp="20160202000000"), [1, 2], cdx_row("d")], "k3"),
    "k3": cdx_page([cdx_row("e", original="https://www.bbc.co.uk/news/e\x07"), cdx_row("f")]),
}
EXPECTED = [  # each page's captures in order, then its refused rows
    ("capture", "uk,co,bbc)/news/a"), ("capture", "uk,co,bbc)/news/c"), (BAD_TIMESTAMP, ""),
    ("duplicate", "uk,co,bbc)/news/c"), ("capture", "uk,co,bbc)/news/d"),
    (WRONG_FIELD_COUNT, "k2"),
    ("capture", "uk,co,bbc)/news/f"), (CONTROL_CHARACTER, "k3"),
]


def test_listing_goes_on_across_resume_key_pages(sleeps: list[float]) -> None:
    with ScriptedCdx(SCRIPT) as fake, make_client(fake.base_url, sleeps) as client:
        entries = list(client.iter_cdx_entries("bbc.co.uk/news/", limit=3))
        captures = list(client.iter_cdx("bbc.co.uk/news/", limit=3))
    assert _describe(entries) == EXPECTED
    assert [c.urlkey[-1] for c in captures] == ["a", "c", "d", "f"]
    assert len(fake.cdx_requests) == 6 and not sleeps  # bad rows are not retried


def test_bad_rows_and_duplicates_come_back_from_the_cache(tmp_path: Path,
                                                          sleeps: list[float]) -> None:
    with ScriptedCdx(SCRIPT) as fake:
        with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
            first = list(client.iter_cdx_entries("bbc.co.uk/news/", limit=3))
        with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
            again = list(client.iter_cdx_entries("bbc.co.uk/news/", limit=3))
            assert client.stats["cache_hits"] == 3
        assert len(fake.cdx_requests) == 3
    assert again == first and _describe(again) == EXPECTED


def test_a_corrupt_cached_page_is_asked_again(tmp_path: Path, sleeps: list[float]) -> None:
    with ScriptedCdx({None: cdx_page([cdx_row("a")])}) as fake:
        with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
            first = list(client.iter_cdx_entries("bbc.co.uk/news/"))
        (cached,) = list((tmp_path / "cdx").glob("*.json"))
        record = json.loads(cached.read_text())
        for damage in ("[" * 10_000 + "]" * 10_000,
                       json.dumps({**record, "captures": [{"urlkey": 1}]}),
                       json.dumps({**record, "captures": [{**record["captures"][0],
                                                           "timestamp": "x/../y"}]}),
                       json.dumps({**record, "bad_rows": [None]})):
            cached.write_text(damage)
            with make_client(fake.base_url, sleeps, cache_dir=str(tmp_path)) as client:
                assert list(client.iter_cdx_entries("bbc.co.uk/news/")) == first
                assert client.stats.get("cache_hits", 0) == 0
        assert len(fake.cdx_requests) == 5


def test_deeply_nested_cdx_response_is_a_bad_cdx_response(sleeps: list[float]) -> None:
    with ScriptedCdx({None: "[" * 100_000 + "]" * 100_000}) as fake, \
            make_client(fake.base_url, sleeps, max_retries=1) as client:
        with pytest.raises(WaybackError) as caught:
            list(client.iter_cdx("bbc.co.uk/news/"))
    assert caught.value.kind == "bad_cdx_response"
    assert "too_deeply_nested" in str(caught.value)
    assert len(fake.cdx_requests) == 2


def test_adjacent_duplicates_across_pages_are_reported(sleeps: list[float]) -> None:
    captures = [
        ("https://www.bbc.co.uk/news/a", "20160101000000", html(1)),
        ("https://www.bbc.co.uk/news/a", "20160202000000", html(2)),
        ("https://www.bbc.co.uk/news/a", "20160303000000", html(3)),
        ("https://www.bbc.co.uk/news/d", "20160101000000", html(4)),
    ]
    with FakeWayback(captures) as fake, make_client(fake.base_url, sleeps) as client:
        entries = list(client.iter_cdx_entries("bbc.co.uk/news/", limit=1))
    assert [(type(e).__name__, getattr(e, "capture", e).timestamp) for e in entries] == [
        ("CdxCapture", "20160101000000"), ("CdxDuplicate", "20160202000000"),
        ("CdxDuplicate", "20160303000000"), ("CdxCapture", "20160101000000")]
