"""Every pipeline writes byte-identical releases in-memory, multi-process and portable.

The portable mode is the Fn API path Dataflow, Flink and Spark use: a local job service plus
an EXTERNAL worker pool, each in its own process (started here, on 127.0.0.1). The in-memory
and multi-process releases are the ones the golden tests read too (``sample_build``).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import TIMESTAMPED
from tests.sample_releases import SAMPLE_BUILDS, build_sample

VOLATILE = ("created", "run_id")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(port: int, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"service on port {port} exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"nothing listens on port {port}")


@pytest.fixture(scope="module")
def portable_args(tmp_path_factory):
    """Start a Beam job service and an EXTERNAL worker pool; yield the runner options."""
    job_port, pool_port = _free_port(), _free_port()
    logs = tmp_path_factory.mktemp("portable")
    commands = [
        [sys.executable, "-m", "apache_beam.runners.portability.local_job_service_main",
         "--port", str(job_port)],
        [sys.executable, "-m", "apache_beam.runners.worker.worker_pool_main",
         "--service_port", str(pool_port)],
    ]
    # the pool starts workers as a bare ``python``: make it this interpreter, venv or not
    env = {**os.environ,
           "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}
    processes = [subprocess.Popen(cmd, stdout=(logs / f"{i}.log").open("w"),
                                  stderr=subprocess.STDOUT, env=env)
                 for i, cmd in enumerate(commands)]
    try:
        _wait_for(job_port, processes[0])
        _wait_for(pool_port, processes[1])
        yield ["--runner=PortableRunner", f"--job_endpoint=localhost:{job_port}",
               "--environment_type=EXTERNAL", f"--environment_config=localhost:{pool_port}"]
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)


def _fingerprint(path: Path) -> tuple[dict, dict]:
    manifest = json.loads((path / "dataset_info.json").read_text())
    files = {name: entry["sha256"] for name, entry in manifest["files"].items()
             if name not in TIMESTAMPED}
    for key in VOLATILE:
        manifest.pop(key)
    manifest["options"].pop("output")
    manifest["options"].pop("beam_args")
    manifest["options"].pop("command_line")  # --output and the Beam arguments again
    manifest.pop("files")
    return files, manifest


@pytest.mark.parametrize("name", sorted(SAMPLE_BUILDS))
def test_same_bytes_in_every_runner_mode(name, sample_build, portable_args, tmp_path):
    results = {mode: _fingerprint(sample_build(name, mode)[1])
               for mode in ("in_memory", "multi_process")}
    results["portable"] = _fingerprint(Path(build_sample(name, portable_args, tmp_path)["path"]))
    files, manifest = results["in_memory"]
    assert any(n.endswith((".parquet", ".jsonl.gz")) for n in files)
    for mode in ("multi_process", "portable"):
        assert results[mode][0] == files, mode
        assert results[mode][1] == manifest, mode
