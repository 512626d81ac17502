"""``--help`` is readable: one spelling per option, defaults shown, every option explained,
the program the user typed, and a description of every stage."""

from __future__ import annotations

import argparse
import importlib

import pytest

from pipelines import annotate, release
from pipelines.cli import console
from pipelines.cli.parsers import HelpFormatter, default_text
from pipelines.cli.rerun import subcommand
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
    assert console.release(["verify", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: qa-release verify [-h]")
    assert console.release(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: qa-release [-h]")
    with pytest.raises(SystemExit) as stop:
        console.annotate(["export", "--help"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith("usage: qa-annotate export [-h]")
    assert release.main(["--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: python -m pipelines.release [-h]")
