"""ListCdxCaptures accounts for every CDX row: malformed rows are counted by reason and
dead-lettered, duplicates counted, a nesting-bomb page is a failure of its query only
(issue 23, items 7, 8 and 11). The DoFn is driven directly against a scripted fake archive."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from apache_beam import pvalue

from tests.fakes.wayback_server import FakeWayback
from tests.transforms.clients.wayback.helpers import ScriptedCdx, cdx_page, cdx_row, html
from transforms.clients.wayback import WaybackPolicy
from transforms.clients.wayback.cdx import (
    BAD_TIMESTAMP,
    CONTROL_CHARACTER,
    LONE_SURROGATE,
    NON_STRING_FIELD,
    NOT_A_LIST,
    WRONG_FIELD_COUNT,
    CdxCapture,
)
from transforms.core.accounting import DEAD_LETTER, TALLY
from transforms.sources.wayback import (
    CAPTURES_LISTED,
    MALFORMED,
    ROWS_READ,
    SKIPPED_ADJACENT_DUPLICATE,
    ListCdxCaptures,
)

QUERY = {"url": "bbc.co.uk/news/", "match_type": "prefix", "limit": 3}
POLICY = WaybackPolicy().override(cdx_per_minute=0, max_retries=1, backoff_base=0.0,
                                  timeout=(2.0, 2.0), rate_limit_pause=0.0, cache_dir=None)


def _list(base_url: str, queries: list[dict[str, Any]]) -> tuple[list, Counter, list[dict]]:
    """Run ListCdxCaptures on ``queries``: the captures, the tallies and the dead letters."""
    stage = ListCdxCaptures(base_url, POLICY, sleep=lambda _seconds: None)
    stage.setup()
    captures, tallies, dead = [], Counter(), []
    try:
        for query in queries:
            for item in stage.process(query):
                if isinstance(item, CdxCapture):
                    captures.append(item)
                elif isinstance(item, pvalue.TaggedOutput) and item.tag == TALLY:
                    tallies[item.value[0]] += item.value[1]
                elif isinstance(item, pvalue.TaggedOutput) and item.tag == DEAD_LETTER:
                    dead.append(item.value)
    finally:
        stage.teardown()
    return captures, tallies, dead


def _malformed(tallies: Counter) -> int:
    return sum(n for name, n in tallies.items() if name.startswith(f"cdx.{MALFORMED}."))


def test_every_row_is_kept_dropped_by_reason_or_dead_lettered() -> None:
    script = {
        None: cdx_page([cdx_row("a"), {"not": "a list"}, cdx_row("b", timestamp="20161301000000"),
                        cdx_row("c")], "k2"),
        "k2": cdx_page([cdx_row("c", timestamp="20160202000000"), [1, 2, 3],
                        cdx_row("d", statuscode=200), cdx_row("e")], "k3"),
        "k3": cdx_page([cdx_row("f", original="https://www.bbc.co.uk/news/\ud800"),
                        cdx_row("g", original="https://www.bbc.co.uk/news/g\x1b[2J"),
                        cdx_row("h")]),
    }
    with ScriptedCdx(script) as fake:
        captures, tallies, dead = _list(fake.base_url, [QUERY])
    assert [c.urlkey[-1] for c in captures] == ["a", "c", "e", "h"]
    assert tallies[f"cdx.{ROWS_READ}"] == 11
    assert tallies[f"cdx.{CAPTURES_LISTED}"] == 4
    assert tallies[f"cdx.{SKIPPED_ADJACENT_DUPLICATE}"] == 1
    assert {name: n for name, n in tallies.items() if name.startswith("cdx.malformed.")} == {
        f"cdx.{MALFORMED}.{reason}": 1 for reason in (
            NOT_A_LIST, BAD_TIMESTAMP, WRONG_FIELD_COUNT, NON_STRING_FIELD, LONE_SURROGATE,
            CONTROL_CHARACTER)}
    assert tallies[f"cdx.{ROWS_READ}"] == (tallies[f"cdx.{CAPTURES_LISTED}"]
                                           + tallies[f"cdx.{SKIPPED_ADJACENT_DUPLICATE}"]
                                           + _malformed(tallies))
    assert not [name for name in tallies if ".failed." in name]
    assert sorted((d["reason"], d["page"], d["index"]) for d in dead) == sorted([
        (NOT_A_LIST, "", 1), (BAD_TIMESTAMP, "", 2), (WRONG_FIELD_COUNT, "k2", 1),
        (NON_STRING_FIELD, "k2", 2), (LONE_SURROGATE, "k3", 0), (CONTROL_CHARACTER, "k3", 1)])
    for letter in dead:
        assert letter["stage"] == "cdx" and letter["url"] == QUERY["url"]
        assert letter["row"].isascii() and letter["error"].startswith(letter["reason"])
        json.dumps(letter, ensure_ascii=False).encode("utf-8")  # writable as a release file


def test_adjacent_duplicates_are_counted() -> None:
    captures = [
        ("https://www.bbc.co.uk/news/a", "20160101000000", html(1)),
        ("https://www.bbc.co.uk/news/a", "20160202000000", html(2)),
        ("https://www.bbc.co.uk/news/a", "20160303000000", html(3)),
        ("https://www.bbc.co.uk/news/d", "20160101000000", html(4)),
    ]
    with FakeWayback(captures) as fake:
        listed, tallies, dead = _list(fake.base_url, [{**QUERY, "limit": 1}])
    assert [c.original[-1] for c in listed] == ["a", "d"]
    assert tallies[f"cdx.{ROWS_READ}"] == 4
    assert tallies[f"cdx.{CAPTURES_LISTED}"] == 2
    assert tallies[f"cdx.{SKIPPED_ADJACENT_DUPLICATE}"] == 2
    assert not dead


def test_a_nesting_bomb_page_fails_its_query_only() -> None:
    bomb = "[" * 100_000 + "]" * 100_000
    script = {None: cdx_page([cdx_row("a")], "bomb"), "bomb": bomb}
    other = {None: cdx_page([cdx_row("z")])}
    with ScriptedCdx(script) as fake, ScriptedCdx(other) as good:
        first = _list(fake.base_url, [QUERY])
        second = _list(good.base_url, [QUERY])
    captures, tallies, dead = first
    assert [c.urlkey[-1] for c in captures] == ["a"]
    assert tallies["cdx.failed.bad_cdx_response"] == 1
    assert [(d["stage"], d["kind"]) for d in dead] == [("cdx", "bad_cdx_response")]
    assert "too_deeply_nested" in dead[0]["error"]
    assert [c.urlkey[-1] for c in second[0]] == ["z"]
