"""Exit codes of ``cli_main``: 0 ok, 1 job failed, 2 usage, 3 exists, 4 nothing to release."""

from __future__ import annotations

import logging
import os

import pytest

from pipelines.cli.entry import _flag_value, cli_main, configure_logging, elapsed_line, exit_code
from pipelines.cli.errors import NoInputError, UsageError
from transforms.clients.breaker import EndpointFailing
from transforms.clients.preflight import EndpointUnavailable
from transforms.release import (
    EmptyReleaseError,
    InvalidReleaseName,
    InvalidReleaseRoot,
    LatestMovedError,
    LatestNotUpdatedError,
    ReleaseExistsError,
)


@pytest.mark.parametrize("error, code", [
    (UsageError("x"), 2), (InvalidReleaseName("x"), 2), (InvalidReleaseRoot("x"), 2),
    (ReleaseExistsError("x"), 3), (NoInputError("x"), 4), (EmptyReleaseError("x"), 4),
    (LatestNotUpdatedError("x"), 6),
    (EndpointUnavailable("x"), 4), (EndpointFailing("x"), 4),
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
    summary, elapsed = capsys.readouterr().out.strip().splitlines()
    assert summary == "summary" and elapsed.startswith("  elapsed: ")


def test_a_reported_error_names_no_beam_step(capsys):
    """The runner appends the step it ran to an error it re-raises; a one-line report is the
    user's message only."""
    def run(argv):
        raise LatestMovedError("nq 2 was built on 1 [while running 'Publish/Commit']")

    assert cli_main(run, str, []) == 2
    assert capsys.readouterr().err.strip() == "error: nq 2 was built on 1"


def test_summary_gains_elapsed_time_and_throughput():
    manifest = {"rows_per_split": {"train": 80, "dev": 20}}
    assert elapsed_line(4.0, {"manifest": manifest}) == "  elapsed: 4.0 s (25.0 rows/s)"
    assert elapsed_line(2.0, {"records": 10, "manifest": manifest}) == (
        "  elapsed: 2.0 s (5.0 records/s)")
    assert elapsed_line(1.25, {"path": "x"}) == "  elapsed: 1.2 s"
    assert elapsed_line(2.0, {"records": 10, "records_unit": "pages"}) == (
        "  elapsed: 2.0 s (5.0 pages/s)")
    from datetime import UTC, datetime

    existing = {"manifest": {**manifest, "created": "2026-01-01T00:00:00Z"}}
    assert elapsed_line(0.5, existing, datetime(2026, 1, 2, tzinfo=UTC)).endswith(
        "(the release was already published: nothing was built)")
    assert elapsed_line(4.0, existing, datetime(2025, 12, 31, tzinfo=UTC)).endswith(
        "(25.0 rows/s)")


def test_flag_prescan():
    assert _flag_value(["--verbose"], "--verbose") == ""
    assert _flag_value(["--verbose=false", "--x"], "--verbose") == "false"
    assert _flag_value(["--progress", "off", "--x"], "--progress") == "off"
    assert _flag_value(["--input", "a"], "--progress") is None


def test_third_party_loggers_stay_at_warning_unless_verbose(monkeypatch):
    from transforms.core.progress import ENV_EVERY

    monkeypatch.setenv(ENV_EVERY, "")
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        assert configure_logging(["--progress", "off"]) is False
        for name in ("bm25s", "apache_beam", "urllib3"):
            assert logging.getLogger(name).getEffectiveLevel() == logging.WARNING
        assert logging.getLogger("qa_datasets.progress").isEnabledFor(logging.INFO)
        import os
        assert os.environ[ENV_EVERY] == "0"
        assert configure_logging(["--verbose"]) is True
        assert logging.getLogger("bm25s").getEffectiveLevel() == logging.INFO
        assert os.environ[ENV_EVERY] == "30"  # auto, stderr is not a terminal under pytest
    finally:
        configure_logging([])
        for handler in list(root.handlers):
            if handler not in saved[0]:
                root.removeHandler(handler)
        for handler in saved[0]:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(saved[1])


def test_progress_and_verbose_are_accepted_but_not_recorded(monkeypatch):
    from pipelines.build_categories import build_parser
    from pipelines.cli.beam_options import parse_pipeline_args
    from transforms.core.progress import ENV_EVERY

    def parse_args(argv):
        return parse_pipeline_args(build_parser(), argv)

    monkeypatch.setenv(ENV_EVERY, "")
    args, beam_args = parse_args(["--progress=5", "--verbose", "--runner=FnApiRunner"])
    assert beam_args == ["--runner=FnApiRunner"]
    assert not hasattr(args, "progress") and not hasattr(args, "verbose")
    import os
    assert os.environ[ENV_EVERY] == "5"
    with pytest.raises(UsageError):
        parse_args(["--progress=soon"])


MULTI_PROCESS = ["--runner=DirectRunner", "--direct_running_mode=multi_processing",
                 "--direct_num_workers=2"]


def test_empty_release_exits_4_on_a_multi_process_runner(tmp_path, capsys):
    """Workers in other processes report the publish step's EmptyReleaseError as text: the
    exit code is still 4 (not 1), nothing is published and the run's stats.json is kept for
    inspection, where the message says."""
    from pipelines import build_categories

    corpus = tmp_path / "corpus.txt"
    corpus.write_text("The weather was fine today.\nNothing to see here at all.\n")
    output = tmp_path / "out"
    code = build_categories.main([*MULTI_PROCESS, "--input", str(corpus),
                                  "--output", str(output)])
    err = capsys.readouterr().err
    assert code == 4
    message = err[err.rindex("error: "):].strip().splitlines()
    assert message[0].startswith("error: no rows in any split")
    assert "[while running" not in err[err.rindex("error: "):]
    assert message[1] == ("  no record was dropped or dead-lettered; the counts: "
                          "corpus.files: 1, corpus.paragraphs: 2")
    (kept,) = (output / "categories" / ".staging").glob("*/stats.json")
    assert message[2].endswith(f"(stats.json): {kept.parent}/ (a later build of this dataset "
                               "removes it)")
    leftovers = {p.relative_to(output).parts[:2] for p in output.rglob("*")}
    assert leftovers == {("categories",), ("categories", ".staging")}  # no version, no LATEST


@pytest.mark.parametrize("ratios", ["train=1,../../../X=1", "train=1,/tmp/x=1",
                                    "train=nan,dev=1"])
def test_a_bad_split_name_or_ratio_is_a_usage_error_before_any_work(tmp_path, capsys, ratios):
    from pipelines.build_nlquad import main

    assert main(["--output", str(tmp_path / "out"), "--split-ratios", ratios]) == 2
    err = capsys.readouterr().err
    assert "--split-ratios" in err and "Traceback" not in err
    assert os.listdir(tmp_path) == []


def test_a_librarys_own_stderr_handler_writes_to_todays_stderr(capsys, monkeypatch):
    """huggingface_hub makes its stderr handler at import: a stream closed since (a test's
    capture, a notebook's redirect) made its warnings a '--- Logging error ---' traceback."""
    import io

    stale = io.StringIO()
    handler = logging.StreamHandler(stale)
    logger = logging.getLogger("huggingface_hub")
    monkeypatch.setattr(logger, "handlers", [handler])
    monkeypatch.setattr(logger, "propagate", False)
    stale.close()
    configure_logging([])
    logger.warning("a warning of the Hub's")
    err = capsys.readouterr().err
    assert "a warning of the Hub's" in err and "Logging error" not in err
