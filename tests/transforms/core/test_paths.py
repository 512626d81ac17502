"""Paths a release records: relative to where the job ran, never absolute."""

from __future__ import annotations

import os

from transforms.core.paths import (
    PROJECT_ROOT,
    code_location,
    portable_path,
    portable_traceback,
    portable_value,
)


def test_absolute_local_paths_become_relative_and_others_stay(tmp_path):
    base = str(tmp_path / "project")
    assert portable_path(str(tmp_path / "data" / "x.tsv"), base) == "../data/x.tsv"
    assert portable_path("gs://bucket/x.tsv", base) == "gs://bucket/x.tsv"
    assert portable_path("pages/*.html", base) == "pages/*.html"


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
