"""build_categories end to end: a bad corpus line costs only itself and the counts add up
(issue 23 §10); a bomb is refused at --max-decoded-mib (§15)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from pipelines import build_categories
from tests.conftest import TEST_RUNNER


def _counts(result: dict) -> dict[str, int]:
    stats = json.loads((Path(result["path"]) / "stats.json").read_text(encoding="utf-8"))
    return stats["counts"]["corpus"]


def _dead_letters(result: dict) -> list[dict]:
    return [json.loads(line) for path in sorted(Path(result["path"]).glob("rejected/**/*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_bad_lines_and_a_bomb_cost_only_themselves(tmp_path):
    root = tmp_path / "in"
    root.mkdir()
    good = ["Fruits such as apples, pears and plums grow here.",
            "He plays instruments such as the violin and the cello."]
    (root / "good.jsonl").write_text("\n".join(
        [json.dumps({"text": good[0]}), "{not json", "[1, 2]",
         '{"text": ' + "[" * 1000 + "]" * 1000 + "}", json.dumps({"text": good[1]})]) + "\n",
        encoding="utf-8")
    (root / "bomb.txt.gz").write_bytes(gzip.compress(b"x such as y\n" * (1 << 18)))  # 3 MiB
    result = build_categories.run([TEST_RUNNER, "--input", str(root / "*"), "--max-decoded-mib",
                                   "1", "--output", str(tmp_path / "out")])
    corpus = _counts(result)
    assert corpus["paragraphs"] == 2  # both good lines of the file with 3 bad ones
    assert corpus["files"] + corpus["unreadable_files"] == 2
    assert corpus["malformed_lines"] == 3 and corpus["unreadable.decoded_too_large"] == 1
    assert corpus["dead_lettered"] == corpus["malformed_lines"] + corpus["unreadable_files"]
    reasons = sorted(d.get("reason") for d in _dead_letters(result))
    assert reasons == ["decoded_too_large", "malformed_json", "not_an_object",
                       "too_deeply_nested"]
