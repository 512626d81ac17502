"""A refresh of NLQuAD from the Wayback Machine makes no request for a carried capture: the
carried ones are dropped between the CDX listing and the fetch (the counting fake server of
``tests/fakes/wayback_server.py``; every run has an empty cache, so the cache cannot hide a
fetch)."""

from __future__ import annotations

from pathlib import Path

from pipelines.build_nlquad import run
from tests.conftest import TEST_RUNNER
from tests.fakes.wayback_server import FakeCapture, FakeWayback
from tests.pipelines.test_build_nlquad_refresh import INDEX, SAMPLE, data_files, rows_by_id

PAGES = ["eraB_2016_health-37123456.html", "eraB_2017_business-39876543.html",
         "eraB_2018_world-europe-44123456.html", "eraC_2020_uk-wales-55012345.html"]
NEW = "eraB_2019_newsbeat-49123456.html"


def capture(name: str, extra: bytes = b"") -> FakeCapture:
    """The sample page ``name`` as a capture at its sample URL and timestamp."""
    url, timestamp = next((u, t) for n, u, t in INDEX if n == name)
    return FakeCapture(url, timestamp, (SAMPLE / "pages" / name).read_bytes() + extra)


def build(server: FakeWayback, tmp_path: Path, version: str, *argv: str) -> tuple[dict, int]:
    """A build from the fake archive with a cache of its own; and the captures it fetched."""
    before = len(server.fetch_requests)
    result = run([TEST_RUNNER, "--output", str(tmp_path / "r"), "--version", version,
                  "--source", "wayback", "--wayback-url", server.base_url, "--from", "2016",
                  "--to", "2021", "--cache-dir", str(tmp_path / f"cache-{version}"),
                  "--fetch-workers", "1", "--fetches-per-minute", "100000",
                  "--cdx-per-minute", "100000", "--rate-limit-pause", "0", *argv])
    return result, len(server.fetch_requests) - before


def test_a_refresh_fetches_only_new_or_changed_captures(tmp_path):
    with FakeWayback([capture(name) for name in PAGES]) as server:
        first, fetched = build(server, tmp_path, "1")
        assert fetched == len(PAGES)
        rows = sum(first["manifest"]["rows_per_split"].values())
        assert rows > 0

        same, fetched = build(server, tmp_path, "2", "--previous", "auto")
        assert fetched == 0  # the same CDX listing: every capture carried, none fetched
        assert data_files(Path(same["path"])) == data_files(Path(first["path"]))
        assert same["stats"]["refresh"]["carried"] == rows
        assert same["stats"]["counts"]["carried"]["documents"] == len(PAGES)
        assert same["stats"]["counts"]["cdx"]["captures_listed"] == len(PAGES)

        server.captures.append(capture(NEW))
        grown, fetched = build(server, tmp_path, "3", "--previous", "auto")
        assert fetched == 1  # the new capture only
        refresh = grown["stats"]["refresh"]
        assert (refresh["carried"], refresh["removed"], refresh["recomputed"]) == (rows, 0, 0)
        new = {key for key, (_, row) in rows_by_id(Path(grown["path"])).items()
               if row["capture_url"].endswith("newsbeat-49123456")}
        assert len(new) == refresh["new"] == 1

        # the same URL and timestamp with other bytes: another digest, so fetched again
        business = next(i for i, c in enumerate(server.captures) if "39876543" in c.original)
        server.captures[business] = capture(PAGES[1], b"<!-- re-rendered -->")
        changed, fetched = build(server, tmp_path, "4", "--previous", "auto")
        assert fetched == 1
        refresh = changed["stats"]["refresh"]
        assert refresh["recomputed"] == 2 and refresh["carried"] == rows + 1 - 2
        assert rows_by_id(Path(changed["path"])) == rows_by_id(Path(grown["path"]))
