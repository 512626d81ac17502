"""Inputs that match nothing fail before the job (exit 4); an empty result is not published
without --allow-empty, and the summary warns when it is."""

from __future__ import annotations

import importlib
import re

import pytest

from pipelines import build_nlquad, build_search_index
from pipelines.cli.errors import NoInputError
from pipelines.cli.inputs import require_inputs
from tests.conftest import TEST_RUNNER


def test_require_inputs_globs_and_plain_paths(tmp_path):
    (tmp_path / "a.html").write_text("x")
    require_inputs([str(tmp_path / "*.html"), str(tmp_path / "a.html")])
    for pattern in (tmp_path / "*.warc.gz", tmp_path / "missing.html"):
        with pytest.raises(NoInputError, match=re.escape(f"no input matches {pattern}")):
            require_inputs([str(pattern)])


@pytest.mark.parametrize("module, argv", [
    ("build_nlquad", ["--source", "html", "--input", "{d}/*.html"]),
    ("build_nlquad", ["--source", "html", "--input", "{d}/page.html"]),
    ("build_nlquad", ["--source", "warc", "--input", "{d}/*.warc.gz"]),
    ("build_nq", ["--input", "{d}/*.tsv", "--stop-after", "questions"]),
    ("build_nq", ["--categories", "{d}/categories", "--stop-after", "questions"]),
    ("build_jnq", ["--input", "{d}/log.tsv", "--stop-after", "questions"]),
    ("build_categories", ["--input", "{d}/*.txt"]),
    ("build_reqa", ["--source", "nq", "--input", "{d}/*.jsonl.gz"]),
    ("build_search_index", ["--source", "enterprise", "--input", "{d}/*.json.tar.gz"]),
    ("build_search_index", ["--source", "pages", "--input", "{d}"]),
])
def test_no_input_exits_4_before_the_job(module, argv, tmp_path, capsys):
    missing = tmp_path / "missing"
    argv = [a.replace("{d}", str(missing)) for a in argv]
    main = importlib.import_module(f"pipelines.{module}").main
    assert main([TEST_RUNNER, *argv, "--output", str(tmp_path / "out")]) == 4
    assert capsys.readouterr().err.strip().startswith(f"error: no input matches {missing}")
    assert not (tmp_path / "out").exists()


def test_empty_result_is_not_published_without_allow_empty(tmp_path, capsys):
    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "about.html").write_text("<html><body><p>no article here</p></body></html>")
    argv = [TEST_RUNNER, "--source", "html", "--input", str(pages / "*.html"),
            "--output", str(tmp_path / "out")]
    assert build_nlquad.main(argv) == 4
    assert "pass --allow-empty" in capsys.readouterr().err
    assert not (tmp_path / "out" / "nlquad" / "LATEST").exists()
    assert not (tmp_path / "out" / "nlquad" / "1.0.0").exists()
    assert build_nlquad.main([*argv, "--allow-empty"]) == 0
    out = capsys.readouterr().out
    assert "WARNING: 0 rows kept" in out
    assert (tmp_path / "out" / "nlquad" / "LATEST").read_text().strip() == "1.0.0"


def test_search_index_without_pages_is_an_error_not_a_traceback(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "index.tsv").write_text("file\turl\ttitle\tkind\n")
    code = build_search_index.main([TEST_RUNNER, "--source", "pages", "--input", str(corpus),
                                    "--output", str(tmp_path / "out"), "--allow-empty"])
    err = capsys.readouterr().err
    assert code == 4
    assert "no pages were read" in err and "Traceback" not in err
