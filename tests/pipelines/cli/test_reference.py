"""The generated CLI reference is current and complete; ``parse_example`` checks examples."""

from __future__ import annotations

import argparse

import pytest

from pipelines.cli.errors import UsageError
from pipelines.cli.reference import (
    DEFAULT_PATH,
    _walk,
    cell,
    commands,
    main,
    option_name,
    parse_example,
)


def test_the_committed_reference_is_current(capsys):
    assert main(["--check"]) == 0, capsys.readouterr().err


def test_check_reports_a_stale_file(tmp_path, capsys):
    stale = tmp_path / "cli.md"
    stale.write_text(DEFAULT_PATH.read_text(encoding="utf-8").replace("--quick", "--quik"))
    assert main(["--check", str(stale)]) == 1
    err = capsys.readouterr().err
    assert "is stale (run python -m pipelines.cli.reference --write)" in err
    assert "-| `--quik`" in err and "+| `--quick`" in err
    assert main(["--write", str(stale)]) == 0 and main(["--check", str(stale)]) == 0


def test_every_command_subcommand_and_option_is_in_the_reference():
    text = DEFAULT_PATH.read_text(encoding="utf-8")
    modules = {command.module for command in commands()}
    assert {"build_nlquad", "build_nq", "build_jnq", "build_reqa", "build_search_index",
            "build_categories", "nq_candidates", "annotate", "evaluate", "release"} <= modules
    for command in commands():
        for title, script, parser, _, _ in _walk(command):
            assert f"## `{title}`\n" in text
            if script:
                assert f"Also `{script}`." in text
            for action in parser._actions:
                if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                    continue
                name = option_name(parser, action)
                assert f"| `{name}` |" in text, (title, name)
    for script in ("qa-build nq", "qa-release verify", "qa-annotate import", "qa-evaluate"):
        assert f"Also `{script}`." in text


def test_cells_are_one_line_with_pipes_escaped():
    assert cell("a | b\n c") == "a \\| b c"


@pytest.mark.parametrize("argv", [
    ["python", "-m", "pipelines.build_nq", "--input", "logs/*.parquet", "--min-users", "5"],
    ["python", "-m", "pipelines.build_nlquad", "--runner=DirectRunner",
     "--direct_running_mode=multi_processing", "--direct_num_workers=2", "--skip-existing"],
    [".venv/bin/python", "-m", "pipelines.build_reqa", "--source", "nq", "--max_rows_per_shard",
     "100"],
    ["qa-build", "search-index", "--verbose"],
    ["qa-build", "search_index", "--help"],
    ["qa-build", "--help"],
    ["qa-release", "verify", "DIR"],
    ["python", "-m", "pipelines.release", "leakage", "DIR", "--against", "a.json", "b.json"],
    ["python", "-m", "pipelines.annotate", "import", "--dataset", "nq", "--input", "r",
     "--votes", "v/*.jsonl", "--runner=DirectRunner"],
    ["qa-annotate", "export", "--release", "r", "--out", "tasks/nq"],
    ["qa-evaluate", "nq", "--gold", "g", "--predictions", "p.json"],
    ["python3", "-m", "pipelines.nq_candidates", "--input", "a.jsonl", "--output", "b.jsonl"],
    ["COLUMNS=80", "python", "-m", "pipelines.release", "publish", "--help"],
    ["python", "-m", "pipelines.cli.reference", "--check"],
    ["python", "-m", "pipelines.flex_templates", "--write"],
])
def test_parse_example_accepts_good_examples(argv):
    parse_example(argv)


@pytest.mark.parametrize("argv, message", [
    (["python", "-m", "pipelines.build_nq", "--min-user", "5"], "--min-user"),
    (["python", "-m", "pipelines.build_nq", "--runer=DirectRunner"], "--runer"),
    (["python", "-m", "pipelines.build_nq", "--runner=NoSuchRunner"], "unknown runner"),
    (["qa-release", "verify", "DIR", "--quik"], "--quik"),
    (["qa-release", "verfy", "DIR"], "verfy"),
    (["qa-release", "verfy", "--help"], "verfy"),
    (["python", "-m", "pipelines.annotate", "export", "--release", "r", "--out", "o",
      "--runner=DirectRunner"], "--runner"),
    (["python", "-m", "pipelines.build_nq", "--min-users", "many"], "--min-users"),
    (["qa-build", "nlquadd"], "unknown dataset"),
    (["python", "-m", "pipelines.no_such"], "not a toolkit command"),
    (["pip", "install", "-e", "."], "not a toolkit command"),
    (["python", "script.py"], "not a toolkit command"),
])
def test_parse_example_rejects_misspelt_options_and_other_commands(argv, message):
    with pytest.raises(UsageError) as raised:
        parse_example(argv)
    assert message in str(raised.value)
