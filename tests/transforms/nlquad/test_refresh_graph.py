"""The transforms of an NLQuAD refresh job: each costs its construction, translation and
bundle set-up (about 15 ms of CPU on the DirectRunner, however few its elements), so the
refresh does without those that only passed elements on."""

from __future__ import annotations

import apache_beam as beam
from apache_beam.pipeline import PipelineVisitor

from pipelines.build_nlquad import run
from tests.conftest import TEST_RUNNER
from tests.pipelines.test_build_nlquad_refresh import REMOVED, sample_pages
from transforms.release.refresh import combine_one


class _Labels(PipelineVisitor):
    def __init__(self) -> None:
        self.labels: list[str] = []

    def visit_transform(self, node) -> None:
        self.labels.append(node.full_label)


def _refresh_labels(tmp_path, monkeypatch) -> list[str]:
    """The leaf transforms of a refresh of the bundled sample's pages (one page removed)."""
    root = tmp_path / "r"
    run([TEST_RUNNER, "--output", str(root), "--version", "1",
         *sample_pages(tmp_path / "v1", set())])
    pipelines: list[beam.Pipeline] = []
    seed_of = combine_one.seed_of

    def seen(pipeline):
        pipelines.append(pipeline)
        return seed_of(pipeline)
    monkeypatch.setattr(combine_one, "seed_of", seen)
    run([TEST_RUNNER, "--output", str(root), "--version", "2", "--previous", "auto",
         *sample_pages(tmp_path / "v2", {REMOVED})])
    visitor = _Labels()
    pipelines[0].visit(visitor)
    return visitor.labels


def test_a_refresh_has_no_transform_that_only_passes_elements_on(tmp_path, monkeypatch):
    labels = _refresh_labels(tmp_path, monkeypatch)
    seeds = [label for label in labels if combine_one.SEED_LABEL in label]
    assert len(seeds) == 2  # one Impulse and one Map for every combine_one of the job
    assert not [label for label in labels if "PreviousFiles" in label and "Reshuffle" in label]
    gone = ("LightPages", "CaptureUnitIds", "CaptureKeyDocuments", "ReadSkipped/Key",
            "RefreshFreshKeys")
    assert not [label for label in labels if any(name in label for name in gone)], labels
