"""``evaluate``'s ``--help``: every argument explained, the program the user typed, and the
stored help (``pipelines.cli.quick_help``) printed without importing Apache Beam, equal to
the live parsers' help."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pipelines import evaluate
from pipelines.cli import console
from pipelines.cli.parsers import program_name
from pipelines.cli.reference import WIDTH
from tests.conftest import PROJECT_ROOT
from transforms import registry

CONSOLE = "import sys; from pipelines.cli import console; sys.exit(console.evaluate(sys.argv[1:]))"


def _live_help(program: str, baseline: bool) -> str:
    """The help the parser prints when run as ``program`` (``qa-evaluate``, ...)."""
    with program_name(program):
        parser = evaluate.build_baseline_parser() if baseline else evaluate.build_parser()
    return parser.format_help()


@pytest.mark.parametrize("make", [evaluate.build_parser, evaluate.build_baseline_parser])
def test_every_argument_is_explained(make):
    parser = make()
    for action in parser._actions:
        assert action.help, action.dest
    task = next(action for action in parser._actions if action.dest == "task")
    if make is evaluate.build_parser:
        for name in registry.evaluation_tasks():
            assert f"{name} scores " in task.help


@pytest.mark.parametrize("argv, program, baseline", [
    (["-m", "pipelines.evaluate", "--help"], "python -m pipelines.evaluate", False),
    (["-m", "pipelines.evaluate", "nq", "--gold", "g", "-h"], "python -m pipelines.evaluate",
     False),
    (["-m", "pipelines.evaluate", "baseline", "--help"], "python -m pipelines.evaluate", True),
    (["-c", CONSOLE, "--help"], "qa-evaluate", False),
    (["-c", CONSOLE, "jnq", "--help"], "qa-evaluate", False),
    (["-c", CONSOLE, "baseline", "--help"], "qa-evaluate", True),
    (["-c", CONSOLE, "baseline", "reqa", "-h"], "qa-evaluate", True),
])
def test_help_is_stored_and_does_not_import_beam(argv, program, baseline, monkeypatch):
    done = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True,
                          text=True, cwd=PROJECT_ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "apache_beam" not in done.stderr
    monkeypatch.setenv("COLUMNS", str(WIDTH + 2))  # the width the help is stored at
    assert done.stdout == _live_help(program, baseline)
    expected = f"usage: {program} baseline [-h]" if baseline else f"usage: {program} [-h]"
    assert done.stdout.startswith(expected)


def test_qa_evaluate_shows_itself_as_the_program(capsys):
    with pytest.raises(SystemExit) as stop:
        console.evaluate(["nq", "--predictions", "p.json"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: qa-evaluate [-h]")
    assert "qa-evaluate: error: the following arguments are required: --gold" in err
    with pytest.raises(SystemExit) as stop:
        console.evaluate(["baseline", "nq", "--gold", "g"])
    assert stop.value.code == 2
    assert "qa-evaluate baseline: error: the following arguments are required: --out" in (
        capsys.readouterr().err)
    assert "qa-evaluate baseline TASK" in _live_help("qa-evaluate", False)


def test_an_unknown_task_is_left_to_the_parser():
    from pipelines.cli.quick_help import stored_help

    assert stored_help("qa-evaluate", ["nqq", "--help"]) is None
    assert stored_help("python -m pipelines.evaluate", ["--gold", "g"]) is None


def test_the_stored_help_covers_every_task():
    from pipelines.cli.reference import help_texts

    texts = help_texts()
    for program in ("python -m pipelines.evaluate", "qa-evaluate"):
        for task in registry.evaluation_tasks():
            assert texts[f"{program} {task}"] == texts[program]
        assert texts[f"{program} baseline"].startswith(f"usage: {program} baseline [-h]")
