"""Paths a release records: relative ones as the user gave them, local ones outside the
working directory as ``<local>/...``, URLs as they are; never this machine's layout."""

from __future__ import annotations

import os

import pytest

from transforms.core.paths import (
    PROJECT_ROOT,
    code_location,
    portable_path,
    portable_traceback,
    portable_value,
)

GIVEN = ["pag*/*.html", "cor*/*.jsonl", "./cor*/*.jsonl", "corpus/*.jsonl", "corpus/**/*.jsonl",
         "*.tsv", "a?c/[ab]*.txt", "pages/../pages/x.html", "out", "./out/", "~/data/x.tsv"]
REMOTE = ["gs://bucket/pag*/*.html", "gs://b/../x", "https://www.bbc.co.uk/news/x",
          "hf://datasets/org/name", "s3://b/k/*.json"]


@pytest.mark.parametrize("path", GIVEN + REMOTE)
def test_relative_paths_globs_and_urls_are_recorded_as_given(path, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert portable_path(path, str(tmp_path)) == path
    assert portable_value({"input": path, "beam_args": [f"--input={path}"]}) == {
        "input": path, "beam_args": [f"--input={path}"]}


@pytest.mark.parametrize("path, recorded", [
    ("{outside}/rel", "<local>/rel"),
    ("{outside}/data/pages/*.html", "<local>/pages/*.html"),
    ("{outside}/data/pag*/*.html", "<local>/data/pag*/*.html"),
    ("../data/pages/*.html", "<local>/pages/*.html"),
    ("../../tmp/abc/rel", "<local>/rel"),
    ("pages/../../x.tsv", "<local>/x.tsv"),
    ("./../out", "<local>/out"),
    ("..", "<local>"),
])
def test_local_paths_outside_the_working_directory_become_local_name(path, recorded, tmp_path):
    cwd, outside = tmp_path / "project", tmp_path / "elsewhere"
    assert portable_path(path.format(outside=outside), str(cwd)) == recorded


def test_absolute_paths_inside_the_working_directory_become_relative(tmp_path):
    cwd = str(tmp_path / "project")
    assert portable_path(f"{cwd}/pages/*.html", cwd) == "pages/*.html"
    assert portable_path(f"{cwd}/pag*/x.html", cwd) == "pag*/x.html"
    assert portable_path(f"{cwd}x/a.tsv", cwd) == "<local>/a.tsv"  # a sibling, not inside


def test_the_record_does_not_depend_on_the_machine():
    """Two checkouts in different places, the job run from each checkout's root: the same."""
    for path in ("/data/pages/*.html", "/srv/out", "pipelines/samples/x.tsv", "../up/x"):
        first = portable_path(path.replace("/data", "/home/a/data"), "/home/a/checkout")
        second = portable_path(path.replace("/data", "/mnt/ci/data"), "/mnt/ci/x/checkout")
        assert first == second and not first.startswith(("/", ".."))
    assert portable_path("/home/a/checkout/p/x.tsv", "/home/a/checkout") == \
        portable_path("/mnt/ci/checkout/p/x.tsv", "/mnt/ci/checkout") == "p/x.tsv"


def test_paths_inside_options_and_descriptions_are_made_relative():
    here = os.getcwd()
    value = {"input": f"{here}/pages/*.html", "beam_args": [f"--temp_location={here}/tmp"],
             "description": f"saved HTML pages matching {here}/pages/*.html",
             "urls": ["https://www.bbc.co.uk/news/x", "gs://b/x", "a/b"], "n": 3}
    assert portable_value(value) == {
        "input": "pages/*.html", "beam_args": ["--temp_location=tmp"],
        "description": "saved HTML pages matching pages/*.html",
        "urls": ["https://www.bbc.co.uk/news/x", "gs://b/x", "a/b"], "n": 3}


def test_tracebacks_name_code_relative_to_the_project_or_site_packages():
    text = (f'  File "{PROJECT_ROOT}/transforms/core/paths.py", line 3, in f\n'
            '  File "/opt/py/lib/python3.11/site-packages/apache_beam/x.py", line 9, in g\n')
    assert portable_traceback(text) == (
        '  File "transforms/core/paths.py", line 3, in f\n'
        '  File "site-packages/apache_beam/x.py", line 9, in g\n')
    assert code_location("/somewhere/else/module.py") == "module.py"
