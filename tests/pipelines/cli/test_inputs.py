"""Inputs that match nothing fail before the job (exit 4); an empty result is not published
without --allow-empty, and the summary warns when it is."""

from __future__ import annotations

import importlib
import json
import re
import shutil

import pytest
from apache_beam.io.filesystems import FileSystems

from pipelines import build_nlquad, build_search_index
from pipelines.cli.errors import NoInputError
from pipelines.cli.inputs import matching_files, require_inputs
from tests.conftest import TEST_RUNNER
from tests.sample_releases import SAMPLES


def test_require_inputs_globs_and_plain_paths(tmp_path):
    (tmp_path / "a.html").write_text("x")
    require_inputs([str(tmp_path / "*.html"), str(tmp_path / "a.html")])
    for pattern in (tmp_path / "*.warc.gz", tmp_path / "missing.html"):
        with pytest.raises(NoInputError, match=re.escape(f"no input matches {pattern}")):
            require_inputs([str(pattern)])


@pytest.mark.parametrize("pattern, found", [
    ("cor*/*.jsonl", ["corpus/part.jsonl"]),
    ("c?rpus/*.jsonl", ["corpus/part.jsonl"]),
    ("[c]orpus/*.jsonl", ["corpus/part.jsonl"]),
    ("*.jsonl", ["top.jsonl"]),
    ("corpus/*.jsonl", ["corpus/part.jsonl"]),
    ("./cor*/*.jsonl", ["corpus/part.jsonl"]),
    ("corpus/**/*.jsonl", ["corpus/sub/deep.jsonl"]),  # Beam's **: one or more directories
    ("**/*.jsonl", ["corpus/part.jsonl", "corpus/sub/deep.jsonl"]),
    ("{cwd}/cor*/*.jsonl", ["corpus/part.jsonl"]),
    ("corpus/part.jsonl", ["corpus/part.jsonl"]),
])
def test_local_globs_match_what_the_shell_matches(pattern, found, tmp_path, monkeypatch):
    (tmp_path / "corpus" / "sub").mkdir(parents=True)
    for name in ("corpus/part.jsonl", "corpus/sub/deep.jsonl", "top.jsonl", "corpus/x.txt"):
        (tmp_path / name).write_text("{}\n")
    monkeypatch.chdir(tmp_path)
    matched = matching_files(pattern.replace("{cwd}", str(tmp_path)))
    assert sorted(str((tmp_path / path).resolve().relative_to(tmp_path)) for path in matched) \
        == found
    require_inputs([pattern.replace("{cwd}", str(tmp_path))])


def test_remote_globs_reach_their_filesystem_untouched(monkeypatch):
    asked = []
    monkeypatch.setattr(FileSystems, "match", lambda patterns: asked.extend(patterns) or [
        type("Result", (), {"metadata_list": []})()])
    for pattern in ("gs://bucket/cor*/*.jsonl", "gs://bucket/*.jsonl", "s3://b/**/x"):
        assert matching_files(pattern) == []
    assert asked == ["gs://bucket/cor*/*.jsonl", "gs://bucket/*.jsonl", "s3://b/**/x"]


def test_a_relative_glob_builds_and_is_recorded_as_given(tmp_path, monkeypatch):
    """The issue's cases end to end: ``pag*/*.html`` matches and is recorded as given, in the
    manifest and the card; an --output outside the working directory is ``<local>/name``."""
    work = tmp_path / "work"
    shutil.copytree(SAMPLES / "nlquad" / "pages", work / "pages")
    monkeypatch.chdir(work)
    for output in ("../elsewhere/rel", str(tmp_path / "abs" / "rel")):
        assert build_nlquad.main([TEST_RUNNER, "--source", "html", "--input", "pag*/*.html",
                                  "--output", output]) == 0
        release = (work / output / "nlquad" / "1.0.0")
        manifest = json.loads((release / "dataset_info.json").read_text())
        assert manifest["options"]["input"] == "pag*/*.html"
        assert manifest["options"]["output"] == "<local>/rel"
        assert manifest["source"]["description"].endswith("matching pag*/*.html")
        card = (release / "README.md").read_text()
        built = card[card.index("## How it was built"):]
        assert "--source html --input 'pag*/*.html' --output '<local>/rel'" in built
        for text in (json.dumps(manifest), card):
            assert str(tmp_path) not in text and "../" not in text


@pytest.mark.parametrize("module, sample, argv", [
    ("build_jnq", "jnq/query_log.tsv", ["--input", "que*.tsv", "--stop-after", "questions"]),
    ("build_reqa", "reqa/squad_sample.json", ["--source", "squad", "--input", "squad_*"]),
    ("build_categories", "categories/corpus.txt", ["--input", "*.txt"]),
])
def test_every_reader_matches_a_relative_glob(module, sample, argv, tmp_path, monkeypatch):
    """The job's own match (``MatchFiles``, ``MatchAll``), not only the check before it."""
    shutil.copy(SAMPLES / sample, tmp_path)
    monkeypatch.chdir(tmp_path)
    result = importlib.import_module(f"pipelines.{module}").run(
        [TEST_RUNNER, *argv, "--output", "out"])
    assert sum(result["manifest"]["rows_per_split"].values()) > 0
    assert result["manifest"]["options"]["input"] in (argv[argv.index("--input") + 1],
                                                      [argv[argv.index("--input") + 1]])


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
