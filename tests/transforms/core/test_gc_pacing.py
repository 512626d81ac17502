"""A job run in this process runs with full garbage collections rarer, and restores them."""

from __future__ import annotations

import gc

import apache_beam as beam
import pytest
from apache_beam.runners.portability.fn_api_runner import fn_runner

from tests.transforms.release.toy import build, finish_toy
from transforms.core.gc_pacing import FULL_COLLECTION_FACTOR, rare_full_collections
from transforms.release import ReleaseTarget, run_release


def _raised(thresholds: tuple[int, int, int]) -> tuple[int, int, int]:
    young, middle, old = thresholds
    return young, middle, old * FULL_COLLECTION_FACTOR


def test_the_thresholds_are_raised_within_and_restored_also_after_an_error():
    thresholds = gc.get_threshold()
    with rare_full_collections():
        assert gc.get_threshold() == _raised(thresholds)
    assert gc.get_threshold() == thresholds
    with pytest.raises(ValueError), rare_full_collections():
        raise ValueError("the job failed")
    assert gc.get_threshold() == thresholds


def test_a_direct_runner_job_runs_with_rarer_full_collections(tmp_path, monkeypatch):
    seen: list[tuple[int, int, int]] = []
    original = fn_runner.FnApiRunner.run_pipeline

    def recorded(self, pipeline, options):
        seen.append(gc.get_threshold())
        return original(self, pipeline, options)

    monkeypatch.setattr(fn_runner.FnApiRunner, "run_pipeline", recorded)
    before = gc.get_threshold()
    target = ReleaseTarget.create(str(tmp_path), "toy", "1.0.0")
    result = run_release(target, False, ["--runner=DirectRunner"],
                         lambda pipeline: build(pipeline, ["a", "b"], target),
                         finish_toy(target))
    assert result["manifest"]["rows_per_split"] == {"train": 2}
    assert seen == [_raised(before)] and gc.get_threshold() == before
    assert gc.get_freeze_count() == 0  # nothing frozen (see the module docstring)


def test_a_failed_job_restores_the_thresholds(tmp_path):
    before = gc.get_threshold()
    target = ReleaseTarget.create(str(tmp_path), "toy", "1.0.0")

    def broken(pipeline):
        return build(pipeline, ["a"], target) + [
            pipeline | "Fail" >> beam.Create([1]) | beam.Map(_fail)]

    with pytest.raises(Exception, match="a stage failed"):
        run_release(target, False, ["--runner=DirectRunner"], broken, finish_toy(target))
    assert gc.get_threshold() == before


def _fail(_):
    raise RuntimeError("a stage failed")
