"""Simulated stays simulated: ``annotate simulate`` votes -> annotated NQ release -> ReQA.

The annotated release records ``simulated`` in its manifest; a ReQA set built from it copies
the record, warns on its card, claims neither NQ's licence nor ``extended|natural_questions``,
and every page of both releases' browser sites carries the banner. A release without
simulated annotations has none of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from pipelines import build_reqa, release
from tests.conftest import TEST_RUNNER
from transforms.release.lineage import read_lineage
from transforms.release.simulated import (
    NOTE_HEADING,
    derived_record,
    simulated_record,
)

BANNER = 'class="simulated-banner"'


@pytest.fixture(scope="module")
def releases(sample_build, sample_releases, tmp_path_factory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("propagation")
    # the NQ sample to annotate, and its import of simulated votes (seed 7): both shared
    nq = sample_build("nq_to_annotate")[1]
    annotated = sample_releases["nq_annotated"]
    reqa = build_reqa.run(["--source", "nq", "--input", str(annotated), "--output",
                           str(work / "reqa"), TEST_RUNNER])
    plain_reqa = build_reqa.run(["--source", "nq", "--output", str(work / "reqa_plain"),
                                 TEST_RUNNER])  # the bundled NQ sample
    return {"nq": nq, "annotated": annotated, "reqa": Path(reqa["path"]),
            "plain_reqa": Path(plain_reqa["path"]), "work": work,
            "reqa_summary": build_reqa.format_summary(reqa),
            "plain_summary": build_reqa.format_summary(plain_reqa)}


def _manifest(path: Path) -> dict:
    return json.loads((path / "dataset_info.json").read_text(encoding="utf-8"))


def _front_matter(card: str) -> dict:
    return yaml.safe_load(card.split("---\n")[1])


def test_the_annotated_release_records_simulated_in_its_manifest(releases):
    manifest = _manifest(releases["annotated"])
    record = manifest["simulated"]
    assert record["votes"] > 0
    assert record["annotated_release"] == {"dataset": "nq_annotated",
                                           "version": manifest["version"]}
    assert "simulated" not in _manifest(releases["nq"])
    card = (releases["annotated"] / "README.md").read_text(encoding="utf-8")
    assert _front_matter(card)["annotations_creators"] == ["machine-generated"]
    plain = (releases["nq"] / "README.md").read_text(encoding="utf-8")
    assert _front_matter(plain)["annotations_creators"] == ["no-annotation"]


def test_reqa_from_a_simulated_release_carries_the_flag(releases):
    manifest = _manifest(releases["reqa"])
    origin, _ = read_lineage(str(releases["annotated"]))
    record = manifest["simulated"]
    assert record["annotated_release"] == origin.to_dict()
    assert record["input"] == origin.to_dict()
    assert record["votes"] == _manifest(releases["annotated"])["simulated"]["votes"]
    card = (releases["reqa"] / "README.md").read_text(encoding="utf-8")
    body = card.split("---\n", 2)[2]
    assert body.lstrip().startswith("# ReQA")
    assert NOTE_HEADING in body.split("\n## ")[0]  # under the title, before any section
    assert f"nq\\_annotated {origin.version}" in card
    front = _front_matter(card)
    assert front["source_datasets"] == ["original"]
    assert front["license"] == "other"
    assert "simulated annotations" in front["pretty_name"]
    assert "simulated-annotations" in front["tags"]
    assert front["annotations_creators"] == ["machine-generated"]
    licence = card.split("## Licence\n", 1)[1].split("\n## ")[0]
    assert "simulated" in licence and "CC BY-SA 3.0" not in licence
    croissant = json.loads((releases["reqa"] / "croissant.json").read_text(encoding="utf-8"))
    assert croissant["description"].startswith("SIMULATED ANNOTATIONS")
    assert "WARNING: simulated annotations" in releases["reqa_summary"]


def test_reqa_from_a_plain_release_claims_nothing_simulated(releases):
    manifest = _manifest(releases["plain_reqa"])
    assert "simulated" not in manifest
    card = (releases["plain_reqa"] / "README.md").read_text(encoding="utf-8")
    assert NOTE_HEADING not in card and "simulated-annotations" not in card
    assert _front_matter(card)["source_datasets"] == ["extended|natural_questions"]
    assert _front_matter(card)["annotations_creators"] == ["crowdsourced"]
    assert "WARNING: simulated" not in releases["plain_summary"]


def _site_pages(path: Path, out: Path) -> list[Path]:
    assert release.main(["browse", str(path), "--out", str(out)]) == 0
    pages = sorted(out.rglob("*.html"))
    assert pages
    return pages


@pytest.mark.parametrize("name", ["annotated", "reqa"])
def test_every_page_of_a_simulated_site_has_the_banner(releases, name, tmp_path):
    pages = _site_pages(releases[name], tmp_path / "site")
    assert {p.name for p in pages} >= {"index.html", "index-00001.html", "page-00001.html"}
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert html.count(BANNER) == 1, page
        assert "Simulated annotations." in html and "annotate simulate" in html


@pytest.mark.parametrize("name", ["nq", "plain_reqa"])
def test_a_site_without_simulated_annotations_has_no_banner(releases, name, tmp_path):
    for page in _site_pages(releases[name], tmp_path / "site"):
        assert BANNER not in page.read_text(encoding="utf-8"), page


def test_a_release_from_before_the_manifest_key_is_recognized_by_its_stats():
    manifest = {"dataset": "nq_annotated", "version": "1.0.0"}
    assert simulated_record(manifest) is None
    assert simulated_record(manifest, {"simulated_votes": 0}) is None
    record = simulated_record(manifest, {"simulated_votes": 12})
    assert record == {"votes": 12, "annotated_release": manifest}
    derived = derived_record(manifest, {"simulated_votes": 12}, "abc")
    assert derived["annotated_release"] == {**manifest, "fingerprint": "abc"}
    # a release built from a derived one keeps the origin and names its own input
    again = derived_record({"dataset": "reqa_nq", "version": "2", "simulated": derived}, None,
                           "def")
    assert again["annotated_release"] == derived["annotated_release"]
    assert again["input"] == {"dataset": "reqa_nq", "version": "2", "fingerprint": "def"}
