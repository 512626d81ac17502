"""Golden end-to-end test of NQ stage 2 (search, pages, candidates, both output formats)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines import build_nq, build_search_index
from tests.conftest import PROJECT_ROOT, TEST_RUNNER
from transforms.nq.example_ids import example_id
from transforms.nq.examples import HF_SCHEMA
from transforms.nq.spec import SPEC
from transforms.release import md_text

GOLDEN = json.loads((PROJECT_ROOT / "tests" / "golden" / "nq_search_expected.json").read_text())
SPLITS = ("train", "dev", "test")


@pytest.fixture(scope="module")
def release(sample_build):
    return sample_build("nq")  # the sample with --keep-rejected, built once per run


def _original(path: Path) -> list[dict]:
    examples = []
    for split in SPLITS:
        for file in sorted((path / "nq_original" / split).glob("*.jsonl.gz")):
            with gzip.open(file, "rt", encoding="utf-8") as handle:
                examples += [{**json.loads(line), "_split": split} for line in handle]
    return examples


def test_linking_matches_golden(release):
    _, path = release
    examples = {e["question_text"]: e for e in _original(path)}
    for question, expected in GOLDEN["expected_top_wikipedia"].items():
        dropped = any(question in qs for qs in GOLDEN["expected_drops"].values())
        if expected is None or dropped:
            assert question not in examples, question
            continue
        title = Path(expected).stem.replace("_", " ")
        assert examples[question]["document_title"] == title, question


def test_drops_are_named_and_counted(release):
    result, path = release
    counts = result["stats"]["counts"]
    assert counts["linking"]["dropped.no_wikipedia_in_top5"] == len(
        GOLDEN["expected_drops"]["no_wikipedia_in_top5"])
    assert counts["pages"]["dropped.page_redirected"] == len(
        GOLDEN["expected_drops"]["page_redirected"])
    unlinked = [json.loads(line) for f in (path / "rejected" / "unlinked_questions").glob("*")
                for line in f.read_text().splitlines()]
    assert {r["question"] for r in unlinked} == {
        q for qs in GOLDEN["expected_drops"].values() for q in qs}
    share = result["stats"]["wikipedia_in_top5_share"]
    assert share == round(1 - 3 / counts["linking"]["questions"], 4)
    assert SPEC.counters.undeclared(result["stats"]["counts"]) == []


def test_original_format_is_nq_compatible(release):
    from natural_questions.text_utils import simplify_nq_example

    _, path = release
    examples = _original(path)
    assert examples
    for example in examples:
        html = example["document_html"].encode("utf-8")
        assert example["example_id"] == example_id(example["question_text"])
        assert "//w/index.php?title=" in example["document_url"]
        assert "&amp;oldid=" in example["document_url"]
        assert example["annotations"] == []
        tokens = example["document_tokens"]
        for candidate in example["long_answer_candidates"]:
            opening = tokens[candidate["start_token"]]
            closing = tokens[candidate["end_token"] - 1]
            assert opening["html_token"] and closing["html_token"]
            assert html[candidate["start_byte"]:candidate["end_byte"]].startswith(b"<")
        simplified = simplify_nq_example(json.loads(json.dumps(example)))
        assert len(simplified["document_text"].split(" ")) == len(tokens)


def test_huggingface_layout(release):
    _, path = release
    original = {str(e["example_id"]): e for e in _original(path)}
    for split in SPLITS:
        table = pq.read_table(path / split)
        assert table.schema.remove_metadata() == HF_SCHEMA.remove_metadata()
        for row in table.to_pylist():
            example = original[row["id"]]
            assert example["_split"] == split
            assert row["question"]["text"] == example["question_text"]
            assert row["document"]["tokens"]["token"] == [
                t["token"] for t in example["document_tokens"]]
            assert row["long_answer_candidates"]["top_level"] == [
                c["top_level"] for c in example["long_answer_candidates"]]


def test_splits_hash_the_question(release):
    from filters.text.splits import assign_split, parse_split_ratios

    _, path = release
    ratios = parse_split_ratios(build_nq.NQ_SPLITS)
    for example in _original(path):
        assert example["_split"] == assign_split(example["question_text"], "nq", ratios)


def test_search_index_pipeline_sample_and_enterprise(sample_build, tmp_path):
    sample, _ = sample_build("search_index")  # the bundled sample, built once per run
    assert sample["manifest"]["rows_per_split"]["docs"] == 46
    dump = PROJECT_ROOT / "tests" / "fixtures" / "enterprise_sample.json.tar.gz"
    enterprise = build_search_index.run([TEST_RUNNER, "--source", "enterprise", "--input",
                                         str(dump), "--output", str(tmp_path), "--version",
                                         "dump"])
    assert enterprise["manifest"]["rows_per_split"]["docs"] == 4
    from transforms.clients.local_search import LocalSearch

    index = LocalSearch(enterprise["path"])
    assert index.search("capital of new zealand wellington")[0].title == "Wellington"


def test_network_backends_end_to_end(tmp_path):
    """--search mediawiki and --pages rest against a local fake Wikipedia."""
    from tests.fakes.wiki_server import FakePage, FakeWiki

    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps({"query": "who was the first president of the united states",
                               "count": 3, "users": 3}) + "\n")
    pages = [FakePage("George Washington", "George Washington was the first president of the "
                      "United States from 1789 to 1797.", 1234)]
    with FakeWiki(pages) as wiki:
        result = build_nq.run([
            TEST_RUNNER, "--input", str(log), "--output", str(tmp_path / "out"),
            "--search", "mediawiki", "--mediawiki-api-url", wiki.api_url,
            "--pages", "rest", "--rest-url", wiki.rest_url,
            "--http-cache-dir", str(tmp_path / "cache"), "--requests-per-minute", "0"])
    examples = _original(Path(result["path"]))
    assert [e["document_title"] for e in examples] == ["George Washington"]
    assert examples[0]["document_url"].endswith("title=George_Washington&amp;oldid=1234")
    source = result["manifest"]["source"]  # the backends actually asked, by their endpoints
    assert source["search_backend"] == f"mediawiki ({wiki.api_url})"
    assert source["pages_backend"] == f"rest ({wiki.rest_url.rstrip('/')})"
    assert not source["index"] and not source["bundled_sample_index"]
    card = (Path(result["path"]) / "README.md").read_text(encoding="utf-8")
    assert f"Search: {md_text(source['search_backend'])}; pages: " in card


def test_manifest_hashes_the_bytes_on_disk(release):
    import hashlib

    _, path = release
    manifest = json.loads((path / "dataset_info.json").read_text())
    gz = [name for name in manifest["files"] if name.endswith(".jsonl.gz")]
    assert gz
    for name, entry in manifest["files"].items():
        assert hashlib.sha256((path / name).read_bytes()).hexdigest() == entry["sha256"], name


def test_baseline_section_explains_missing_annotations(release):
    result, path = release
    baselines = result["stats"]["baselines"]
    assert baselines["rows"] == [] and "not annotated" in baselines["note"]
    assert "Untrained baselines" in (path / "README.md").read_text()


def test_files_are_named_as_nq_names_them_and_simplify_nq_data_reads_them(release, tmp_path):
    """``natural_questions.simplify_nq_data`` globs ``<split dir>/nq-*-??.jsonl.gz``; it
    writes its output into that directory, so it runs on a copy of the release's split."""
    import shutil
    import subprocess
    import sys

    _, path = release
    train = path / "nq_original" / "train"
    assert sorted(p.name for p in train.iterdir()) == ["nq-train-00.jsonl.gz"]
    copy = tmp_path / "train"
    shutil.copytree(train, copy)
    subprocess.run([sys.executable, "-m", "natural_questions.simplify_nq_data",
                    f"--data_dir={copy}"], check=True, capture_output=True)
    with gzip.open(copy / "simplified-nq-train.jsonl.gz", "rt", encoding="utf-8") as handle:
        simplified = [json.loads(line) for line in handle]
    originals = [e for e in _original(path) if e["_split"] == "train"]
    assert len(simplified) == len(originals) > 0
    assert {s["example_id"] for s in simplified} == {e["example_id"] for e in originals}
