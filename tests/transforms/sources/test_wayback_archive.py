"""The Wayback stages on the archive's quirks (issue 27 §1-§2): a redirect to another
capture, a replayed archived 429, an excluded site, a revisit-only article and an hour of
Retry-After each end as kept, or dead-lettered with their own kind, and every wait is
tallied. The DoFns are driven directly, with recorded sleeps, against the fake archive."""

from __future__ import annotations

from collections import Counter
from typing import Any

from apache_beam import pvalue

from tests.fakes.wayback_server import FakeCapture, FakeWayback, sha1_base32
from transforms.clients.wayback import WaybackPolicy
from transforms.clients.wayback.cdx import CdxCapture
from transforms.core.accounting import DEAD_LETTER, TALLY
from transforms.sources.counters import (
    CDX_CAPTURES_LISTED,
    CDX_REVISITS_LISTED,
    FETCH_FAILED,
    FETCH_HTTP_RATE_LIMITED,
    FETCH_RETRY_WAIT_SECONDS,
    FETCH_RETRY_WAITS,
    REDIRECTED_CAPTURES_KEPT,
)
from transforms.sources.pages import CapturedPage
from transforms.sources.wayback import FetchCaptures, ListCdxCaptures

NEWS = "https://www.bbc.co.uk/news/"
QUERY = {"url": "bbc.co.uk/news/", "match_type": "prefix", "from_": "2016", "to": "2020"}
POLICY = WaybackPolicy(cdx_per_minute=0, fetches_per_minute=0, cache_dir=None).override(
    timeout=(2.0, 2.0))
ARCHIVE = [
    FakeCapture(f"{NEWS}uk-1", "20170301000000", b"<p>listed</p>", replayable=False),
    FakeCapture(f"{NEWS}uk-1", "20170322000000", b"<p>three weeks later</p>"),
    FakeCapture(f"{NEWS}uk-2", "20170301000000", b"Too Many Requests", replay_status=429),
    FakeCapture(f"{NEWS}uk-3", "20170301000000", b"<p>excluded later</p>"),
    FakeCapture(f"{NEWS}uk-4", "20150301000000", b"<p>first seen in 2015</p>"),
    FakeCapture(f"{NEWS}uk-4", "20170301000000", b"<p>first seen in 2015</p>",
                "warc/revisit", "-"),
    FakeCapture(f"{NEWS}uk-5", "20170301000000", b"<p>plain</p>"),
    FakeCapture(f"{NEWS}uk-6", "20170301000000", b"<p>slow</p>"),
]


def _run(stage, element) -> tuple[list, Counter, list[dict[str, Any]]]:
    """Outputs, tallies and dead letters of one element (the DoFn set up and torn down)."""
    stage.setup()
    outputs, tallies, dead = [], Counter(), []
    try:
        for item in stage.process(element):
            if isinstance(item, pvalue.TaggedOutput) and item.tag == TALLY:
                tallies[item.value[0]] += item.value[1]
            elif isinstance(item, pvalue.TaggedOutput) and item.tag == DEAD_LETTER:
                dead.append(item.value)
            elif not isinstance(item, pvalue.TaggedOutput):
                outputs.append(item)
    finally:
        stage.teardown()
    return outputs, tallies, dead


def _build(policy: WaybackPolicy) -> tuple[list[CapturedPage], Counter, list, list, FakeWayback]:
    sleeps: list[float] = []
    with FakeWayback(ARCHIVE) as fake:
        fake.exclude(f"{NEWS}uk-3")
        fake.fail("id_/https://www.bbc.co.uk/news/uk-6", ["unavailable_hour"])
        listed, cdx_tallies, _ = _run(ListCdxCaptures(fake.base_url, policy, sleeps.append),
                                      QUERY)
        pages, tallies, dead = _run(FetchCaptures(fake.base_url, policy, sleeps.append),
                                    (0, listed))
    return pages, cdx_tallies + tallies, dead, sleeps, fake


def test_each_archive_quirk_is_its_own_outcome() -> None:
    pages, tallies, dead, sleeps, fake = _build(POLICY)
    assert tallies[str(CDX_CAPTURES_LISTED)] == 6 and tallies[str(CDX_REVISITS_LISTED)] == 1
    assert sorted((page.url[-4:], page.timestamp) for page in pages) == [
        ("uk-4", "20170301000000"), ("uk-5", "20170301000000"), ("uk-6", "20170301000000")]
    revisit = next(page for page in pages if page.url.endswith("uk-4"))
    assert revisit.content == b"<p>first seen in 2015</p>"
    assert sorted((letter["url"][-4:], letter["kind"]) for letter in dead) == [
        ("uk-1", "capture_redirected"), ("uk-2", "archived_error"), ("uk-3", "excluded")]
    assert {name: n for name, n in tallies.items() if name.startswith("fetch.failed.")} == {
        str(FETCH_FAILED.member(kind)): 1
        for kind in ("capture_redirected", "archived_error", "excluded")}
    assert tallies[str(FETCH_HTTP_RATE_LIMITED)] == 0  # the replayed 429 is the page's
    assert tallies[str(FETCH_RETRY_WAITS)] == 1 and tallies[str(FETCH_RETRY_WAIT_SECONDS)] == 300
    assert sleeps == [300.0]  # an hour of Retry-After, capped
    assert len(fake.fetch_requests) == 8  # 2 (redirect) + 1 + 1 + 1 + 1 + 2 (one retry)


def test_accepted_redirects_keep_the_served_capture_and_its_own_digest() -> None:
    pages, tallies, dead, _, _ = _build(POLICY.override(capture_redirects="accept"))
    moved = next(page for page in pages if page.url.endswith("uk-1"))
    assert moved.timestamp == "20170322000000" and moved.content == b"<p>three weeks later</p>"
    assert moved.payload_digest() == sha1_base32(moved.content)
    assert tallies[str(REDIRECTED_CAPTURES_KEPT)] == 1
    assert "capture_redirected" not in {letter["kind"] for letter in dead}


def test_a_listed_capture_keeps_its_cdx_digest() -> None:
    pages, _, _, _, _ = _build(POLICY)
    plain = next(page for page in pages if page.url.endswith("uk-5"))
    listed = CdxCapture.from_dict(FakeCapture(f"{NEWS}uk-5", "20170301000000",
                                              b"<p>plain</p>").row())
    assert plain.digest == listed.digest


def test_the_bounds_are_build_nlquad_options() -> None:
    from pipelines.cli.spec_parser import build_parser, options_from
    from transforms.nlquad.spec import SPEC as NLQUAD
    from transforms.nlquad.spec import wayback_policy

    def policy(*argv: str) -> WaybackPolicy:
        args, _ = build_parser(NLQUAD).parse_known_args(list(argv))
        return wayback_policy(options_from(NLQUAD, args))

    assert policy() == WaybackPolicy(cache_dir=".cache/wayback")
    changed = policy("--wayback-capture-redirects", "accept", "--wayback-max-retry-after", "30",
                     "--wayback-retry-budget", "0", "--wayback-run-retry-budget", "900",
                     "--wayback-max-cdx-pages", "50")
    assert (changed.capture_redirects, changed.max_retry_after, changed.request_wait_budget,
            changed.run_wait_budget, changed.max_cdx_pages) == ("accept", 30.0, 0.0, 900.0, 50)
