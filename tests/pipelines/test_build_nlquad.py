"""Golden end-to-end test of ``pipelines.build_nlquad`` on the bundled sample."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipelines.build_nlquad import format_summary, main, run
from tests.conftest import PROJECT_ROOT, TEST_RUNNER
from transforms.nlquad.spec import SPEC
from transforms.sources.page_files import sample_index

EXPECTED = json.loads((PROJECT_ROOT / "tests" / "golden" / "nlquad_sample_expected.json")
                      .read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def release(sample_build):
    """The sample built in memory with ``--export-squad`` (shared with test_determinism)."""
    return sample_build("nlquad")


def _rows(path: Path) -> list[dict]:
    rows = []
    for split in ("train", "dev", "test"):
        for row in pq.read_table(path / split).to_pylist():
            rows.append({**row, "split": split})
    return rows


def _jsonl(path: Path, kind: str) -> list[dict]:
    records = []
    for file in sorted((path / "rejected" / kind).glob("*.jsonl")):
        records += [json.loads(line) for line in file.read_text().splitlines()]
    return records


def _file_for_url(url: str) -> str:
    return next(name for name, (u, _) in sample_index().items() if u == url)


def test_release_layout(release):
    _, path = release
    names = sorted(p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file())
    assert {"README.md", "dataset_info.json", "stats.json", "squad/train.json",
            "squad/dev.json", "squad/test.json"} <= set(names)
    for split in ("train", "dev", "test"):
        assert any(n.startswith(f"{split}/{split}-00000-of-") for n in names)
    assert not (path.parent / ".staging").exists()


def test_kept_questions_match_golden(release):
    _, path = release
    rows = _rows(path)
    kept = {(_file_for_url(r["capture_url"]), r["question"]): r for r in rows}
    expected = {(name, q["question"]): q for name, page in EXPECTED.items()
                if page["outcome"] == "article" and not page["duplicate"]
                for q in page["questions"] if q["kept"]}
    assert set(kept) == set(expected)
    for key, q in expected.items():
        row = kept[key]
        assert row["answer_text"].split()[:6] == q["answer_first_words"].split()[:6], key
        assert row["answer_text"].split()[-6:] == q["answer_last_words"].split()[-6:], key
        assert row["answer_paragraphs"] == q["answer_paragraphs"], key
        assert row["context"][row["answer_start"]:row["answer_end"]] == row["answer_text"]
        assert row["context"].split()[row["answer_word_start"]:row["answer_word_end"]] == \
            row["answer_text"].split()
        assert row["answers"] == {"text": [row["answer_text"]],
                                  "answer_start": [row["answer_start"]]}
        assert row["question"] not in row["context"]


def test_documents_metadata_match_golden(release):
    _, path = release
    for row in _rows(path):
        page = EXPECTED[_file_for_url(row["capture_url"])]
        assert row["title"] == page["headline"]
        assert row["date"] == page["published"]
        assert row["layout_era"] == page["era"]


def test_dropped_questions_have_reasons(release):
    _, path = release
    dropped = {(_file_for_url(r["url"]), r["question"]): r["reason"]
               for r in _jsonl(path, "dropped_questions")}
    expected = {(name, q["question"]): q["drop_reason"] for name, page in EXPECTED.items()
                if page["outcome"] == "article" and not page["duplicate"]
                for q in page["questions"] if not q["kept"]}
    assert dropped == expected


def test_skipped_and_duplicate_pages_are_accounted(release):
    result, path = release
    skipped = {_file_for_url(r["url"]): r["reason"] for r in _jsonl(path, "skipped_pages")}
    assert skipped == {name: page["skip_reason"] for name, page in EXPECTED.items()
                       if page["outcome"] == "skip"}
    duplicates = {_file_for_url(r["url"]): r["reason"] for r in _jsonl(path, "duplicates")}
    assert duplicates == {name: page["duplicate"] for name, page in EXPECTED.items()
                          if page["duplicate"]}
    counts = result["stats"]["counts"]
    assert counts["pages"]["read"] == len(EXPECTED)
    parsed = counts["pages"]["parsed"]
    skipped_total = sum(v for k, v in counts["pages"].items() if k.startswith("skipped."))
    assert parsed + skipped_total == counts["pages"]["read"]
    assert counts["documents"]["deduplicated"] + sum(counts["dedup"].values()) == parsed
    questions = counts["questions"]
    assert questions["kept"] + sum(v for k, v in questions.items()
                                   if k.startswith("dropped.")) == questions["found"]


def test_every_counter_that_fired_is_declared(release):
    result, _ = release
    assert SPEC.counters.undeclared(result["stats"]["counts"]) == []


def test_splits_group_articles_and_are_stable(release):
    from filters.text.splits import assign_split

    _, path = release
    for row in _rows(path):
        assert row["split"] == assign_split(row["document_id"], "nlquad")


def test_manifest_hashes_and_counts(release):
    result, path = release
    manifest = json.loads((path / "dataset_info.json").read_text())
    assert manifest["dataset"] == "nlquad" and manifest["version"] == "1.0.0"
    assert manifest["options"]["split_ratios"] == {"train": 0.8, "dev": 0.1, "test": 0.1}
    assert [f["name"] for f in manifest["schema"]][:3] == ["id", "document_id", "title"]
    for name, entry in manifest["files"].items():
        data = (path / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], name
    assert "dataset_info.json" not in manifest["files"]
    total = sum(manifest["rows_per_split"].values())
    assert total == result["stats"]["counts"]["questions"]["kept"]
    squad_questions = sum(len(p["qas"]) for split in ("train", "dev", "test")
                          for d in json.loads((path / "squad" / f"{split}.json").read_text())
                          ["data"] for p in d["paragraphs"])
    assert squad_questions == total


def test_the_squad_export_is_exactly_squad_v1_1(release):
    _, path = release
    for split in ("train", "dev", "test"):
        squad = json.loads((path / "squad" / f"{split}.json").read_text())
        assert set(squad) == {"version", "data"} and squad["version"] == "1.1"
        for document in squad["data"]:
            assert set(document) == {"title", "paragraphs"}
            for paragraph in document["paragraphs"]:
                assert set(paragraph) == {"context", "qas"}
                for qa in paragraph["qas"]:
                    assert set(qa) == {"question", "id", "answers"}
                    for answer in qa["answers"]:
                        assert set(answer) == {"text", "answer_start"}
                        start = answer["answer_start"]
                        assert paragraph["context"][start:start + len(answer["text"])] == \
                            answer["text"]


def test_stats_and_card(release):
    result, path = release
    stats = json.loads((path / "stats.json").read_text())
    lengths = stats["lengths"]["all"]
    assert lengths["question_words"]["count"] == stats["counts"]["questions"]["kept"]
    assert 0 < lengths["answer_words"]["mean"] < lengths["document_words"]["mean"]
    assert stats["question_prefixes"]["first_word"][0]["prefix"] in {"what", "why", "how"}
    card = (path / "README.md").read_text()
    assert "NLQuAD" in card and "load_dataset" in card and "bullet_list_answer" in card
    baselines = stats["baselines"]
    assert baselines["split"] == "dev" and baselines["n"] == result["manifest"][
        "rows_per_split"]["dev"]
    assert [r["name"] for r in baselines["rows"]] == [
        "first window", "last window", "random window", "BM25 window"]
    assert all(0 <= r["iou"] <= 1 and 0 <= r["f1"] <= 1 for r in baselines["rows"])
    assert "Untrained baselines" in card
    summary = format_summary(result)
    assert "pages skipped, video_page: 1" in summary and "rows in train:" in summary


def test_existing_version_refused_then_overwritten(release, capsys):
    _, path = release
    root = str(path.parent.parent)
    before = (path / "dataset_info.json").read_bytes()
    assert main([TEST_RUNNER, "--output", root]) == 3  # EXIT_RELEASE_EXISTS
    assert "already exists" in capsys.readouterr().err
    assert (path / "dataset_info.json").read_bytes() == before


def test_crash_leaves_no_release(tmp_path, monkeypatch):
    import transforms.release.accounting as accounting_io

    def explode(self, element, *args, **kwargs):
        raise RuntimeError("simulated crash")

    monkeypatch.setattr(accounting_io.HistogramFn, "add_input", explode)
    with pytest.raises(Exception, match="simulated crash"):
        run([TEST_RUNNER, "--output", str(tmp_path)])
    assert not os.path.exists(tmp_path / "nlquad" / "1.0.0")
    assert not any((tmp_path / "nlquad").glob(".staging/*"))


def test_multi_process_run_is_byte_identical(release, sample_build):
    _, path = release
    _, other = sample_build("nlquad", "multi_process")  # --export-squad, on 2 workers
    first = json.loads((path / "dataset_info.json").read_text())["files"]
    second = json.loads((other / "dataset_info.json").read_text())["files"]
    data_files = [n for n in first if n.endswith((".parquet", ".jsonl")) or
                  n.startswith("squad/")]
    assert data_files
    assert {n: first[n]["sha256"] for n in data_files} == {
        n: second[n]["sha256"] for n in data_files}


def test_summary_lists_splits_in_release_order(release):
    result, _ = release
    lines = [line for line in format_summary(result).splitlines() if "rows in" in line]
    assert [line.split()[2].rstrip(":") for line in lines] == ["train", "dev", "test"]
