"""A user's input is never replaced by a bundled sample (issue 27 §4, for every builder):
``build_nlquad --input`` without a file source and ``build_search_index`` mixing the bundled
corpus with a directory are refused with exit 2 before any work, instead of publishing the
bundled sample as the user's data (or the user's pages labelled as the sample)."""

from __future__ import annotations

import pytest

from pipelines import build_nlquad, build_search_index
from tests.conftest import PROJECT_ROOT, TEST_RUNNER

PAGES = PROJECT_ROOT / "pipelines" / "samples" / "nlquad" / "pages"


@pytest.mark.parametrize("argv, says", [
    (["--input", f"{PAGES}/*.html"], "--source sample reads only the pages bundled"),
    (["--index", f"{PAGES}/../index.tsv"], "--index"),
    (["--source", "wayback", "--input", f"{PAGES}/*.html"], "--source wayback reads captures"),
    (["--source", "warc", "--input", f"{PAGES}/*.html", "--index", "x.tsv"],
     "--index x.tsv would not be read"),
])
def test_nlquad_refuses_inputs_its_source_would_not_read(argv, says, tmp_path, capsys):
    assert build_nlquad.main([TEST_RUNNER, "--output", str(tmp_path / "out"), *argv]) == 2
    error = capsys.readouterr().err
    assert says in error and "--source html" in error
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("argv, says", [
    (["--source", "pages"], "--source pages needs --input DIR"),
    (["--input", str(PROJECT_ROOT / "pipelines" / "samples" / "nq" / "corpus")],
     "is not read by --source sample"),
])
def test_search_index_refuses_a_corpus_mixed_with_the_sample(argv, says, tmp_path, capsys):
    assert build_search_index.main([TEST_RUNNER, "--output", str(tmp_path / "out"),
                                    *argv]) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
