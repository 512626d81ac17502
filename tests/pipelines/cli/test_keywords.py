"""Keyword arguments become the command line a pipeline's parser reads."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from pipelines.cli.beam_options import check_beam_args
from pipelines.cli.errors import UsageError
from pipelines.cli.keywords import keyword_argv, keyword_help, subcommand_parser
from pipelines.cli.options import add_flag, add_underscore_aliases


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toy")
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--output", default="releases", help="release root")
    parser.add_argument("--from", dest="from_year", type=int, default=2016)
    parser.add_argument("--split-ratios", default="80/10/10")
    parser.add_argument("--no-verify", action="store_true")
    parser.add_argument("--names", nargs="+")
    add_flag(parser, "--export-squad", "also SQuAD")
    return add_underscore_aliases(parser)


def test_values_become_options():
    argv = keyword_argv(_parser(), {
        "input": ["a.txt", Path("b.txt")], "output": Path("out"), "from_year": 2017,
        "split_ratios": {"train": 0.8, "dev": 0.2}, "no_verify": True, "export_squad": False,
        "names": ("x", "y"), "runner": "FnApiRunner", "experiments": ["a", "b"],
        "save_main_session": True, "direct_num_workers": 2}, "toy()", beam=True)
    assert argv == ["--input=a.txt", "--input=b.txt", "--output=out", "--from=2017",
                    "--split-ratios=train=0.8,dev=0.2", "--no-verify",
                    "--export-squad=false", "--names", "x", "y", "--runner=FnApiRunner",
                    "--experiment=a", "--experiment=b", "--save_main_session",
                    "--direct_num_workers=2"]
    args, beam_args = _parser().parse_known_args(argv)
    assert (args.input, args.from_year, args.no_verify, args.export_squad) == \
        (["a.txt", "b.txt"], 2017, True, False)
    assert args.split_ratios == "train=0.8,dev=0.2" and "--save_main_session" in beam_args
    check_beam_args(beam_args, "toy")


def test_none_and_false_keep_defaults_and_names_are_aliases():
    parser = _parser()
    assert keyword_argv(parser, {"output": None, "no_verify": False}, "toy()") == []
    assert keyword_argv(parser, {"from": 2018}, "toy()") == ["--from=2018"]
    assert keyword_argv(parser, {"input": "one.txt"}, "toy()") == ["--input=one.txt"]
    assert keyword_argv(parser, {"split_ratios": [("train", 1)]}, "toy()") == \
        ["--split-ratios=train=1"]


@pytest.mark.parametrize("keywords, message", [
    ({"ouptut": "x"}, "toy() got unknown keyword(s): 'ouptut' (did you mean 'output'?)"),
    ({"runner": "x"}, "toy() got unknown keyword(s): 'runner'"),
    ({"no_verify": "yes"}, "toy(): keyword no_verify takes True or False, got 'yes'"),
    ({"output": ["a", "b"]}, "toy(): keyword output takes one value, got ['a', 'b']"),
    ({"from": 1, "from_year": 2}, "toy(): keywords from and from_year name the same option"),
])
def test_bad_keywords_are_usage_errors(keywords, message):
    with pytest.raises(UsageError) as raised:
        keyword_argv(_parser(), keywords, "toy()", beam=False)
    assert str(raised.value) == message


def test_help_and_subcommands():
    described = keyword_help(_parser())
    assert described["output"] == "release root [default: 'releases']"
    assert "from_year" in described and "help" not in described
    parser = argparse.ArgumentParser(prog="tool")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("export").add_argument("--out")
    assert "out" in keyword_help(subcommand_parser(parser, "export", "tool"))
    with pytest.raises(UsageError, match="unknown command 'exprt' \\(did you mean 'export'"):
        subcommand_parser(parser, "exprt", "tool")
