"""``python -m pipelines.release diff`` and ``leakage``: golden JSON, readable output, exit
codes, and the keyword functions' typed errors.

The goldens are the commands' ``--json`` output on the toy releases of
``tests/transforms/release/test_diff.py`` and ``test_leakage.py``, with the temporary
directory written as ``<tmp>``. After an intended change, rewrite them with UPDATE_GOLDEN=1
and review their diff."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pipelines import release
from pipelines.cli.errors import UsageError
from tests.transforms.release.test_diff import toy_pair, write_release
from tests.transforms.release.test_leakage import toy_external_sets, toy_leaky_release
from transforms.release import DamagedReleaseError, NotAReleaseError

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("release_cli")


@pytest.fixture(scope="module")
def pair(tmp) -> tuple[Path, Path]:
    return toy_pair(tmp / "releases")


@pytest.fixture(scope="module")
def leaky(tmp) -> tuple[Path, list[Path]]:
    external = tmp / "external"
    external.mkdir()
    return toy_leaky_release(tmp / "releases"), toy_external_sets(external)


def _check_golden(name: str, output: str, tmp: Path) -> None:
    value = json.loads(output.replace(str(tmp), "<tmp>"))
    golden = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(json.dumps(value, ensure_ascii=False, indent=1, sort_keys=True)
                          + "\n", encoding="utf-8")
    assert value == json.loads(golden.read_text(encoding="utf-8"))


def test_diff_json_matches_the_golden(pair, tmp, capsys):
    assert release.main(["diff", str(pair[0]), str(pair[1]), "--json"]) == 0
    _check_golden("release_diff_expected.json", capsys.readouterr().out, tmp)


def test_leakage_json_matches_the_golden(leaky, tmp, capsys):
    path, sets = leaky
    assert release.main(["leakage", str(path), "--against", *map(str, sets), "--json"]) == 0
    _check_golden("release_leakage_expected.json", capsys.readouterr().out, tmp)


def test_diff_reads_and_flags_moved_rows(pair, capsys):
    assert release.main(["diff", str(pair[0]), str(pair[1])]) == 0
    out = capsys.readouterr().out
    assert "!!! 2 ROWS MOVED BETWEEN SPLITS (dev -> train 1, train -> test 1)" in out
    assert "table train (id): rows 6 -> 6; 1 added, 1 removed, 2 changed" in out
    assert "column question: 2 changed, e.g. a2, a3" in out
    assert "retyped: score int32 -> int64" in out
    assert "questions.kept 10 -> 11 (+1)" in out and "all.question_words 5.0 -> 5.5" in out
    assert release.main(["diff", str(pair[0]), str(pair[0])]) == 0
    assert "no row moved between splits" in capsys.readouterr().out


def test_leakage_reads(leaky, capsys):
    path, sets = leaky
    assert release.main(["leakage", str(path), "--against", str(sets[0])]) == 0
    out = capsys.readouterr().out
    assert "questions (question): 1 in two or more splits (2 rows; train/dev 1)" in out
    assert "exact after normalization: 2 release rows match 1 of the set's questions" in out
    assert 'test r6: "Who played the voice of Homer Simpson?" ~ "who plays the voice' in out


def test_the_functions_take_keywords_and_dataset_roots(pair, leaky):
    assert release.diff(str(pair[0]), str(pair[1].parent)) == release.diff(
        old=str(pair[0]), new=str(pair[1]), verify=False)
    report = release.leakage(str(leaky[0]),
                             against=str(leaky[1][0]), threshold=0.95, examples=1)
    assert report["external"][0]["near"]["rows"] == 0
    assert len(report["external"][0]["exact"]["examples"]) == 1


def test_usage_errors_raise_and_exit_2(pair, leaky, tmp, capsys):
    other = write_release(tmp / "other", "1.0.0", {"train": [{"id": "x"}]}, dataset="other")
    with pytest.raises(UsageError, match="diff compares two versions of one dataset"):
        release.diff(str(pair[0]), str(other))
    with pytest.raises(NotAReleaseError):
        release.diff(str(pair[0]), str(tmp / "nowhere"))
    with pytest.raises(UsageError, match="threshold 1.5"):
        release.leakage(str(leaky[0]), threshold=1.5)
    with pytest.raises(UsageError, match="no such file"):
        release.leakage(str(leaky[0]), against=[str(tmp / "missing.jsonl")])
    capsys.readouterr()
    assert release.main(["diff", str(pair[0]), str(other)]) == 2
    assert "error: " in capsys.readouterr().err
    assert release.main(["leakage", str(tmp / "nowhere")]) == 2
    assert release.main(["leakage", str(leaky[0]), "--threshold", "0"]) == 2


def test_a_damaged_release_exits_5_unless_not_verified(pair, tmp, capsys):
    copy = write_release(tmp / "damaged", "1.1.0", {"train": [{"id": "a1", "question": "q",
                                                               "answer": "a", "score": 1}]})
    (copy / "stats.json").unlink()
    with pytest.raises(DamagedReleaseError, match="stats.json"):
        release.diff(str(pair[0]), str(copy))
    assert release.main(["diff", str(pair[0]), str(copy)]) == 5
    assert "stats.json" in capsys.readouterr().err
    assert release.main(["leakage", str(copy)]) == 5
    assert release.main(["diff", str(pair[0]), str(copy), "--no-verify"]) == 0
