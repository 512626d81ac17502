"""``release verify``, ``list``, ``diff`` and ``leakage`` read releases without importing
Apache Beam (a second of CPU per command); ``leakage`` against external sets imports it for
its progress counters only then. Nor do they import matplotlib (``browse``'s figures) or
requests (``publish``'s Hub client): 0.6 s of CPU together. A new import of any of them on
their path fails here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.docs.pages import ROOT

DRIVER = """
import json, sys
from pipelines import release
codes = [release.main(argv) for argv in json.loads(sys.argv[1])]
heavy = ("apache_beam", "matplotlib", "requests")
beam = sorted(m for m in sys.modules if m.partition(".")[0] in heavy)
print(json.dumps({"codes": codes, "beam": beam[:5]}))
"""


def test_reading_commands_never_import_beam(sample_build, tmp_path: Path) -> None:
    _, version = sample_build("jnq")
    commands = [["verify", str(version)], ["list", str(version.parent.parent)],
                ["diff", str(version), str(version)], ["leakage", str(version)],
                ["verify", str(tmp_path / "nothing")]]
    done = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(commands)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.splitlines()[-1])
    assert result["codes"] == [0, 0, 0, 0, 2]
    assert result["beam"] == [], ("a release command that reads releases imported Apache Beam, "
                                  "matplotlib or requests")
