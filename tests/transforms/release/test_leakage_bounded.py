"""The near-duplicate search of ``release leakage`` is bounded per release question: questions
of one template (every pair a near-duplicate, every LSH band one bucket) are compared with at
most ``max_candidates`` set questions each, counted in the report, and below the cap the
result is the uncapped one. Asserted on comparisons made, never on seconds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.transforms.release.test_diff import write_release
from tests.transforms.release.test_leakage import toy_external_sets, toy_leaky_release
from transforms.release.leakage import LeakageError, release_leakage
from transforms.release.near_duplicates import MAX_CANDIDATES

TEMPLATE = "what is the population of the town of {} in the county of north yorkshire england"


def template_release(root: Path, rows: int) -> Path:
    """``rows`` questions of one template, numbers 1000000.., in train and test."""
    questions = [{"id": f"q{i:04d}", "question": TEMPLATE.format(1_000_000 + i),
                  "document_id": f"doc-{i}"} for i in range(rows)]
    half = rows // 2
    return write_release(root, "1.0.0", {"train": questions[:half], "test": questions[half:]},
                         dataset="template")


def template_set(path: Path, numbers: list[int]) -> Path:
    path.write_text("".join(json.dumps({"id": f"e{n}", "question": TEMPLATE.format(n)}) + "\n"
                            for n in numbers), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def crowded(tmp_path_factory) -> tuple[Path, Path]:
    """40 release questions and 300 set questions, every pair a near-duplicate."""
    root = tmp_path_factory.mktemp("crowded")
    return (template_release(root / "releases", 40),
            template_set(root / "set.jsonl", list(range(2_000_000, 2_000_300))))


def test_each_release_question_is_compared_with_at_most_the_cap(crowded):
    release, external = crowded
    uncapped = release_leakage(str(release), [str(external)], max_candidates=300)
    capped = release_leakage(str(release), [str(external)], max_candidates=8)
    wide, narrow = uncapped["external"][0], capped["external"][0]
    # uncapped, a question of the template meets most of the set's 300
    assert wide["search"]["capped"] == 0 and wide["search"]["candidates"] > 40 * 200
    assert narrow["search"]["queries"] == 40 and narrow["search"]["max_candidates"] == 8
    assert narrow["search"]["candidates"] <= 40 * 8
    assert narrow["search"]["capped"] >= 35  # those whose bands hold more than 8
    assert narrow["near"]["rows"] == wide["near"]["rows"] == 40  # each still finds one
    assert capped["method"]["max_candidates"] == 8
    assert all(e["jaccard"] >= 0.8 for e in narrow["near"]["examples"])


def test_what_a_capped_query_can_miss(tmp_path):
    """The set's only near-duplicate of the release question comes after a crowd of look-alikes
    below the threshold: the cap stops before it (documented), a larger cap finds it."""
    release = write_release(tmp_path / "releases", "1.0.0", {"train": [
        {"id": "q1", "question": "who wrote the novel war and peace in the year 1869",
         "document_id": "d1"}]}, dataset="one")
    crowd = [f"who wrote the novel war and peace in the russian city of {n}"
             for n in range(1000, 1200)]
    external = tmp_path / "set.jsonl"
    external.write_text("".join(json.dumps({"question": q}) + "\n" for q in [
        *crowd, "who wrote the novel war and peace in the year 1868"]), encoding="utf-8")
    small = release_leakage(str(release), [str(external)], max_candidates=5)["external"][0]
    large = release_leakage(str(release), [str(external)], max_candidates=500)["external"][0]
    assert small["search"]["capped"] == 1 and small["near"]["rows"] == 0
    assert large["search"]["capped"] == 0 and large["near"]["rows"] == 1
    assert large["near"]["examples"][0]["external_id"] == 200


def test_ordinary_sets_are_below_the_cap_and_give_the_uncapped_result(tmp_path):
    external = toy_external_sets(_mkdir(tmp_path / "external"))
    release = toy_leaky_release(tmp_path / "releases")
    capped = release_leakage(str(release), list(map(str, external)))
    uncapped = release_leakage(str(release), list(map(str, external)), max_candidates=10**9)
    assert all(s["search"]["capped"] == 0 for s in capped["external"])
    assert capped["method"]["max_candidates"] == MAX_CANDIDATES
    for one, other in zip(capped["external"], uncapped["external"], strict=True):
        assert {k: v for k, v in one.items() if k != "search"} == \
            {k: v for k, v in other.items() if k != "search"}
        assert one["search"]["candidates"] == other["search"]["candidates"]


def test_a_cap_below_one_is_refused(crowded):
    with pytest.raises(LeakageError, match="max_candidates 0"):
        release_leakage(str(crowded[0]), [str(crowded[1])], max_candidates=0)


def _mkdir(path: Path) -> Path:
    path.mkdir()
    return path
