"""Releases built from the bundled samples, shared by the tests that only read them (fixtures
in conftest): one release of every type (what the release-format and browser tests look at,
``sample_releases``: those a shared build makes are copies of it), and one pipeline's default
build on its sample by runner (what the golden and determinism tests look at,
``sample_build``)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from pipelines import (
    annotate,
    build_categories,
    build_jnq,
    build_nlquad,
    build_nq,
    build_reqa,
    build_search_index,
)
from tests.conftest import TEST_RUNNER

SAMPLES = Path(__file__).resolve().parent.parent / "pipelines" / "samples"
MULTI_PROCESS = ["--runner=DirectRunner", "--direct_running_mode=multi_processing",
                 "--direct_num_workers=2"]
RUNNERS = {"in_memory": [TEST_RUNNER], "multi_process": MULTI_PROCESS}
# Each pipeline's run on its default (bundled) inputs, with these options.
SAMPLE_BUILDS = {
    "nlquad": (build_nlquad.run, ["--export-squad"]),
    "nq": (build_nq.run, ["--keep-rejected"]),
    "jnq": (build_jnq.run, []),
    "categories": (build_categories.run, []),
    "search_index": (build_search_index.run, []),
}
# Builds several test files start from (sample_build), not compared across runner modes.
SHARED_BUILDS = {
    **SAMPLE_BUILDS,
    "jboolq": (build_jnq.run, ["--variant", "jboolq"]),
    "nq_to_annotate": (build_nq.run, ["--split-ratios", "train=50,dev=25,test=25"]),
}


def build_sample(name: str, runner: list[str], output: Path) -> dict:
    """``SHARED_BUILDS[name]`` run with the ``runner`` options (one of ``RUNNERS`` or any
    other) into ``output``: the pipeline's result (``manifest``, ``stats``, ``path``)."""
    run, extra = SHARED_BUILDS[name]
    return run([*runner, *extra, "--output", str(output)])


def copy_release(version_dir: Path, root: Path) -> Path:
    """A copy of a shared build's dataset directory (its ``LATEST`` and versions) under the
    release root ``root``, for a test that writes next to it: the copied version directory."""
    shutil.copytree(version_dir.parent, root / version_dir.parent.name, symlinks=True)
    return root / version_dir.parent.name / version_dir.name


def build_sample_releases(base: Path, runner: str,
                          shared: Callable[[str], Path]) -> dict[str, Path]:
    """Every release type under ``base/releases``: dataset name -> version directory. The
    releases a shared build already makes from the bundled samples (``shared(name)``: the
    version directory of ``SHARED_BUILDS[name]`` run with ``runner``) are copies of it; the
    others are built here, from a copy of the samples."""
    samples = base / "samples"
    shutil.copytree(SAMPLES, samples)
    root = base / "releases"
    out = ["--output", str(root), runner]
    build_nlquad.run([*out, "--source", "html",
                      "--input", str(samples / "nlquad" / "pages" / "*.html"),
                      "--index", str(samples / "nlquad" / "index.tsv")])
    build_nq.run([*out, "--input", str(samples / "nq" / "query_log.tsv"), "--keep-rejected",
                  "--stop-after", "questions"])
    build_reqa.run([*out, "--source", "squad",
                    "--input", str(samples / "reqa" / "squad_sample.json")])
    for name in ("nq", "jnq", "jboolq", "search_index", "categories"):
        copy_release(shared(name), root)
    to_annotate = base / "to_annotate"
    copy_release(shared("nq_to_annotate"), to_annotate)
    for dataset, release in (("nq", to_annotate / "nq"), ("jnq", root / "jnq")):
        votes = base / f"votes-{dataset}.jsonl"
        assert annotate.main(["simulate", "--release", str(release), "--out", str(votes),
                              "--seed", "7"]) == 0
        assert annotate.main(["import", "--dataset", dataset, "--input", str(release),
                              "--votes", str(votes), "--output", str(root), runner]) == 0
    return {p.parent.parent.name: p.parent for p in root.glob("*/*/dataset_info.json")}
