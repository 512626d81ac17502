"""A ``gs://`` path without the GCP extra (issue 37 §5): every option whose help offers
``gs://`` (read from the stored help), ``--categories`` and a release path given to
``release verify`` is one line naming ``pip install '.[gcp]'``, exit 2 before any work, not a
Beam traceback from the middle of the job. The extra's absence is simulated in a child
process by refusing the import of Beam's GCS filesystem (what a missing
``google-cloud-storage`` does), so the test holds whether or not the extra is installed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from pipelines.cli.entry import missing_filesystem
from tests.conftest import PROJECT_ROOT

HELP = PROJECT_ROOT / "pipelines" / "cli" / "help.json"
GCP = "pip install '.[gcp]'"
# In the child: GCS's filesystem cannot be imported, then each command's main runs on its
# arguments; the exit codes are printed as JSON, the commands' stderr passes through.
CHILD = """
import importlib.abc, json, sys
class NoGcp(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith(("apache_beam.io.gcp.gcsfilesystem", "google.cloud.storage")):
            raise ModuleNotFoundError(f"No module named {name!r} (simulated: no GCP extra)")
sys.meta_path.insert(0, NoGcp())
import importlib
codes = []
for module, argv in json.loads(sys.argv[1]):
    codes.append(importlib.import_module(module).main(argv))
    print("--- end of command", file=sys.stderr, flush=True)
print(json.dumps(codes))
"""


def gs_options() -> list[tuple[str, list[str]]]:
    """(module, argv) of every ``python -m pipelines.<module> [sub]`` option whose stored help
    names ``gs://``, given a ``gs://`` value."""
    found = []
    for program, text in json.loads(HELP.read_text()).items():
        if not program.startswith("python -m pipelines."):
            continue
        module, *sub = program.removeprefix("python -m ").split()
        for block in re.split(r"\n  (?=-)", text):
            if "gs://" in block:
                option = re.match(r"(--[\w-]+)", block.strip()).group(1)
                found.append((module, [*sub, option, f"gs://no-bucket/{option[2:]}"]))
    return found


def test_the_help_offers_gs_paths_in_several_options() -> None:
    options = {argv[-2] for _, argv in gs_options()}
    assert {"--output", "--input", "--index-dir", "--cache-dir", "--http-cache-dir"} <= options


def test_every_gs_option_without_the_extra_is_one_line_exit_2(tmp_path: Path) -> None:
    commands = [*gs_options(),
                ("pipelines.build_nq", ["--categories", "gs://no-bucket/categories.jsonl"]),
                ("pipelines.build_nq", ["--categories=gs://no-bucket/categories.jsonl"]),
                ("pipelines.release", ["verify", "gs://no-bucket/releases/nq/1.0.0"])]
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(commands)], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    codes = json.loads(done.stdout.splitlines()[-1])
    outputs = done.stderr.split("--- end of command\n")[:-1]
    assert len(codes) == len(outputs) == len(commands)
    for (module, argv), code, err in zip(commands, codes, outputs, strict=True):
        where = f"{module} {' '.join(argv)}"
        assert code == 2, f"{where}: exit {code}\n{err[-2000:]}"
        lines = err.splitlines()
        assert len(lines) == 1 and "Traceback" not in err, f"{where}:\n{err[-2000:]}"
        assert lines[0].startswith("error: ") and GCP in lines[0], where
        assert "gs://no-bucket/" in lines[0], where
    assert list(tmp_path.iterdir()) == [], "nothing is written"


def test_a_local_path_or_an_endpoint_url_is_not_checked() -> None:
    assert missing_filesystem(["--output", "releases", "--wayback-endpoint",
                               "http://127.0.0.1:1/", "--to", "hf://datasets/a/b"]) is None
    # publish's --to names a Hub repository: a gs:// there is publish's own usage error
    assert missing_filesystem(["publish", "releases/x", "--to", "gs://b/x"]) is None
    assert missing_filesystem(["publish", "releases/x", "--to=gs://b/x"]) is None
