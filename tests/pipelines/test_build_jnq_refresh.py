"""build_jnq --previous: JNQ's unit is the normalized question (``transforms.nq.refresh``),
its rows carried as published; on the bundled sample (local index) and against the counting
fake ja.wikipedia (no request for a carried question); JBoolQ question releases rebuild every
row and record the lineage."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import unquote_plus

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from filters.jnq.rules import normalize_ja
from pipelines import build_jnq
from tests.conftest import PROJECT_ROOT, TEST_RUNNER
from tests.fakes.wiki_server import FakePage, FakeWiki
from tests.pipelines.refresh_checks import (
    data_files,
    log_without,
    parquet_rows,
    read_json,
    refresh_counts,
)
from tests.transforms.jnq.legacy import as_string_labels
from transforms.nq.refresh import question_key

SAMPLE_LOG = PROJECT_ROOT / "pipelines" / "samples" / "jnq" / "query_log.tsv"
SPLITS = ("train", "dev", "test")
NEW = "東京タワーの高さは何メートルですか"  # not in v1's log
GONE = "富士山が最後に噴火したのはいつですか"  # not in v2's log
SAMPLE_INDEX = "--sample-index"  # an edited sample log is not the sample: chosen on purpose


def build(root: Path, log: Path, version: str, *extra: str) -> int:
    return build_jnq.main([TEST_RUNNER, "--input", str(log), "--output", str(root),
                           "--version", version, *extra])


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """v1: full, without NEW; v2: a refresh on v1 of a log without GONE; v3: a full build
    of v2's log; v4: a refresh on v2 of the same log."""
    tmp = tmp_path_factory.mktemp("jnq_refresh")
    root = tmp / "releases"
    first = log_without(SAMPLE_LOG, tmp / "v1.tsv", NEW, normalize_ja)
    second = log_without(SAMPLE_LOG, tmp / "v2.tsv", GONE, normalize_ja)
    assert build(root, first, "1", SAMPLE_INDEX) == 0
    assert build(root, second, "2", SAMPLE_INDEX, "--previous", "auto") == 0
    assert build(root, second, "3", SAMPLE_INDEX) == 0
    assert build(root, second, "4", SAMPLE_INDEX, "--previous", "auto") == 0
    return root / "jnq"


def test_carried_rows_are_the_previous_rows_in_their_split(releases):
    before = parquet_rows(releases / "1", question_key, SPLITS)
    after = parquet_rows(releases / "2", question_key, SPLITS)
    carried = set(before) - {GONE}
    assert GONE in before and NEW in after and set(after) == carried | {NEW}
    for question in carried:
        assert after[question] == before[question], question
    assert refresh_counts(releases / "2") == (len(carried), 0, 1, 1)
    counts = read_json(releases / "2", "stats.json")["counts"]
    assert counts["linking"]["questions"] == 1  # NEW only
    assert counts["linking"]["previously_dropped"] == 2  # the sample's unlinked questions


def test_a_refresh_writes_the_data_files_of_a_full_rebuild(releases):
    full = data_files(releases / "3")
    assert full and data_files(releases / "2") == full == data_files(releases / "4")
    carried, recomputed, new, removed = refresh_counts(releases / "4")
    assert (recomputed, new, removed) == (0, 0, 0) and carried == sum(
        read_json(releases / "3", "dataset_info.json")["rows_per_split"].values())
    lengths = read_json(releases / "3", "stats.json")["lengths"]
    assert read_json(releases / "2", "stats.json")["lengths"] == lengths
    assert read_json(releases / "4", "stats.json")["lengths"] == lengths


def test_a_refresh_on_a_release_with_string_labels_writes_class_labels(releases, tmp_path):
    """A previous release written before ``variant`` was a class label (its names as strings)
    is carried all the same: the refresh writes the data files of a full build, byte for byte,
    its ``variant`` the class label's index."""
    root = tmp_path / "releases"
    legacy = root / "jnq" / "3"
    shutil.copytree(releases / "3", legacy)
    assert as_string_labels(legacy)
    assert pq.read_schema(next((legacy / "train").glob("*.parquet"))).field(
        "variant").type == pa.string()
    log = log_without(SAMPLE_LOG, tmp_path / "log.tsv", GONE, normalize_ja)
    assert build(root, log, "5", SAMPLE_INDEX, "--previous", str(legacy)) == 0
    carried, recomputed, new, removed = refresh_counts(root / "jnq" / "5")
    assert carried > 0 and (recomputed, new, removed) == (0, 0, 0)
    assert data_files(root / "jnq" / "5") == data_files(releases / "3")
    rows = parquet_rows(root / "jnq" / "5", question_key, SPLITS)
    assert {row["variant"] for _, row in rows.values()} == {0}  # jnq


def test_a_changed_row_option_is_refused_unless_recompute_all(releases, tmp_path, capsys):
    log = log_without(SAMPLE_LOG, tmp_path / "log.tsv", GONE, normalize_ja)
    capsys.readouterr()
    assert build(releases.parent, log, "5", SAMPLE_INDEX, "--previous", "auto",
                 "--count-symbols") == 2
    assert "--count-symbols was False, now True" in capsys.readouterr().err
    assert build(releases.parent, log, "5", SAMPLE_INDEX, "--previous", "auto",
                 "--count-symbols", "--recompute-all") == 0
    carried, recomputed, _, _ = refresh_counts(releases / "5")
    assert carried == 0 and recomputed > 0


def test_question_releases_rebuild_every_row_and_record_the_lineage(tmp_path, capsys):
    root = tmp_path / "releases"
    first = log_without(SAMPLE_LOG, tmp_path / "v1.tsv", NEW, normalize_ja)
    second = log_without(SAMPLE_LOG, tmp_path / "v2.tsv", GONE, normalize_ja)
    questions = ("--variant", "jnq", "--stop-after", "questions")
    assert build(root, first, "1", *questions) == 0
    # nothing is carried, so a row option may change (--count-symbols changes "words")
    assert build(root, second, "2", *questions, "--previous", "auto", "--count-symbols") == 0
    assert build(root, second, "3", *questions, "--count-symbols") == 0
    release = root / "jnq_questions"
    carried, recomputed, new, removed = refresh_counts(release / "2")
    assert (carried, new, removed) == (0, 1, 1) and recomputed == 43  # 45 less GONE, NEW
    assert read_json(release / "2", "stats.json")["refresh"]["recompute_all"] is True
    assert data_files(release / "2") == data_files(release / "3")
    card = (release / "2" / "README.md").read_text(encoding="utf-8")
    assert "are never carried" in card and "## Changes since jnq_questions 1" in card
    assert "every row was recomputed: question rows (--stop-after questions)" in card
    assert "(--recompute-all)" not in card  # the user did not ask for it
    capsys.readouterr()
    assert build(root, second, "4", *questions, "--previous", "auto", "--relink") == 2
    assert "with --stop-after questions nothing is linked" in capsys.readouterr().err


JA_QUESTIONS = {"俳句を最初に作った人は誰ですか": "俳句", "相撲の横綱は何人いるのですか": "相撲"}
JA_NEW = "琵琶湖の面積はどのくらいありますか"
JA_PAGES = [FakePage(title, f"{question}。{title}は日本の文化である。\n\n{title}の歴史は長い。",
                     index + 1)
            for index, (question, title) in enumerate([*JA_QUESTIONS.items(),
                                                       (JA_NEW, "琵琶湖")])]


def test_no_request_for_a_carried_question(tmp_path):
    def run(questions: list[str], version: str, *extra: str) -> list[str]:
        log = tmp_path / f"{version}.jsonl"
        log.write_text("".join(json.dumps({"query": q, "count": 2, "users": 2}) + "\n"
                               for q in questions), encoding="utf-8")
        start = len(wiki.requests)
        assert build(tmp_path / "releases", log, version, "--search", "mediawiki",
                     "--mediawiki-api-url", wiki.api_url, "--pages", "rest", "--rest-url",
                     wiki.rest_url, "--requests-per-minute", "0", "--http-cache-dir",
                     str(tmp_path / f"cache-{version}"),
                     "--no-preflight",  # the questions' requests (the check: test_fail_fast)
                     *extra) == 0
        return wiki.requests[start:]

    with FakeWiki(JA_PAGES, lang="ja") as wiki:
        first = run(list(JA_QUESTIONS), "1")
        same = run(list(JA_QUESTIONS), "2", "--previous", "auto")
        one_more = run([*JA_QUESTIONS, JA_NEW], "3", "--previous", "auto")
    assert len(first) == 4 and same == []
    assert sorted(unquote_plus(p.split("srsearch=")[1].split("&")[0])
                  for p in one_more if "srsearch=" in p) == [JA_NEW]
    assert len([p for p in one_more if "/page/html/" in p]) == 1
    release = tmp_path / "releases" / "jnq"
    assert refresh_counts(release / "3") == (2, 0, 1, 0)
    rows = parquet_rows(release / "3", question_key, SPLITS)
    assert rows[JA_NEW][1]["revision"] == 3
