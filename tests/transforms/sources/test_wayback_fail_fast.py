"""The Wayback stages against an archive that fails every request: each failed capture is a
progress tick (a run whose every fetch fails still shows its pace), and
``failure_limit`` items in a row lost to connection failures stop the stage with the
reason. The DoFns are driven directly, as a worker drives them, against the fake archive on
127.0.0.1; no retries, so nothing waits."""

from __future__ import annotations

import logging

import pytest
from apache_beam import pvalue

from tests.fakes.wayback_server import FakeWayback
from tests.transforms.clients.wayback.helpers import html
from transforms.clients.breaker import EndpointFailing
from transforms.clients.wayback import WaybackPolicy
from transforms.clients.wayback.cdx import CdxCapture
from transforms.core.accounting import DEAD_LETTER
from transforms.core.progress import ENV_EVERY
from transforms.sources.wayback import FetchCaptures, ListCdxCaptures

POLICY = WaybackPolicy().override(cdx_per_minute=0, fetches_per_minute=0, max_retries=0,
                                  timeout=(2.0, 2.0), rate_limit_pause=0.0, cache_dir=None)
STORIES = [(f"https://www.bbc.co.uk/news/world-{n}", "20170101000000", html(n))
           for n in range(8)]
QUERY = {"url": "bbc.co.uk/news/", "match_type": "prefix"}


def captures(archive: FakeWayback) -> list[CdxCapture]:
    return [CdxCapture.from_dict(archive.capture(url, ts).row()) for url, ts, _ in STORIES]


def run(stage, element) -> list:
    stage.setup()
    try:
        return list(stage.process(element))
    finally:
        stage.teardown()


def test_every_failed_capture_is_a_progress_tick(monkeypatch, caplog) -> None:
    monkeypatch.setenv(ENV_EVERY, "1e-9")  # --progress with a tiny interval: each tick is due
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")
    with FakeWayback(STORIES) as archive:
        archive.fail("id_/", [503] * 100)
        outputs = run(FetchCaptures(archive.base_url, POLICY), (0, captures(archive)))
    dead = [o for o in outputs if isinstance(o, pvalue.TaggedOutput) and o.tag == DEAD_LETTER]
    lines = [r.getMessage() for r in caplog.records if r.name == "qa_datasets.progress"]
    assert len(dead) == len(STORIES)  # without a limit, every capture is tried
    assert [line.split(",")[0] for line in lines] == [
        f"progress: fetch items: {n}" for n in range(1, len(STORIES) + 1)]


def test_consecutive_fetch_failures_stop_the_stage() -> None:
    with FakeWayback(STORIES) as archive:
        archive.fail("id_/", [503] * 100)
        stage = FetchCaptures(archive.base_url, POLICY, failure_limit=3)
        with pytest.raises(EndpointFailing, match=f"^the Wayback Machine at {archive.base_url} "
                                                  "failed 3 captures in a row"):
            run(stage, (0, captures(archive)))
        assert len(archive.fetch_requests) == 3  # of 8


def test_a_missing_capture_restarts_the_count() -> None:
    """A 404 is an answer: the archive is up, whatever failed before."""
    with FakeWayback(STORIES) as archive:
        archive.fail("id_/", [503, 503, 404, 503, 503, 404, 503, 503])
        outputs = run(FetchCaptures(archive.base_url, POLICY, failure_limit=3),
                      (0, captures(archive)))
        assert len(archive.fetch_requests) == len(STORIES) and outputs


def test_consecutive_cdx_failures_stop_the_listing() -> None:
    with FakeWayback(STORIES) as archive:
        archive.fail("/cdx/", [503] * 10)
        stage = ListCdxCaptures(archive.base_url, POLICY, failure_limit=2)
        stage.setup()
        assert list(stage.process(QUERY))  # the first failure is dead-lettered
        with pytest.raises(EndpointFailing, match="failed 2 CDX queries in a row"):
            list(stage.process(QUERY))
        stage.teardown()
        assert len(archive.cdx_requests) == 2
