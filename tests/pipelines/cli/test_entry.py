"""Exit codes of ``cli_main``: 0 ok, 1 job failed, 2 usage, 3 exists, 4 nothing to release."""

from __future__ import annotations

import pytest

from pipelines.cli.entry import cli_main, exit_code
from pipelines.cli.errors import NoInputError, UsageError
from transforms.release import (
    EmptyReleaseError,
    InvalidReleaseName,
    InvalidReleaseRoot,
    ReleaseExistsError,
)


@pytest.mark.parametrize("error, code", [
    (UsageError("x"), 2), (InvalidReleaseName("x"), 2), (InvalidReleaseRoot("x"), 2),
    (ReleaseExistsError("x"), 3), (NoInputError("x"), 4), (EmptyReleaseError("x"), 4),
    (RuntimeError("x"), 1), (ValueError("x"), 1),
])
def test_exit_codes(error, code):
    assert exit_code(error) == code


def test_cli_main_reports_one_line_or_a_traceback(capsys):
    def fail(error):
        def run(argv):
            raise error
        return run

    assert cli_main(fail(ReleaseExistsError("release r exists")), str, []) == 3
    assert capsys.readouterr().err.strip() == "error: release r exists"
    assert cli_main(fail(RuntimeError("boom")), str, []) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.strip().endswith("error: the job failed: "
                                                       "RuntimeError: boom")
    assert cli_main(lambda argv: {"ok": 1}, lambda result: "summary", []) == 0
    assert capsys.readouterr().out.strip() == "summary"


MULTI_PROCESS = ["--runner=DirectRunner", "--direct_running_mode=multi_processing",
                 "--direct_num_workers=2"]


def test_empty_release_exits_4_on_a_multi_process_runner(tmp_path, capsys):
    """Workers in other processes report the publish step's EmptyReleaseError as text: the
    exit code is still 4 (not 1) and nothing is published or left staged."""
    from pipelines import build_categories

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("The weather was fine today.\nNothing to see here at all.\n")
    output = tmp_path / "out"
    code = build_categories.main([*MULTI_PROCESS, "--input", str(corpus),
                                  "--output", str(output)])
    err = capsys.readouterr().err
    assert code == 4
    assert err.strip().splitlines()[-1].startswith("error: no rows in any split")
    assert "[while running" not in err.strip().splitlines()[-1]
    leftovers = [p.relative_to(output).as_posix() for p in output.rglob("*")]
    assert leftovers in ([], ["categories"])  # no version, no LATEST, no .staging
