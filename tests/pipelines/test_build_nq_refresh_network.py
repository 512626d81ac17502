"""build_nq --previous against the counting fake Wikipedia (search API and REST pages): a
carried question, and a kept drop, make no request; a new question makes its own only;
--relink fetches every page again. Each run has an empty HTTP cache, so the requests counted
are the ones the run needed."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote_plus

import pytest

from pipelines import build_nq
from tests.conftest import TEST_RUNNER
from tests.fakes.wiki_server import FakePage, FakeWiki, title_key
from tests.pipelines.refresh_checks import original_lines, read_json, refresh_counts

QUESTIONS = {
    "who was the first president of the united states": "George Washington",
    "when did the berlin wall come down in germany": "Berlin Wall",
    "who wrote the song hallelujah that was covered by jeff buckley": "Hallelujah",  # redirect
}
NEW = "who invented the telephone and when was it patented"
PAGES = [
    FakePage("George Washington", "George Washington was the first president of the United "
             "States from 1789 to 1797.", 1001),
    FakePage("Berlin Wall", "The Berlin Wall came down in November 1989, dividing Germany "
             "no longer.", 2002),
    FakePage("Hallelujah", "Hallelujah.", 3003),
    FakePage("Telephone", "Alexander Graham Bell invented the telephone, patented in 1876.",
             4004),
]


def write_log(path: Path, questions: list[str]) -> Path:
    path.write_text("".join(json.dumps({"query": q, "count": 3, "users": 3}) + "\n"
                            for q in questions), encoding="utf-8")
    return path


class Builds:
    """Runs build_nq against one fake wiki, each run with its own empty cache."""

    def __init__(self, tmp: Path, wiki: FakeWiki):
        self.tmp, self.wiki = tmp, wiki
        self.root = tmp / "releases"

    def __call__(self, questions: list[str], version: str, *extra: str) -> list[str]:
        """The requests the run made."""
        log = write_log(self.tmp / f"{version}.jsonl", questions)
        start = len(self.wiki.requests)
        assert build_nq.main([
            TEST_RUNNER, "--input", str(log), "--output", str(self.root), "--version", version,
            "--search", "mediawiki", "--mediawiki-api-url", self.wiki.api_url,
            "--pages", "rest", "--rest-url", self.wiki.rest_url, "--requests-per-minute", "0",
            "--http-cache-dir", str(self.tmp / f"cache-{version}"), "--keep-rejected",
            "--no-preflight",  # counted here: the questions' requests (the check: test_fail_fast)
            *extra]) == 0
        return self.wiki.requests[start:]

    def release(self, version: str) -> Path:
        return self.root / "nq" / version


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The requests of each run: v1 full, v2 the same log, v3 one new question, v4 --relink
    after the George Washington page got a new revision."""
    tmp = tmp_path_factory.mktemp("nq_refresh_network")
    with FakeWiki(PAGES, redirect_pages={"Hallelujah": "Hallelujah (song)"}) as wiki:
        builds = Builds(tmp, wiki)
        requests = {"1": builds(list(QUESTIONS), "1")}
        requests["2"] = builds(list(QUESTIONS), "2", "--previous", "auto")
        requests["3"] = builds([*QUESTIONS, NEW], "3", "--previous", "auto")
        wiki.pages[title_key("George Washington")].revision = 1002
        requests["4"] = builds([*QUESTIONS, NEW], "4", "--previous", "auto", "--relink")
    return builds, requests


def searched(requests: list[str]) -> list[str]:
    """The questions the search API was asked."""
    return sorted(unquote_plus(path.split("srsearch=", 1)[1].split("&", 1)[0])
                  for path in requests if "srsearch=" in path)


def fetched(requests: list[str]) -> list[str]:
    return sorted(path for path in requests if "/page/html/" in path)


def test_a_full_build_asks_for_every_question(runs):
    builds, requests = runs
    assert searched(requests["1"]) == sorted(QUESTIONS)
    assert len(fetched(requests["1"])) == 3
    assert set(original_lines(builds.release("1"))) == set(list(QUESTIONS)[:2])


def test_a_refresh_of_the_same_log_makes_no_request(runs):
    builds, requests = runs
    assert requests["2"] == []
    assert refresh_counts(builds.release("2")) == (2, 0, 0, 0)
    counts = read_json(builds.release("2"), "stats.json")["counts"]
    assert counts["linking"]["previously_dropped"] == 1  # the redirect is not asked again
    assert original_lines(builds.release("2")) == original_lines(builds.release("1"))


def test_a_new_question_makes_its_own_requests_only(runs):
    builds, requests = runs
    assert searched(requests["3"]) == [NEW]
    assert [path.split("?")[0] for path in fetched(requests["3"])] == [
        "/api/rest_v1/page/html/Telephone"]
    assert refresh_counts(builds.release("3")) == (2, 0, 1, 0)
    lines = original_lines(builds.release("3"))
    assert json.loads(lines[NEW][1])["document_url"].endswith("oldid=4004")


def test_relink_fetches_fresh_pages(runs):
    builds, requests = runs
    assert searched(requests["4"]) == sorted([*QUESTIONS, NEW])
    assert len(fetched(requests["4"])) == 4
    assert refresh_counts(builds.release("4")) == (0, 3, 0, 0)
    before, after = original_lines(builds.release("3")), original_lines(builds.release("4"))
    president = "who was the first president of the united states"
    assert json.loads(before[president][1])["document_url"].endswith("oldid=1001")
    assert json.loads(after[president][1])["document_url"].endswith("oldid=1002")
    assert after[president][0] == before[president][0]  # the split is the question's
    card = (builds.release("4") / "README.md").read_text(encoding="utf-8")
    assert "built with `--relink`" in card
    assert "`--previous`: --relink: every question still in the log was searched" in card
    assert "carried byte for byte" not in card  # the shared section says what happened
