"""``python -m pipelines.evaluate baseline``: the card's baselines written as predictions that
``evaluate`` scores to the card's figures, byte-identical runs, and ``--out`` checks. Reads
the shared sample releases (``tests/sample_releases.py``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pipelines import evaluate
from tests.conftest import PROJECT_ROOT

# (task, release, method, card row, {card metric: evaluate key})
CASES = [
    *[("nlquad", "nlquad", method, row, {"iou": "iou", "f1": "f1"}) for method, row in (
        ("first-window", "first window"), ("last-window", "last window"),
        ("random-window", "random window"), ("bm25-window", "BM25 window"))],
    ("nq", "nq_annotated", "first-paragraph", "first paragraph",
     {m: f"long-best-threshold-{m}" for m in ("f1", "precision", "recall")}),
    *[("jnq", "jnq_annotated", method, row, {"micro_f1": "micro_f1", "macro_f1": "macro_f1"})
      for method, row in (("first-paragraph", "first paragraph"),
                          ("snippet-similar", "most snippet-similar paragraph"))],
    *[("reqa", "reqa_squad", method, row, None) for method, row in (
        ("bm25-sentences", "BM25 over sentences"),
        ("bm25-paragraphs", "BM25 over paragraphs (context)"))],
]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = evaluate.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("task, release, method, row, keys", CASES,
                         ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_baseline_scores_equal_the_card(capsys, tmp_path, sample_releases, task, release,
                                        method, row, keys):
    root = sample_releases[release]
    card = json.loads((root / "stats.json").read_text())["baselines"]
    split = [] if card["split"] == "all" else ["--split", card["split"]]
    out = tmp_path / "predictions.json"
    code, printed, err = run(capsys, "baseline", task, "--gold", str(root.parent), *split,
                             "--method", method, "--out", str(out))
    assert code == 0, err
    assert printed.startswith("wrote ") and method in printed
    code, printed, err = run(capsys, task, "--gold", str(root.parent), *split,
                             "--predictions", str(out))
    assert code == 0, err
    scores = json.loads(printed)
    expected = next(r for r in card["rows"] if r["name"] == row)
    for metric, key in (keys or {m: m for m in card["metrics"]}).items():
        assert scores[key] == pytest.approx(expected[metric], abs=1e-12), metric


def test_baseline_formats(capsys, tmp_path, sample_releases):
    """Each file has the documented shape (docs/guides/evaluation.md)."""
    shapes = {}
    for task, release, split in (("nlquad", "nlquad", "dev"), ("nq", "nq_annotated", "dev"),
                                 ("jnq", "jnq_annotated", "test"), ("reqa", "reqa_squad", None)):
        out = tmp_path / f"{task}.json"
        argv = ["baseline", task, "--gold", str(sample_releases[release]), "--out", str(out)]
        assert run(capsys, *argv, *(["--split", split] if split else []))[0] == 0
        shapes[task] = json.loads(out.read_text())
    assert all(set(v) == {"answer_word_start", "answer_word_end"}
               for v in shapes["nlquad"].values())
    first = shapes["nq"]["predictions"][0]
    assert isinstance(first["example_id"], int) and set(first["long_answer"]) == {
        "start_byte", "end_byte", "start_token", "end_token"}
    assert all(isinstance(v, list) and len(v) <= 1 for v in shapes["jnq"].values())
    candidates = len(next(iter(shapes["reqa"].values())))
    assert candidates == 16 and all(len(v) == candidates for v in shapes["reqa"].values())
    out = tmp_path / "top.json"
    assert run(capsys, "baseline", "reqa", "--gold", str(sample_releases["reqa_squad"]),
               "--top", "3", "--out", str(out))[0] == 0
    assert all(len(v) == 3 for v in json.loads(out.read_text()).values())


def test_two_runs_write_the_same_bytes(capsys, tmp_path, sample_releases):
    """In this process and in another with another hash seed (bm25s numbers its vocabulary
    from a set unless told otherwise)."""
    gold = str(sample_releases["reqa_squad"])
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert run(capsys, "baseline", "reqa", "--gold", gold, "--out", str(first))[0] == 0
    subprocess.run([sys.executable, "-m", "pipelines.evaluate", "baseline", "reqa", "--gold",
                    gold, "--method", "bm25-paragraphs", "--out", str(second)], check=True,
                   cwd=PROJECT_ROOT, capture_output=True,
                   env={**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(PROJECT_ROOT)})
    assert first.read_bytes() == second.read_bytes()
    for name in ("c.json", "d.json"):
        assert run(capsys, "baseline", "nlquad", "--gold", str(sample_releases["nlquad"]),
                   "--split", "dev", "--out", str(tmp_path / name))[0] == 0
    assert (tmp_path / "c.json").read_bytes() == (tmp_path / "d.json").read_bytes()
    assert (tmp_path / "c.json").read_bytes().endswith(b"}\n")


def test_out_is_checked_before_any_work(capsys, tmp_path, sample_releases):
    gold = str(sample_releases["nlquad"])
    out = tmp_path / "predictions.json"
    out.write_text("mine")
    # a gold that does not exist: the --out error comes first
    code, _, err = run(capsys, "baseline", "nlquad", "--gold", str(tmp_path / "none"),
                       "--out", str(out))
    assert code == 2 and "exists (pass --overwrite" in err and out.read_text() == "mine"
    code, _, err = run(capsys, "baseline", "nlquad", "--gold", gold, "--out",
                       str(tmp_path / "missing" / "p.json"))
    assert code == 2 and "does not exist" in err
    code, _, err = run(capsys, "baseline", "nlquad", "--gold", gold, "--out", str(tmp_path))
    assert code == 2 and "is a directory" in err
    assert run(capsys, "baseline", "nlquad", "--gold", gold, "--out", str(out),
               "--overwrite")[0] == 0
    assert json.loads(out.read_text())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["predictions.json"]  # no temporary


def test_a_link_at_out_is_replaced_not_followed(capsys, tmp_path, sample_releases):
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep")
    link = tmp_path / "predictions.json"
    link.symlink_to(target)
    gold = str(sample_releases["nlquad"])
    code, _, err = run(capsys, "baseline", "nlquad", "--gold", gold, "--out", str(link))
    assert code == 2 and "exists" in err
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    assert run(capsys, "baseline", "nlquad", "--gold", gold, "--out", str(dangling))[0] == 2
    assert not (tmp_path / "nowhere.json").exists()
    assert run(capsys, "baseline", "nlquad", "--gold", gold, "--out", str(link),
               "--overwrite")[0] == 0
    assert target.read_text() == "keep" and not link.is_symlink() and json.loads(
        link.read_text())


@pytest.mark.parametrize("argv, message", [
    (["nq", "--method", "bm25-window"], "--method for nq"),
    (["nlquad", "--top", "3"], "--top applies to reqa only"),
])
def test_usage_errors(capsys, tmp_path, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(["baseline", *argv, "--gold", "g", "--out", str(tmp_path / "p.json")])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


def test_baseline_needs_a_release(capsys, tmp_path):
    gold = tmp_path / "gold.json"
    gold.write_text("{}")
    code, _, err = run(capsys, "baseline", "jnq", "--gold", str(gold),
                       "--out", str(tmp_path / "p.json"))
    assert code == 2 and "reads a release directory" in err
    assert not (tmp_path / "p.json").exists()
