"""The publish step gives the memory Arrow's pool holds but no buffer uses back first."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

import transforms.release.run as release_run
from tests.transforms.release.toy import run_toy
from transforms.release.run import release_arrow_memory

MIB = 1 << 20


def _rss_mib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def test_freed_arrow_buffers_are_given_back_to_the_system():
    buffers = []
    for _ in range(96):
        buffer = pa.allocate_buffer(MIB)
        np.frombuffer(buffer, dtype=np.uint8)[:] = 1  # touched: resident
        buffers.append(buffer)
    allocated = _rss_mib()
    del buffers
    release_arrow_memory()
    assert pa.total_allocated_bytes() < 96 * MIB
    assert _rss_mib() <= allocated - 64


def test_publishing_releases_the_pool_before_its_own_reads(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(release_run, "release_arrow_memory", lambda: calls.append(1))
    result = run_toy(tmp_path, ["a", "b"])
    assert calls and result["manifest"]["rows_per_split"] == {"train": 2}
