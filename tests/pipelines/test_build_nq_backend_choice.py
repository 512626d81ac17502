"""No toy default on real input (issue 27 §4): ``build_nq`` and ``build_jnq`` link a user's log
only against a search backend the user chose, refuse with exit 2 before any work otherwise,
and the manifest and card name the backend and index actually used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipelines import build_jnq, build_nq, build_search_index
from tests.conftest import PROJECT_ROOT, TEST_RUNNER
from transforms.nq.backend_labels import ON_PURPOSE, SAMPLE_PAGES
from transforms.nq.linking_options import CHOICES

MOON = "who was the first person to walk on the moon in 1969"
BUNDLED = "bundled sample index (46 pages, for the sample only)"


def _log(directory: Path, *questions: str) -> Path:
    log = directory / "my_log.jsonl"
    log.write_text("".join(json.dumps({"query": q, "count": 3, "users": 3}) + "\n"
                           for q in questions), encoding="utf-8")
    return log


def _release(result: dict) -> tuple[dict, str]:
    path = Path(result["path"])
    return (json.loads((path / "dataset_info.json").read_text(encoding="utf-8")),
            (path / "README.md").read_text(encoding="utf-8"))


@pytest.mark.parametrize("main", [build_nq.main, build_jnq.main], ids=["nq", "jnq"])
@pytest.mark.parametrize("extra", [[], ["--search", "local"]], ids=["default", "local"])
def test_a_user_log_without_a_backend_is_refused_before_any_work(main, extra, tmp_path,
                                                                 monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the bundled index would be built into ./.cache/search
    log = _log(tmp_path, MOON)
    assert main([TEST_RUNNER, "--input", str(log), "--output", "out", *extra]) == 2
    error = capsys.readouterr().err
    assert f"--input {log} is not the bundled sample log" in error
    for flag, _ in CHOICES.values():
        assert flag in error
    assert "--sample-index" in error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_log.jsonl"]  # nothing written


def test_the_sample_log_names_the_bundled_index(tmp_path):
    """A copy of the sample is the sample (by content): the bundled index, as before, named."""
    copy = tmp_path / "copy.tsv"
    copy.write_bytes((PROJECT_ROOT / "pipelines" / "samples" / "nq" / "query_log.tsv")
                     .read_bytes())
    manifest, card = _release(build_nq.run([TEST_RUNNER, "--input", str(copy), "--output",
                                            str(tmp_path / "out")]))
    source = manifest["source"]
    assert (source["search_backend"], source["index"]) == (BUNDLED, BUNDLED)
    assert (source["bundled_sample_index"], source["sample_input"]) == (True, True)
    assert manifest["options"]["search"] == "local" and manifest["rows_per_split"]["test"] > 0
    assert "Search: bundled sample index \\(46 pages, for the sample only\\)" in card
    assert SAMPLE_PAGES in card and ON_PURPOSE not in card
    assert "Page text, HTML and titles come from Wikipedia" not in card


def test_sample_index_on_a_user_log_is_deliberate_and_recorded(tmp_path):
    manifest, card = _release(build_nq.run([
        TEST_RUNNER, "--input", str(_log(tmp_path, MOON)), "--output", str(tmp_path / "out"),
        "--sample-index", "--allow-empty"]))
    assert manifest["options"]["sample_index"] is True
    source = manifest["source"]
    assert (source["search_backend"], source["bundled_sample_index"],
            source["sample_input"]) == (BUNDLED, True, False)
    assert ON_PURPOSE in card and SAMPLE_PAGES in card


def test_a_local_index_is_named_and_fingerprinted(tmp_path):
    dump = PROJECT_ROOT / "tests" / "fixtures" / "enterprise_sample.json.tar.gz"
    index = build_search_index.run([TEST_RUNNER, "--source", "enterprise", "--input",
                                    str(dump), "--output", str(tmp_path / "indexes")])
    log = _log(tmp_path, "what is the name of the capital city of new zealand")
    manifest, card = _release(build_nq.run([
        TEST_RUNNER, "--input", str(log), "--output", str(tmp_path / "out"),
        "--index-dir", index["path"], "--allow-empty"]))
    source = manifest["source"]
    label = source["search_backend"]
    assert label.startswith("local index search_en 1.0.0 (sha256 ") and label == source["index"]
    assert source["pages_backend"] == "the same index" and not source["bundled_sample_index"]
    assert manifest["options"]["search"] == "local"
    assert "Search: local index search\\_en 1.0.0 \\(sha256 " in card
    assert SAMPLE_PAGES not in card and "Page text, HTML and titles come from Wikipedia" in card
