"""``release_arrow_memory`` gives the pages of freed Arrow buffers back to the system."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from transforms.core.arrow_memory import release_arrow_memory

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
