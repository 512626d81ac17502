"""``qa-build <dataset>``: dispatch to ``pipelines.build_<dataset>.main``, its help and exit
codes; the installed console scripts (when this checkout is installed)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.cli import console
from tests.conftest import TEST_RUNNER
from transforms import registry

BIN = Path(sys.executable).parent


def test_help_lists_every_dataset(capsys):
    assert console.build(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: qa-build DATASET [OPTIONS]")
    for name in ("nlquad", "nq", "jnq", "reqa", "search-index", "categories"):
        assert f"\n  {name} " in out


def test_no_or_unknown_dataset_exits_2(capsys):
    assert console.build([]) == 2
    assert capsys.readouterr().err.strip().endswith("error: name a dataset")
    assert console.build(["nlquadd", "--output", "x"]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: unknown dataset 'nlquadd' (did you mean 'nlquad'?); choose from nlquad, nq, "
        "jnq, reqa, search-index, categories")


@pytest.mark.parametrize("name", [*registry.names(), "search_index"])
def test_each_dataset_runs_its_pipelines_main(monkeypatch, name):
    spec = registry.spec(name)
    module = importlib.import_module(f"pipelines.{spec.module}")
    seen = []
    monkeypatch.setattr(console, "spec_main", lambda s, argv: seen.append((s, argv)) or 7)
    assert console.build([name, "--output", "x"]) == 7
    assert seen == [(spec, ["--output", "x"])]
    assert callable(module.build_parser) and callable(module.main)


def test_the_pipeline_runs_as_qa_build(tmp_path, capsys):
    assert console.build(["nlquad", "--export-squat", "--output", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        "error: unrecognized options: --export-squat (neither an option of qa-build nlquad nor "
        "a Beam pipeline option; see qa-build nlquad --help)")
    with pytest.raises(SystemExit) as stop:
        console.build(["nlquad", "--help"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith("usage: qa-build nlquad [-h]")
    assert console.build(["nlquad", "--source", "htm", "--output", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith(
        "error: argument --source: invalid choice: 'htm'")
    assert not any(tmp_path.iterdir())


def _script(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed (pip install -e .)")
    return str(path)


def test_installed_console_scripts(tmp_path):
    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, check=False)

    built = run(_script("qa-build"), "categories", TEST_RUNNER, "--output", str(tmp_path))
    assert built.returncode == 0, built.stderr
    assert "written to" in built.stdout
    listed = run(_script("qa-release"), "list", str(tmp_path), "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(r["dataset"], r["status"]) for r in json.loads(listed.stdout)["releases"]] == \
        [("categories", "complete")]
    assert run(_script("qa-release"), "verify", str(tmp_path / "categories")).returncode == 0
    wrong = run(_script("qa-build"), "categories", "--batch-size", "x")
    assert wrong.returncode == 2 and wrong.stdout == ""
    assert wrong.stderr.strip().splitlines()[-1].startswith("error: argument --batch-size")
    assert run(_script("qa-build"), "nope").returncode == 2
    for name in ("qa-annotate", "qa-evaluate"):
        assert run(_script(name), "--help").returncode == 0
