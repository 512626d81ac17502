"""The ``pipelines.nq_candidates`` CLI on a tiny NQ original-format file written here."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest

from filters.nq.candidates import nq_document
from pipelines import nq_candidates as cli
from tests.conftest import PROJECT_ROOT

PAGE = ("<html><head><title>Trade winds</title></head><body><div id='mw-content-text'>"
        "<p>The trade winds blow.</p><ul><li>East</li><li>West</li></ul>"
        "<h2>See also</h2><ul><li>Monsoon</li></ul></div></body></html>")
OTHER = "<p>One paragraph.</p><table><tr><td>a b c</td></tr></table>"


def example(html: str, example_id: int, *, drop_last_candidate: bool = False) -> dict:
    tokens, candidates = nq_document(html)
    given = [c.to_dict() for c in candidates]
    if drop_last_candidate:
        given = given[:-1]
    first = candidates[0]
    return {
        "example_id": example_id,
        "question_text": f"question {example_id}",
        "document_title": "Trade winds",
        "document_html": html,
        "document_tokens": [{"token": "stale", "start_byte": 0, "end_byte": 1,
                             "html_token": False}],
        "long_answer_candidates": given,
        "annotations": [{"annotation_id": 7, "yes_no_answer": "NONE", "short_answers": [],
                         "long_answer": {"start_byte": first.start_byte,
                                         "end_byte": first.end_byte, "start_token": 99,
                                         "end_token": 100, "candidate_index": 0}}],
        "extra_field": {"kept": True},
    }


def write_input(path, lines: list[str]) -> None:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")


def read_output(path) -> list[dict]:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


@pytest.fixture()
def gz_input(tmp_path):
    path = tmp_path / "in.jsonl.gz"
    write_input(path, [
        json.dumps(example(PAGE, 1)),
        "{not json",
        "",
        json.dumps([1, 2]),
        json.dumps(example(OTHER, 2, drop_last_candidate=True)),
        json.dumps({"example_id": 3, "document_html": None}),
    ])
    return path


def test_recomputes_tokens_and_candidates_and_keeps_other_fields(gz_input, tmp_path, capsys):
    out = tmp_path / "out" / "examples.jsonl.gz"
    assert cli.main(["--input", str(gz_input), "--output", str(out)]) == 0
    rows = read_output(out)
    assert [r["example_id"] for r in rows] == [1, 2]
    original = example(PAGE, 1)
    tokens, candidates = nq_document(PAGE)
    assert rows[0]["document_tokens"] == [t.to_dict() for t in tokens]
    assert rows[0]["long_answer_candidates"] == [c.to_dict() for c in candidates]
    for field in ("annotations", "extra_field", "question_text", "document_html",
                  "document_title"):
        assert rows[0][field] == original[field]
    printed = capsys.readouterr()
    assert "read 5 lines: wrote 2 examples, rejected 3 malformed lines" in printed.out
    assert "line 2: malformed: not JSON" in printed.err
    assert "line 4: malformed: not a JSON object" in printed.err
    assert "line 6: malformed: no string document_html" in printed.err


def test_malformed_lines_go_to_the_rejected_file(gz_input, tmp_path):
    out = tmp_path / "examples.jsonl.gz"
    cli.main(["--input", str(gz_input), "--output", str(out)])
    rejected = [json.loads(line) for line in
                (tmp_path / "examples.rejected.jsonl").read_text().splitlines()]
    assert [r["line"] for r in rejected] == [2, 4, 6]
    assert rejected[0]["text"] == "{not json"
    assert all(r["error"] for r in rejected)


def test_compare_reports_agreement_with_the_input(gz_input, tmp_path, capsys):
    cli.main(["--input", str(gz_input), "--output", str(tmp_path / "o.jsonl.gz"),
              "--compare"])
    out = capsys.readouterr().out
    ours = len(nq_document(PAGE)[1]) + len(nq_document(OTHER)[1])
    assert f"candidate precision (byte spans)  {(ours - 1) / ours:.4f} ({ours - 1}/{ours})" in out
    assert f"candidate recall (byte spans)     1.0000 ({ours - 1}/{ours - 1})" in out
    assert "top_level agreement (shared)      1.0000" in out
    assert "annotated long answers among ours 1.0000 (2/2)" in out
    assert "token recall (exact)              0.0000 (0/2)" in out


def test_plain_jsonl_in_and_out(tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    write_input(path, [json.dumps(example(OTHER, 5))])
    out = tmp_path / "out.jsonl"
    assert cli.main(["--input", str(path), "--output", str(out)]) == 0
    assert [r["example_id"] for r in read_output(out)] == [5]
    assert not (tmp_path / "out.rejected.jsonl").exists()
    assert "rejected 0 malformed lines" in capsys.readouterr().out


def test_invalid_utf8_line_is_rejected_not_fatal(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"document_html": "\xff"}\n' + json.dumps(example(OTHER, 6)).encode()
                     + b"\n")
    counts = cli.run(str(path), str(tmp_path / "out.jsonl"), log=sys.stderr)
    assert (counts.written, counts.rejected) == (1, 1)


def test_missing_input_is_an_error(tmp_path, capsys):
    assert cli.main(["--input", str(tmp_path / "nope.jsonl"), "--output",
                     str(tmp_path / "o.jsonl")]) == 2


def test_rejected_path():
    assert cli.rejected_path("a/out.jsonl.gz") == "a/out.rejected.jsonl"
    assert cli.rejected_path("out.jsonl") == "out.rejected.jsonl"
    assert cli.rejected_path("out.data") == "out.data.rejected.jsonl"


def test_help_runs_as_a_module():
    result = subprocess.run([sys.executable, "-m", "pipelines.nq_candidates", "--help"],
                            cwd=PROJECT_ROOT, capture_output=True, text=True, check=True)
    assert "--compare" in result.stdout and "--input" in result.stdout


def test_compare_tolerates_junk_in_the_input_fields(tmp_path):
    path = tmp_path / "in.jsonl"
    junk = [{"document_html": OTHER, "annotations": 5, "long_answer_candidates": {"x": 1},
             "document_tokens": [[1], {"token": ["x"], "start_byte": 0, "end_byte": 1}]},
            {"document_html": OTHER, "annotations": [{"long_answer": [1]}, 7],
             "long_answer_candidates": [{"start_byte": [1], "end_byte": 2}, 3]}]
    write_input(path, [json.dumps(row) for row in junk])
    counts = cli.run(str(path), str(tmp_path / "out.jsonl"), compare=True)
    assert (counts.written, counts.rejected) == (2, 0)
    assert counts.agreement is not None and counts.agreement.theirs == 0
