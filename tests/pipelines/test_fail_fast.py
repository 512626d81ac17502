"""Fail fast, and say why (issue 27 §3), end to end against fake servers on 127.0.0.1.

* An endpoint that cannot be reached stops the run before the job, with exit code 4 and a
  message naming the endpoint and the cause, after one request per endpoint (before: every
  question was searched and retried, then ``no rows in any split``).
* During the job, ``--max-consecutive-failures`` items in a row lost to connection failures
  stop the run with the reason (exit code 4), not after trying every item.
* Network-bound stages show progress lines (questions searched, pages asked).
* A run that kept no row names its most frequent drop reasons and keeps its ``stats.json``
  and ``rejected/`` under ``.staging/`` for inspection.

Every run has no retries and no rate limit, so nothing here waits.
"""

from __future__ import annotations

import json
import logging
import socket
from pathlib import Path
from typing import NamedTuple

import pytest

from pipelines import build_nlquad, build_nq, build_reqa
from pipelines.cli.spec_parser import build_parser, options_from
from tests.conftest import TEST_RUNNER
from tests.fakes.wayback_server import FakeCapture, FakeWayback
from tests.fakes.wiki_server import FakePage, FakeWiki
from tests.pipelines.test_build_nlquad_refresh import INDEX, SAMPLE
from tests.pipelines.test_build_nq_refresh_network import write_log
from transforms import registry
from transforms.core.progress import ENV_EVERY

PEAKS = ["everest", "kilimanjaro", "elbrus", "denali", "aconcagua", "vinson", "kosciuszko",
         "fuji", "olympus", "etna", "rainier", "whitney"]
QUESTIONS = [f"who was the first person to climb mount {peak} and come back" for peak in PEAKS]
PAGES = [FakePage(f"Mount {peak.title()}", f"Mount {peak.title()} is a mountain.", 1000 + n)
         for n, peak in enumerate(PEAKS)]
NO_WAIT = ["--requests-per-minute", "0", "--http-max-retries", "0"]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def nq_args(tmp_path: Path, api_url: str, rest_url: str, *extra: str) -> list[str]:
    log = write_log(tmp_path / "log.jsonl", QUESTIONS)
    return [TEST_RUNNER, "--input", str(log), "--output", str(tmp_path / "out"),
            "--search", "mediawiki", "--mediawiki-api-url", api_url, "--pages", "rest",
            "--rest-url", rest_url, "--http-cache-dir", str(tmp_path / "cache"), *NO_WAIT,
            *extra]


def error_of(err: str) -> list[str]:
    """The lines of the error ``cli_main`` printed last (its first line starts ``error: ``)."""
    lines = err.rstrip("\n").splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("error: "))
    return lines[start:]


# Before the job ---------------------------------------------------------------------------


def test_a_server_answering_5xx_stops_the_run_before_the_job(tmp_path, capsys):
    with FakeWiki(PAGES) as wiki:
        wiki.fail("/", [503] * 100)
        code = build_nq.main(nq_args(tmp_path, wiki.api_url, wiki.rest_url))
        requests = list(wiki.requests)
    assert code == 4
    assert error_of(capsys.readouterr().err)[:2] == [
        f"error: cannot reach the MediaWiki search API at {wiki.api_url} "
        "(--mediawiki-api-url): HTTP 503 Service Unavailable",
        f"  cannot reach the Wikimedia REST API (pages) at {wiki.rest_url}/ (--rest-url): "
        "HTTP 503 Service Unavailable"]
    assert requests == ["/w/api.php?action=query&meta=siteinfo&format=json", "/api/rest_v1/"]
    assert not (tmp_path / "out").exists()  # nothing staged, nothing published


def test_a_refused_connection_stops_the_run_before_the_job(tmp_path, capsys):
    base = f"http://127.0.0.1:{closed_port()}"
    code = build_nq.main(nq_args(tmp_path, f"{base}/w/api.php", f"{base}/api/rest_v1"))
    assert code == 4
    message = error_of(capsys.readouterr().err)
    assert message[0].endswith("(--mediawiki-api-url): connection refused")
    assert message[1].endswith("(--rest-url): connection refused")
    assert "--no-preflight" in message[2] and not (tmp_path / "out").exists()


def test_a_reachable_endpoint_passes_and_the_run_goes_on(tmp_path):
    with FakeWiki(PAGES) as wiki:
        result = build_nq.run(nq_args(tmp_path, wiki.api_url, wiki.rest_url))
        probes = wiki.requests[:2]
    assert probes == ["/w/api.php?action=query&meta=siteinfo&format=json", "/api/rest_v1/"]
    assert sum(result["manifest"]["rows_per_split"].values()) == len(QUESTIONS)


def test_the_wayback_source_checks_the_archive(tmp_path, capsys):
    with FakeWayback() as archive:
        archive.fail("/cdx/", [502] * 10)
        code = build_nlquad.main(wayback_args(tmp_path, archive.base_url))
        requests = list(archive.requests)
    assert code == 4
    assert error_of(capsys.readouterr().err)[0] == (
        f"error: cannot reach the Wayback Machine CDX API at {archive.base_url}/cdx/search/cdx "
        "(--wayback-url): HTTP 502 Bad Gateway")
    assert requests == ["/cdx/search/cdx?url=bbc.co.uk%2Fnews%2F&limit=1&output=json"]


@pytest.mark.parametrize("dataset, argv, endpoints", [
    ("nq", ["--search", "mediawiki"], ["the MediaWiki search API",
                                       "the Wikimedia REST API (pages)"]),
    ("nq", ["--search", "mediawiki", "--no-preflight"], []),
    ("nq", ["--search", "web", "--pages", "local"], ["the web search API"]),
    ("nq", ["--search", "mediawiki", "--stop-after", "questions"], []),
    ("nq", [], []),  # the local index: no network
    ("jnq", ["--search", "mediawiki", "--pages", "rest"], ["the MediaWiki search API",
                                                          "the Wikimedia REST API (pages)"]),
    ("jnq", ["--search", "mediawiki", "--no-preflight=true"], []),
    ("nlquad", ["--source", "wayback"], ["the Wayback Machine CDX API"]),
    ("nlquad", ["--source", "wayback", "--no-preflight"], []),
    ("nlquad", [], []),
])
def test_the_plan_names_every_endpoint_it_will_ask(dataset, argv, endpoints):
    spec = registry.spec(dataset)
    options = options_from(spec, build_parser(spec).parse_args(argv))
    assert [endpoint.what for endpoint in spec.plan(options).endpoints] == endpoints


class FailedRun(NamedTuple):
    code: int  # build_nq's exit code
    requests: list[str]  # the requests that reached the failing path
    api_url: str  # the fake's search API


def run_against_failing_wiki(tmp_path: Path, failing: str, limit: int,
                             runner: tuple[str, ...] = (TEST_RUNNER,)) -> FailedRun:
    """``build_nq`` on one shard against a fake Wikipedia whose requests to ``failing`` all
    answer 503, stopping after ``limit`` failures in a row (0: never)."""
    with FakeWiki(PAGES) as wiki:
        wiki.fail(failing, [503] * 100)
        argv = nq_args(tmp_path, wiki.api_url, wiki.rest_url, "--no-preflight",
                       "--max-consecutive-failures", str(limit), "--shards", "1")
        code = build_nq.main([*runner, *argv[1:]])
        return FailedRun(code, wiki.requests_to(failing), wiki.api_url)


# During the job ---------------------------------------------------------------------------


def test_consecutive_search_failures_stop_the_run(tmp_path, capsys):
    code, searches, api_url = run_against_failing_wiki(tmp_path, "/w/api.php", 3)
    assert code == 4
    message = error_of(capsys.readouterr().err)
    assert len(message) == 1 and message[0].startswith(
        "error: the search backend mediawiki failed 3 searches in a row with connection "
        f"failures (last: server_error: {api_url}?action=query&list=search")
    assert message[0].endswith("pass --max-consecutive-failures 0 to never stop")
    assert len(searches) == 3  # of 12 questions: the run stopped, it did not grind on
    assert not list((tmp_path / "out").glob("nq/*"))  # nothing published, nothing staged


def test_the_stop_surfaces_from_worker_processes(tmp_path, capsys):
    """A multi-process runner reports a worker's error as text: the run still ends with
    exit code 4 and the reason, not a traceback of the runner or a hang."""
    from tests.pipelines.cli.test_entry import MULTI_PROCESS

    code, searches, _ = run_against_failing_wiki(tmp_path, "/w/api.php", 2, tuple(MULTI_PROCESS))
    assert code == 4
    message = error_of(capsys.readouterr().err)
    assert len(message) == 1 and message[0].startswith(
        "error: the search backend mediawiki failed 2 searches in a row")
    assert "[while running" not in message[0] and len(searches) == 2


def test_without_a_limit_every_question_is_tried(tmp_path, capsys):
    code, searches, _ = run_against_failing_wiki(tmp_path, "/w/api.php", 0)
    assert code == 4 and len(searches) == len(QUESTIONS)
    message = error_of(capsys.readouterr().err)
    assert message[1] == ("  most frequent drop and dead-letter reasons: "
                          f"linking.dead_lettered: {len(QUESTIONS)}, "
                          f"linking.search_failed.server_error: {len(QUESTIONS)}")


def test_consecutive_page_failures_stop_the_run(tmp_path, capsys):
    code, pages, _ = run_against_failing_wiki(tmp_path, "/page/html/", 2)
    assert code == 4
    assert error_of(capsys.readouterr().err)[0].startswith(
        "error: the Wikimedia REST API (pages) failed 2 pages in a row with connection failures")
    assert len(pages) == 2  # of 12 pages


def wayback_args(tmp_path: Path, base_url: str, *extra: str) -> list[str]:
    return [TEST_RUNNER, "--output", str(tmp_path / "out"), "--source", "wayback",
            "--wayback-url", base_url, "--from", "2016", "--to", "2021",
            "--cache-dir", str(tmp_path / "cache"), "--fetch-workers", "1",
            "--fetches-per-minute", "100000", "--cdx-per-minute", "100000",
            "--rate-limit-pause", "0", "--wayback-max-retries", "0", *extra]


def test_consecutive_capture_failures_stop_the_run(tmp_path, capsys):
    captures = [FakeCapture(url, timestamp, (SAMPLE / "pages" / name).read_bytes())
                for name, url, timestamp in INDEX if "2016" <= timestamp[:4] <= "2021"]
    with FakeWayback(captures) as archive:
        archive.fail("id_/", [503] * 100)
        code = build_nlquad.main(wayback_args(tmp_path, archive.base_url, "--no-preflight",
                                              "--max-consecutive-failures", "3"))
        fetches = list(archive.fetch_requests)
    assert code == 4
    assert error_of(capsys.readouterr().err)[0].startswith(
        f"error: the Wayback Machine at {archive.base_url} failed 3 captures in a row with "
        "connection failures (last: server_error:")
    assert len(captures) > 10 and len(fetches) == 3


# Progress ---------------------------------------------------------------------------------


def test_network_stages_report_progress(tmp_path, monkeypatch, caplog):
    """A line per question searched and per page asked (``--progress`` of a tiny interval:
    every tick is due), from the stages that wait on the network."""
    monkeypatch.setenv(ENV_EVERY, "1e-9")
    caplog.set_level(logging.INFO, logger="qa_datasets.progress")
    with FakeWiki(PAGES) as wiki:
        build_nq.run(nq_args(tmp_path, wiki.api_url, wiki.rest_url, "--shards", "1"))
    lines = [record.getMessage() for record in caplog.records
             if record.name == "qa_datasets.progress"]
    searched = [line for line in lines if line.startswith("progress: questions searched: ")]
    asked = [line for line in lines if line.startswith("progress: pages asked: ")]
    assert len(searched) == len(asked) == len(QUESTIONS)
    assert searched[-1].startswith(f"progress: questions searched: {len(QUESTIONS)}, ")


# Nothing published: why -------------------------------------------------------------------


def test_an_unannotated_release_names_its_drop_reason(tmp_path, capsys):
    """The issue's case: build_reqa on an unannotated NQ release (exit 4) now says
    ``no_annotation`` and keeps the run's stats and rejects."""
    examples = Path(build_nq.run([TEST_RUNNER, "--output", str(tmp_path / "releases")])["path"])
    rows = sum(json.loads((examples / "dataset_info.json").read_text())["rows_per_split"]
               .values())
    code = build_reqa.main([TEST_RUNNER, "--source", "nq", "--input", str(examples),
                            "--output", str(tmp_path / "releases")])
    assert code == 4
    message = error_of(capsys.readouterr().err)
    assert message[0].startswith("error: no rows in any split (questions, candidates) of "
                                 "reqa_nq 1.0.0")
    assert message[1] == ("  most frequent drop and dead-letter reasons: "
                          f"examples.dropped.no_annotation: {rows}")
    (kept,) = (tmp_path / "releases" / "reqa_nq" / ".staging").glob("1.0.0-*/stats.json")
    assert message[2] == ("  first of dropped_examples: no_annotation: 'where did the first "
                          "olympic games of modern times take place' (nq)")
    assert message[3] == (f"  kept for inspection (stats.json and rejected/): {kept.parent}/ "
                          "(a later build of this dataset removes it)")
    dropped = [line for path in (kept.parent / "rejected" / "dropped_examples").iterdir()
               for line in path.read_text().splitlines()]
    assert len(dropped) == rows
    assert not (tmp_path / "releases" / "reqa_nq" / "1.0.0").exists()
    assert not (tmp_path / "releases" / "reqa_nq" / "LATEST").exists()
