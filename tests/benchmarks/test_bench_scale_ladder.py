"""benchmarks/bench_scale_ladder.py runs in its smallest form, so it cannot rot (not a
measure: the ladder itself is run by hand, see docs/benchmarks.md)."""

from __future__ import annotations

import importlib.util
import re
import sys

import pytest

from tests.conftest import PROJECT_ROOT

LINE = re.compile(r"^ladder: nlquad per-item x(\d+\.\d\d), peak (\d+\.\d) GB; "
                  r"nq per-item x(\d+\.\d\d), peak (\d+\.\d) GB$")


def ladder_module():
    path = PROJECT_ROOT / "benchmarks" / "bench_scale_ladder.py"
    spec = importlib.util.spec_from_file_location("bench_scale_ladder", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_smallest_ladder_runs_and_ends_with_its_line(tmp_path, capsys) -> None:
    line = ladder_module().main([
        "--rungs", "nlquad=25,50", "--rungs", "nq=25,50", "--modes", "in_memory",
        "--index-docs", "1000", "--work", str(tmp_path), "--progress-every", "0.2",
        "--bar-every", "1"])
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == line
    match = LINE.match(line)
    assert match, line
    assert all(float(value) > 0 for value in match.groups())
    rungs = [row for row in printed if row.startswith("  = ")]
    assert len(rungs) == 4 and all("ms/item" in row and "peak" in row for row in rungs), rungs
    assert sum("100% done" in row for row in printed) == 4  # every rung's bar ends done
    assert not list((tmp_path / "out").iterdir())  # each rung's release is removed


@pytest.mark.parametrize("argv, message", [
    (["--rungs", "squad=10"], "--rungs DATASET=N,N"),
    (["--rungs", "nq=0"], "at least 1 item"),
    (["--modes", "dataflow"], "--modes: choose among"),
    (["--rungs", "nq=5k", "--index-docs", "1k"], "smaller than the largest NQ rung"),
])
def test_usage_errors(argv, message, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        ladder_module().main(argv)
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_counts_and_the_final_line() -> None:
    module = ladder_module()
    assert [module.parse_count(t) for t in ("1k", "100k", "1M", "250", "2.5k")] == [
        1_000, 100_000, 1_000_000, 250, 2_500]
    assert module.final_line({"nlquad": (1.034, 1.26), "nq": (None, 0.5)}) == (
        "ladder: nlquad per-item x1.03, peak 1.3 GB; nq per-item xn/a, peak 0.5 GB")
