"""A job run in this process runs with the heap it started with frozen, and unfrozen after."""

from __future__ import annotations

import gc

import apache_beam as beam
import pytest
from apache_beam.runners.portability.fn_api_runner import fn_runner

from tests.transforms.release.toy import build, finish_toy
from transforms.core.frozen_heap import FULL_COLLECTION_FACTOR, FrozenHeap
from transforms.release import ReleaseTarget, run_release


def test_what_is_frozen_within_is_unfrozen_on_exit_also_after_an_error():
    assert gc.get_freeze_count() == 0
    thresholds = gc.get_threshold()
    with FrozenHeap() as heap:
        assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds  # until asked
        heap.freeze()
        assert gc.get_freeze_count() > 0
        young, middle, old = thresholds
        assert gc.get_threshold() == (young, middle, old * FULL_COLLECTION_FACTOR)
        heap.freeze()  # again: the thresholds are not raised twice
        assert gc.get_threshold() == (young, middle, old * FULL_COLLECTION_FACTOR)
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds
    with pytest.raises(ValueError), FrozenHeap() as heap:
        heap.freeze()
        raise ValueError("the job failed")
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds


def test_a_direct_runner_job_runs_with_the_heap_frozen(tmp_path, monkeypatch):
    frozen: list[int] = []
    original = fn_runner.FnApiRunner.run_pipeline

    def recorded(self, pipeline, options):
        frozen.append(gc.get_freeze_count())  # the pipeline is built: the job starts
        thresholds.append(gc.get_threshold())
        return original(self, pipeline, options)

    thresholds: list[tuple[int, int, int]] = []
    before = gc.get_threshold()

    monkeypatch.setattr(fn_runner.FnApiRunner, "run_pipeline", recorded)
    target = ReleaseTarget.create(str(tmp_path), "toy", "1.0.0")
    result = run_release(target, False, ["--runner=DirectRunner"],
                         lambda pipeline: build(pipeline, ["a", "b"], target),
                         finish_toy(target))
    assert result["manifest"]["rows_per_split"] == {"train": 2}
    assert len(frozen) == 1 and frozen[0] > 10_000  # Beam's modules and the pipeline graph
    assert thresholds == [(*before[:2], before[2] * FULL_COLLECTION_FACTOR)]
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


def test_a_failed_job_leaves_nothing_frozen(tmp_path):
    target = ReleaseTarget.create(str(tmp_path), "toy", "1.0.0")

    def broken(pipeline):
        return build(pipeline, ["a"], target) + [pipeline | "Fail" >> _fail()]

    with pytest.raises(Exception, match="a stage failed"):
        run_release(target, False, ["--runner=DirectRunner"], broken, finish_toy(target))
    assert gc.get_freeze_count() == 0


def _fail():
    def fail(_):
        raise RuntimeError("a stage failed")

    return beam.Create([1]) | beam.Map(fail)
