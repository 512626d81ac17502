"""``--help`` is readable: one spelling per option, defaults shown, every option explained,
the program the user typed, and a description of every stage."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest

from pipelines import annotate, release
from pipelines.cli import console
from pipelines.cli.parsers import HelpFormatter, default_text
from pipelines.cli.rerun import subcommand
from tests.conftest import PROJECT_ROOT
from transforms import registry

BUILDERS = [registry.spec(name).module for name in registry.names()]


def parsers() -> dict[str, argparse.ArgumentParser]:
    """Every parser of a builder, ``annotate`` and ``release``, subcommands included."""
    found = {module: importlib.import_module(f"pipelines.{module}").build_parser()
             for module in BUILDERS}
    for name, parser in (("annotate", annotate.build_parser()),
                         ("release", release.build_parser())):
        found[name] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                found.update({f"{name} {sub}": subcommand(parser, sub) for sub in action.choices})
    return found


@pytest.mark.parametrize("name, parser", parsers().items())
def test_one_spelling_per_option_every_option_explained(name, parser, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    text = parser.format_help()
    assert "_" not in "".join(o[2:] for a in parser._actions for o in a.option_strings), name
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        assert action.help, (name, action.dest)
    assert parser.formatter_class is HelpFormatter, name
    assert "default: None" not in text and "default: False" not in text


def test_underscore_spellings_are_still_accepted():
    parser = importlib.import_module("pipelines.build_nq").build_parser()
    assert parser.parse_args(["--min_users", "3"]).min_users == 3
    assert "--min_users" not in parser.format_help()


def test_defaults_are_shown_once(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    text = importlib.import_module("pipelines.build_nlquad").build_parser().format_help()
    assert "Parquet rows per shard file (default: 20000)" in text
    assert "(default: https://web.archive.org)" in text
    assert "(default 64)" in text and "(default 64) (default" not in text
    assert default_text("\n") == "'\\n'" and default_text(("a", "b")) == "a,b"


def test_nq_description_covers_both_stages():
    description = registry.spec("nq").description
    assert "Stage 1" in description and "Stage 2" in description
    assert "nq_questions" in description and "long-answer candidates" in description


def test_console_scripts_show_the_command_typed(capsys):
    for argv, head in ((["verify", "--help"], "usage: qa-release verify [-h]"),
                       (["--help"], "usage: qa-release [-h]")):
        with pytest.raises(SystemExit) as stop:
            console.release(argv)
        assert stop.value.code == 0
        assert capsys.readouterr().out.startswith(head)
    with pytest.raises(SystemExit) as stop:
        console.annotate(["export", "--help"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith("usage: qa-annotate export [-h]")
    assert release.main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: python -m pipelines.release [-h]")


@pytest.mark.parametrize("argv", [
    ["-m", "pipelines.build_nq", "--help"],
    ["-m", "pipelines.build_nlquad", "--input", "x", "-h"],
    ["-m", "pipelines.annotate", "import", "--help"],
    ["-m", "pipelines.release", "--help"],
    ["-c", "import sys; from pipelines.cli import console; sys.exit(console.build(sys.argv[1:]))",
     "nq", "--help"],
    ["-c", "import sys; from pipelines.cli import console; sys.exit(console.build(sys.argv[1:]))",
     "--help"],
])
def test_help_does_not_import_beam(argv):
    """The stored help (``pipelines.cli.quick_help``, checked against the parsers by
    ``python -m pipelines.cli.reference --check``) is printed before Beam is imported."""
    done = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True,
                          text=True, cwd=PROJECT_ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage: ")
    assert "apache_beam" not in done.stderr


def test_stored_help_is_the_parsers_help():
    from pipelines.cli.quick_help import stored_help
    from pipelines.cli.reference import help_texts

    texts = help_texts()
    assert stored_help("python -m pipelines.build_nq", ["--input", "x", "--help"]) == (
        texts["python -m pipelines.build_nq"])
    assert stored_help("qa-annotate", ["import", "-h"]) == texts["qa-annotate import"]
    assert stored_help("qa-annotate", ["imprt", "-h"]) is None  # the parser reports it
    assert stored_help("python -m pipelines.build_nq", ["--", "--help"]) is None
    assert stored_help("python -m pipelines.build_nq", ["--input", "x"]) is None
