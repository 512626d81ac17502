"""A refresh holds no more of the previous sidecar than this run's captures match (issue 35,
C11): a 210 MB sidecar of documents this run has not took 1.64 GB, because every sidecar
document went into the join with this run's units. Asserted on the Beam counters of the
sidecar read (lines read, documents that go on to the join), not on the machine's memory:
however many lines are added, only the documents of this run's captures reach the join."""

from __future__ import annotations

from pathlib import Path

import apache_beam as beam
import pytest
from apache_beam.metrics.metric import MetricsFilter

from pipelines.build_nlquad import run
from tests.transforms.nlquad.refresh_fixtures import pad_sidecar, refresh_args, sidecar_file
from transforms.nlquad.sidecar import DOCUMENTS_WANTED, LINES_READ, METRICS

ADDED = 400  # distinct captures the run does not have


def other_capture(i: int) -> dict[str, str]:
    """The fields of a sidecar line of a capture the sample has not (as the probe wrote)."""
    url = f"https://www.bbc.co.uk/news/x-9{i:09d}"
    return {"digest": f"FAKE{i:028d}", "asset_key": f"news/9{i:09d}",
            "document_id": f"bbc-9{i:09d}", "canonical_url": url, "capture_url": url}


@pytest.fixture
def pipeline_results(monkeypatch) -> list:
    """The ``PipelineResult`` of every job run while the test runs (metrics read after)."""
    results: list = []

    class Recording(beam.Pipeline):
        def __exit__(self, kind, *rest) -> None:
            super().__exit__(kind, *rest)
            if kind is None:
                results.append(self.result)

    monkeypatch.setattr(beam, "Pipeline", Recording)
    return results


def sidecar_counts(result) -> dict[str, int]:
    counters = result.metrics().query(MetricsFilter().with_namespace(METRICS))["counters"]
    counts = {LINES_READ: 0, DOCUMENTS_WANTED: 0}
    for counter in counters:
        counts[counter.key.metric.name] += counter.committed
    return counts


def test_only_the_documents_of_this_runs_captures_reach_the_join(
        nlquad_v1: Path, tmp_path: Path, pipeline_results: list):
    version, added = pad_sidecar(nlquad_v1, tmp_path, [other_capture(i) for i in range(ADDED)])
    documents = added - 1  # the sample's own lines: every one is a capture of this run
    result = run(refresh_args(version))
    (job,) = pipeline_results
    assert sidecar_counts(job) == {LINES_READ: documents + ADDED, DOCUMENTS_WANTED: documents}
    assert result["stats"]["counts"]["carried"]["documents"] == documents
    published = Path(result["path"])
    assert sidecar_file(published).read_bytes() == sidecar_file(nlquad_v1).read_bytes()
