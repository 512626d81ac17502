"""benchmarks/bench_annotation_rounds.py runs at a toy size, so it cannot rot (not a measure)."""

from __future__ import annotations

import importlib.util
import re
import sys

from tests.conftest import PROJECT_ROOT

LINE = re.compile(r"^rounds: exact (\d+\.\d)% of full overlap \(identical 100\.0%\); confident "
                  r"(.+); ds vs paper at 20% spammers: (.+); ECE (.+)$")


def test_the_rounds_benchmark_runs_and_ends_with_its_summary_line(capsys) -> None:
    spec = importlib.util.spec_from_file_location(
        "bench_annotation_rounds", PROJECT_ROOT / "benchmarks" / "bench_annotation_rounds.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    line = module.main(["--items", "6", "--workers", "12"])
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == line
    match = LINE.match(line)
    assert match, line
    assert 0 < float(match.group(1)) <= 100
    for part in match.groups()[1:]:
        assert re.match(r"^[+-]?\d+\.\d+( points)?$|^\d+\.\d% \(accuracy delta|^n/a \(.+\)$",
                        part), part
    for dataset in ("jnq", "jboolq", "nq"):
        assert any(row.startswith(f"{dataset}: 6 ") for row in printed)
    assert sum("accuracy vs truth" in row for row in printed) == 9


def test_the_rounds_benchmark_runs_only_the_datasets_asked(capsys) -> None:
    spec = importlib.util.spec_from_file_location(
        "bench_annotation_rounds", PROJECT_ROOT / "benchmarks" / "bench_annotation_rounds.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    line = module.main(["--items", "4", "--workers", "12", "--datasets", "jboolq"])
    printed = capsys.readouterr().out.splitlines()
    assert LINE.match(line), line
    assert [row.split(":")[0] for row in printed if row[:1].isalpha() and ": 4 " in row] == [
        "jboolq"]
    try:
        module.main(["--datasets", "squad"])
    except SystemExit as refused:
        assert refused.code == 2
    else:
        raise AssertionError("--datasets squad was accepted")
