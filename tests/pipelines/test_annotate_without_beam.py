"""``annotate next``, ``simulate`` and ``export`` read and write local files only: they run
without importing Apache Beam (about a second of CPU per command; the tutorials run dozens),
which only ``annotate import`` needs. A new import of Beam on their path fails here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.docs.pages import ROOT

DRIVER = """
import json, sys
from pipelines import annotate
codes = [annotate.main(argv) for argv in json.loads(sys.argv[1])]
beam = sorted(m for m in sys.modules if m.partition(".")[0] == "apache_beam")
print(json.dumps({"codes": codes, "beam": beam[:5]}))
"""


def _run(commands: list[list[str]]) -> dict:
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(commands)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_rounds_simulate_and_export_never_import_beam(sample_build, tmp_path: Path) -> None:
    _, release = sample_build("jnq")
    votes = str(tmp_path / "votes" / "*.jsonl")
    rounds, out = tmp_path / "rounds", tmp_path / "votes"
    out.mkdir()
    result = _run([
        ["next", "--release", str(release), "--out", str(rounds / "1")],
        ["simulate", "--release", str(release), "--requests", str(rounds / "1" / "requests.jsonl"),
         "--out", str(out / "1.jsonl")],
        ["next", "--release", str(release), "--votes", votes, "--out", str(rounds / "2"),
         "--stop", "confident", "--min-votes", "2"],
        ["simulate", "--release", str(release), "--requests", str(rounds / "2" / "requests.jsonl"),
         "--votes", votes, "--out", str(out / "2.jsonl")],
        ["simulate", "--release", str(release), "--out", str(tmp_path / "full.jsonl")],
        ["export", "--release", str(release), "--tool", "label-studio", "--out",
         str(tmp_path / "export")],
        ["next", "--release", str(release), "--out", str(rounds / "1")],  # exists: exit 2
    ])
    assert result["codes"] == [0, 0, 0, 0, 0, 0, 2]
    assert json.loads((rounds / "2" / "annotation_next.json").read_text())["votes"]
    assert result["beam"] == [], "annotate next / simulate / export imported Apache Beam"
