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
