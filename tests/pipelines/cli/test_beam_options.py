"""Unknown or misspelt options and runner names are usage errors (exit 2), before any work."""

from __future__ import annotations

import pytest

from pipelines import build_nlquad
from pipelines.cli.beam_options import check_beam_args
from pipelines.cli.errors import UsageError
from tests.conftest import TEST_RUNNER

REAL_BEAM_FLAGS = [
    "--runner=DataflowRunner", "--project", "my-project", "--region=europe-west1",
    "--temp_location=gs://bucket/tmp", "--sdk_container_image=repo/image:1",
    "--direct_num_workers=2", "--direct_running_mode=multi_processing",
    "--job_endpoint=localhost:8099", "--environment_type=EXTERNAL",
    "--environment_config=localhost:8098", "--experiments=a", "--experiments", "b",
    "--save_main_session", "--max_num_workers=3", "--service_account_email=a@b.c",
]


def test_real_beam_flags_are_accepted():
    check_beam_args(REAL_BEAM_FLAGS, "prog")
    for runner in ("DirectRunner", "direct", "FnApiRunner", "PortableRunner", "dataflow",
                   "my.package.CustomRunner"):
        check_beam_args([f"--runner={runner}"], "prog")


@pytest.mark.parametrize("argv, offending", [
    (["--export-squat"], "--export-squat"),
    (["--runer=DirectRunner"], "--runer=DirectRunner"),
    (["--project", "p", "--regoin=x"], "--regoin=x"),
    (["stray"], "stray"),
])
def test_unknown_options_are_rejected(argv, offending):
    with pytest.raises(UsageError, match=f"unrecognized options: {offending}"):
        check_beam_args(argv, "prog")


def test_bad_beam_value_is_a_usage_error():
    with pytest.raises(UsageError, match="--direct_num_workers"):
        check_beam_args(["--direct_num_workers=two"], "prog")


def test_pipeline_exits_2_listing_every_unknown_flag(tmp_path, capsys):
    code = build_nlquad.main([TEST_RUNNER, "--export-squat", "--runer=DirectRunner",
                              "--output", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("error: unrecognized options: --export-squat "
                              "--runer=DirectRunner")
    assert not (tmp_path / "nlquad").exists()


def test_bad_runner_is_one_line_with_the_valid_names(tmp_path, capsys):
    code = build_nlquad.main(["--runner=DirectRuner", "--output", str(tmp_path)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "unknown runner 'DirectRuner'" in err[0]
    assert "DirectRunner" in err[0] and "DataflowRunner" in err[0]
    assert not (tmp_path / "nlquad").exists()


@pytest.mark.parametrize("module", ["build_nlquad", "build_nq", "build_jnq", "build_categories",
                                    "build_search_index", "build_reqa"])
def test_every_pipeline_checks_its_beam_args(module, tmp_path):
    import importlib

    run = importlib.import_module(f"pipelines.{module}").run
    with pytest.raises(UsageError, match="--no-such-option"):
        run([TEST_RUNNER, "--no-such-option", "--output", str(tmp_path)])
