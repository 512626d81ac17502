"""The card's "How it was built" is one command its pipeline's own parser reads back."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from pipelines import annotate, build_nlquad
from pipelines.cli.beam_options import parse_pipeline_args
from pipelines.cli.rerun import rerun_argv, subcommand, value_text
from pipelines.cli.spec_parser import options_from
from tests.conftest import TEST_RUNNER
from transforms.core.options import recorded, split_ratios_option
from transforms.nlquad.spec import SPEC as NLQUAD

PATHS = ("output", "input", "index")  # recorded as <local>/... when outside the cwd


def card_command(version_dir) -> list[str]:
    """The words of the command in the card's "How it was built" code block."""
    card = (version_dir / "README.md").read_text(encoding="utf-8")
    built = card[card.index("## How it was built"):]
    (command,) = re.findall(r"^```sh\n(.*?)\n```$", built, re.MULTILINE | re.DOTALL)
    assert "\n" not in command
    return shlex.split(command)


def test_the_nlquad_sample_cards_command_parses_back_to_its_options(sample_build):
    result, version_dir = sample_build("nlquad")
    argv = card_command(version_dir)
    assert argv[:3] == ["python", "-m", "pipelines.build_nlquad"]
    assert TEST_RUNNER in argv and "--export-squad" in argv
    for wrong in ("--beam-args", "--from-year", "--to-year", "--command"):
        assert wrong not in argv
    args, beam_args = parse_pipeline_args(build_nlquad.build_parser(), argv[3:])
    assert beam_args == [TEST_RUNNER]
    parsed = recorded(options_from(NLQUAD, args))
    parsed = json.loads(json.dumps({**parsed, "split_ratios": dict(parsed["split_ratios"])}))
    manifest = result["manifest"]["options"]
    assert {k: v for k, v in parsed.items() if k not in PATHS} == {
        k: manifest[k] for k in parsed if k not in PATHS}


def test_only_options_that_differ_from_their_default_in_their_flag_spelling():
    parser = build_nlquad.build_parser()
    ratios = split_ratios_option("train=0.7,dev=0.2,test=0.1")
    values = recorded(NLQUAD.options(version=NLQUAD.version, from_year=2017, split_ratios=ratios,
                                     paragraph_separator=" ", export_squad=True))
    argv = rerun_argv(parser, values, ["--runner=DirectRunner", "--direct_num_workers=2"],
                      NLQUAD.command)
    assert argv == ["python", "-m", "pipelines.build_nlquad", "--from", "2017",
                    "--split-ratios", "train=0.7,dev=0.2,test=0.1", "--export-squad",
                    "--paragraph-separator", " ", "--runner=DirectRunner", "--direct_num_workers=2"]
    args, _ = parse_pipeline_args(build_nlquad.build_parser(), argv[3:])
    again = recorded(options_from(NLQUAD, args))
    assert dict(again.pop("split_ratios")) == pytest.approx(dict(values.pop("split_ratios")))
    assert again == values
    assert rerun_argv(parser, recorded(NLQUAD.options()), [], NLQUAD.command) == (
        NLQUAD.command.split())


def test_annotate_import_values_and_store_actions():
    parser = subcommand(annotate.build_parser(), "import")
    args = parser.parse_args(["--dataset", "nq", "--input", "a b", "--input=-x",
                              "--votes", "v/*.jsonl", "--ways", "train=1,dev=3",
                              "--no-verify", "--exist", "5"])
    argv = rerun_argv(parser, vars(args), [], annotate.COMMAND)
    assert argv[3:] == ["import", "--dataset", "nq", "--input", "a b", "--input=-x", "--votes",
                        "v/*.jsonl", "--ways", "train=1,dev=3", "--no-verify", "--exist", "5"]
    assert vars(parser.parse_args(argv[4:])) == vars(args)


@pytest.mark.parametrize("value, text", [
    (True, "true"), ({"a": 1}, "a=1"), ((("a", 0.5), ("b", 0.5)), "a=0.5,b=0.5"), (3, "3"),
    (0.7000000000000001, "0.7"), (60.0, "60")])
def test_value_text(value, text):
    assert value_text(value) == text


def test_every_sample_release_card_parses_with_its_own_parser(sample_releases):
    """Every release type, the annotated ones included (``annotate import``)."""
    from pipelines.cli.errors import UsageError
    from pipelines.cli.reference import parse_example

    for name, version_dir in sample_releases.items():
        argv = card_command(version_dir)
        assert argv[:2] == ["python", "-m"], name
        parse_example(argv)
        with pytest.raises(UsageError):
            parse_example([*argv, "--no-such-option"])
