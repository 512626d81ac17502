"""``annotate import`` on hostile votes (issue 23 §5, §6, §11, §12, §14, §23).

Each test imports votes for one tiny NQ example read from an original-format file (no release
to build), so a run takes about a second. Every bad vote or file must cost only itself: a
refused vote or a dead-lettered file with a named reason, or a one-line usage error (exit 2)
before any work; never a traceback, never a wrong judgment kept.
"""

from __future__ import annotations

import bz2
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines import annotate
from tests.conftest import TEST_RUNNER
from tests.transforms.annotation.label_studio.fixtures import (
    annotation,
    choice,
    exported_task,
    legacy_nq_task,
    nq_example,
    page_mark,
    paragraph_span,
)
from transforms.annotation.label_studio.configs import LONG_ANSWER_LABEL, LONG_ANSWER_MARKED
from transforms.annotation.label_studio.tasks import nq_task
from transforms.annotation.page import page_text

PROJECT_ROOT = Path(__file__).resolve().parents[2]
VOTE = {"example_id": "-4242", "annotator_id": "w1", "question_good": True,
        "long_answer_candidate": 1, "short_answers": [], "yes_no_answer": "NONE"}
DEEP = "[" * 5000 + "]" * 5000


def _examples(tmp_path: Path) -> Path:
    path = tmp_path / "dev.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(json.dumps(nq_example()) + "\n")
    return path


def _args(tmp_path: Path, votes: Path | str, *extra: str) -> list[str]:
    return ["import", "--dataset", "nq", "--input", str(_examples(tmp_path)), "--split", "dev",
            "--ways", "1", "--votes", str(votes), "--output", str(tmp_path / "out"),
            "--allow-empty", *extra]


def _import(tmp_path: Path, votes: Path | str, *extra: str) -> dict:
    return annotate.run([*_args(tmp_path, votes, *extra), TEST_RUNNER])


def _lines(path: Path, *records: dict | str) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n"
                            for r in records), encoding="utf-8")
    return path


def _long_answers(result: dict) -> list[int]:
    path = Path(result["path"]) / "nq_original" / "dev"
    return [a["long_answer"]["candidate_index"] for file in sorted(path.glob("*.jsonl.gz"))
            for line in gzip.open(file, "rt", encoding="utf-8")
            for a in json.loads(line)["annotations"]]


def _dead_letters(result: dict) -> list[dict]:
    folder = Path(result["path"]) / "rejected" / "dead_letter"
    return [json.loads(line) for file in sorted(folder.glob("*"))
            for line in file.read_text(encoding="utf-8").splitlines()]


def test_vote_times_are_compared_as_instants_and_junk_times_refused(tmp_path):
    votes = _lines(tmp_path / "votes.jsonl",
                   {**VOTE, "long_answer_candidate": 2, "submitted_at": "2025-01-02T02:00:00Z"},
                   # 01:00 UTC: earlier, though its string sorts after the line above
                   {**VOTE, "long_answer_candidate": 1,
                    "submitted_at": "2025-01-02T10:00:00+09:00"},
                   {**VOTE, "long_answer_candidate": 0, "submitted_at": "garbage"})
    result = _import(tmp_path, votes)
    assert _long_answers(result) == [2]
    counts = result["stats"]["counts"]["votes"]
    assert counts["refused.invalid_submitted_at"] == 1
    assert (counts["read"], counts["used"], counts["superseded"]) == (3, 1, 1)
    [letter] = _dead_letters(result)
    assert (letter["reason"], letter["line"]) == ("invalid_submitted_at", 3)


def test_label_studio_updated_at_is_an_instant_too(tmp_path):
    task = nq_task(nq_example(), "dev", "0123456789abcdef")
    text = page_text(task["data"]["page"])
    good = [choice("question_good", "question", "good"),
            choice("long_answer", "page", LONG_ANSWER_MARKED)]

    def box(number: int) -> dict:
        start = text.index(f"#{number} ")
        return page_mark(task, start, start + 2, label=LONG_ANSWER_LABEL)

    export = [exported_task(7, task, [
        annotation(1, 3, [*good, box(1)], updated_at="2025-01-02T02:00:00Z"),
        annotation(2, 3, [*good, box(0)], updated_at="2025-01-02T10:00:00+09:00"),
        annotation(3, 4, [*good, box(0)], updated_at="garbage")])]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    result = _import(tmp_path, path)
    assert _long_answers(result) == [1]
    assert result["stats"]["counts"]["votes"]["refused.invalid_submitted_at"] == 1


def test_a_deeply_nested_votes_line_is_refused_and_the_rest_read(tmp_path):
    votes = _lines(tmp_path / "votes.jsonl", VOTE, '{"example_id": ' + DEEP + "}")
    result = _import(tmp_path, votes)
    counts = result["stats"]["counts"]["votes"]
    assert counts["refused.too_deeply_nested"] == 1 and counts["used"] == 1
    assert _long_answers(result) == [1]


def test_a_deeply_nested_label_studio_export_is_dead_lettered(tmp_path):
    export = tmp_path / "export.json"
    export.write_text("[" + DEEP + "]", encoding="utf-8")
    result = _import(tmp_path, export)
    assert result["stats"]["counts"]["votes"]["unreadable.too_deeply_nested"] == 1
    assert [d["reason"] for d in _dead_letters(result)] == ["too_deeply_nested"]


def test_a_lone_surrogate_in_an_annotator_id_is_refused(tmp_path):
    votes = _lines(tmp_path / "votes.jsonl", '{"annotator_id": "w\\ud800", ' +
                   json.dumps({k: v for k, v in VOTE.items() if k != "annotator_id"})[1:], VOTE)
    result = _import(tmp_path, votes)
    counts = result["stats"]["counts"]["votes"]
    assert counts["refused.malformed_vote"] == 1 and counts["used"] == 1
    [letter] = _dead_letters(result)
    assert "\\ud800" in letter["record"]


def test_label_studio_odd_offsets_and_candidates_are_refused_not_crashes(tmp_path):
    task = legacy_nq_task(nq_example(), "dev", "0123456789abcdef")
    good = [choice("question_good", "question", "good"),
            choice("long_answer", "candidates", "#3 Tr in #1")]
    odd_offset = {**paragraph_span(3, 14, 18, "east")}
    odd_offset["value"] = {**odd_offset["value"], "startOffset": "²"}
    not_objects = {"data": {**task["data"], "candidates": ["a", "b"],
                            "candidate_tokens": [[], []], "candidate_starts": [[], []]}}
    export = [exported_task(7, task, [annotation(1, 3, [*good, odd_offset]),
                                      annotation(2, 4, good)]),
              exported_task(8, not_objects, [annotation(3, 5, good)]),
              exported_task("t\ud800", {"data": {"text": "x"}}, [annotation(4, 6, good)])]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    result = _import(tmp_path, path)
    counts = result["stats"]["counts"]["votes"]
    assert counts["refused.malformed_annotation"] == 1
    assert counts["refused.unknown_task"] == 2
    assert counts["used"] == 1
    assert {d["reason"] for d in _dead_letters(result)} == {"malformed_annotation",
                                                             "unknown_task"}


def test_votes_naming_a_directory_is_a_usage_error_before_any_work(tmp_path, capsys):
    folder = tmp_path / "votes"
    folder.mkdir()
    assert annotate.main(_args(tmp_path, folder)) == 2
    err = capsys.readouterr().err
    assert "not a regular file" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_votes_naming_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "votes.jsonl"
    os.mkfifo(fifo)
    try:  # a regression blocks on the FIFO: the timeout turns it into a failure
        run = subprocess.run([sys.executable, "-m", "pipelines.annotate",
                              *_args(tmp_path, fifo)], cwd=PROJECT_ROOT, capture_output=True,
                             text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("annotate import blocked reading a FIFO given as --votes")
    assert run.returncode == 2, run.stderr
    assert "not a regular file" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("rows", ["0", "-5"])
def test_max_rows_per_shard_must_be_positive(rows, tmp_path, capsys):
    votes = _lines(tmp_path / "votes.jsonl", VOTE)
    assert annotate.main(_args(tmp_path, votes, "--max-rows-per-shard", rows)) == 2
    assert "--max-rows-per-shard" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def _zstd(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


@pytest.mark.parametrize(("suffix", "compress"), [
    (".gz", gzip.compress),
    (".bz2", bz2.compress),
    (".zst", _zstd),
])
def test_a_truncated_compressed_votes_file_is_dead_lettered_not_read_in_part(
        tmp_path, suffix, compress):
    votes = [json.dumps({**VOTE, "annotator_id": f"w{n:04d}", "long_answer_candidate": n % 7})
             for n in range(3000)]
    whole = compress(("\n".join(votes) + "\n").encode("utf-8"))
    path = tmp_path / f"votes.jsonl{suffix}"
    path.write_bytes(whole[:len(whole) * 2 // 3])
    result = _import(tmp_path, path)
    counts = result["stats"]["counts"]["votes"]
    assert counts["unreadable.truncated_compression"] == 1
    assert not any(k.startswith("refused.") for k in counts), "no partial line is parsed"
    assert counts.get("read", 0) < len(votes)
    assert [d["reason"] for d in _dead_letters(result)] == ["truncated_compression"]
