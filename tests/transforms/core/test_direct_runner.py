"""The DirectRunner's engine is run directly: a job never tries to download Prism."""

from __future__ import annotations

import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.portability import prism_runner
from apache_beam.runners.portability.fn_api_runner import fn_runner

from tests.transforms.release.toy import build, finish_toy
from transforms.core.direct_runner import names_direct_runner, runner_for
from transforms.release import ReleaseTarget, run_release


@pytest.mark.parametrize("name", [
    "DirectRunner", "directrunner", "direct", "DIRECT",
    "apache_beam.runners.direct.direct_runner.DirectRunner", None])
def test_every_name_beam_reads_as_the_direct_runner_is_one(name):
    assert names_direct_runner(name)


@pytest.mark.parametrize("name", [
    "FnApiRunner", "PrismRunner", "prism", "DataflowRunner", "PortableRunner",
    "BundleBasedDirectRunner", "SwitchingDirectRunner", "my.module.DirectRunnerLike"])
def test_other_runners_are_not_the_direct_runner(name):
    assert not names_direct_runner(name)


def test_the_direct_runner_is_its_fn_api_engine_with_the_options_for_its_workers():
    options = PipelineOptions(["--runner=DirectRunner", "--direct_running_mode=multi_processing",
                               "--direct_num_workers=2"])
    runner = runner_for(options)
    assert isinstance(runner, fn_runner.FnApiRunner)
    given = runner._provision_info.provision_info.pipeline_options  # noqa: SLF001
    assert float(given["beam:option:direct_num_workers:v1"]) == 2
    assert given["beam:option:direct_running_mode:v1"] == "multi_processing"


@pytest.mark.parametrize("args", [
    ["--runner=FnApiRunner"], ["--runner=PrismRunner"], ["--runner=DataflowRunner"],
    ["--runner=DirectRunner", "--streaming"]])
def test_beam_creates_every_other_runner_itself(args):
    assert runner_for(PipelineOptions(args)) is None


def test_a_direct_runner_job_runs_on_the_fn_api_runner_without_trying_prism(tmp_path,
                                                                          monkeypatch):
    """Beam's DirectRunner would first try Prism (a download from GitHub): the release's job
    goes straight to the engine it falls back to, and the release is written."""
    tried, ran = [], []

    def no_prism(self, pipeline, options):
        tried.append(pipeline)
        raise AssertionError("Prism was tried")

    original = fn_runner.FnApiRunner.run_pipeline

    def recorded(self, pipeline, options):
        ran.append(pipeline)
        return original(self, pipeline, options)

    monkeypatch.setattr(prism_runner.PrismRunner, "run_pipeline", no_prism)
    monkeypatch.setattr(fn_runner.FnApiRunner, "run_pipeline", recorded)
    target = ReleaseTarget.create(str(tmp_path), "toy", "1.0.0")
    result = run_release(target, False, ["--runner=DirectRunner"],
                         lambda pipeline: build(pipeline, ["a", "b"], target),
                         finish_toy(target))
    assert not tried and len(ran) == 1
    assert result["manifest"]["rows_per_split"] == {"train": 2}
