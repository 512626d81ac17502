"""``annotate export --votes`` (earlier JNQ stages' votes): hostile votes files are refused
with one ``ExportError`` line (a usage error), never a traceback or a hang (issue 23 §5, §11,
§12, §14)."""

from __future__ import annotations

import gzip
import json
import os
import threading

import pytest

from transforms.annotation.export import ExportError, read_jnq_votes

RELEASE = "0123456789abcdef"
VOTE = {"question_id": "q1", "annotator_id": "w1", "stage": "good_question", "value": True,
        "release": RELEASE}


def _read(pattern: str) -> dict:
    """``read_jnq_votes`` in a thread bounded in time: a hang becomes a failure."""
    outcome: dict = {}

    def target() -> None:
        try:
            outcome["votes"] = read_jnq_votes([pattern], RELEASE)
        except Exception as error:  # noqa: BLE001 - the test inspects it
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), f"reading {pattern} blocked"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["votes"]


def test_good_votes_are_read(tmp_path):
    path = tmp_path / "votes.jsonl"
    path.write_text(json.dumps(VOTE) + "\n", encoding="utf-8")
    assert list(_read(str(path))) == ["q1"]


def test_a_deeply_nested_line_is_left_out_like_any_bad_line(tmp_path):
    path = tmp_path / "votes.jsonl"
    path.write_text('{"a": ' + "[" * 5000 + "]" * 5000 + "}\n" + json.dumps(VOTE) + "\n",
                    encoding="utf-8")
    assert list(_read(str(path))) == ["q1"]


def test_a_deeply_nested_label_studio_export_is_refused(tmp_path):
    path = tmp_path / "export.json"
    path.write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    with pytest.raises(ExportError, match="nested deeper"):
        _read(str(path))


def test_a_truncated_votes_file_is_refused_not_read_in_part(tmp_path):
    path = tmp_path / "votes.jsonl.gz"
    data = gzip.compress("".join(json.dumps({**VOTE, "question_id": f"q{n}"}) + "\n"
                                 for n in range(2000)).encode("utf-8"))
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(ExportError, match="truncated_compression"):
        _read(str(path))


def test_a_directory_is_refused(tmp_path):
    (tmp_path / "votes").mkdir()
    with pytest.raises(ExportError, match="not a regular file"):
        _read(str(tmp_path / "votes"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "votes.jsonl"
    os.mkfifo(fifo)
    try:
        with pytest.raises(ExportError, match="not a regular file"):
            _read(str(fifo))
    finally:  # a reader stuck in open() returns once a writer opens: let the thread end
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # ENXIO: no reader, nothing to unblock
            pass
