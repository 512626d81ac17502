"""Search-corpus reads are bounded: an over-long dump line or a too deep one costs only itself,
a page file past the cap is refused (issue 23 §15)."""

from __future__ import annotations

import json
import os

import pytest

from tests.transforms.sources.test_search_corpus import ARTICLE, _dump
from transforms.sources.compressed import DECODED_TOO_LARGE, DecodedTooLarge
from transforms.sources.search_corpus import (
    UnreadablePage,
    corpus_directory_records,
    enterprise_records,
    readable_pages,
)


def test_an_over_long_dump_line_costs_only_itself():
    huge = json.dumps({**ARTICLE, "article_body": {"html": "x" * 300_000}})
    deep = "[" * 20_000 + "]" * 20_000
    records = list(enterprise_records(_dump([huge, deep, json.dumps(ARTICLE)]),
                                      max_decoded_bytes=100_000))
    assert isinstance(records[0], DecodedTooLarge) and records[0].reason == DECODED_TOO_LARGE
    assert isinstance(records[1], ValueError) and records[1].reason == "too_deeply_nested"
    assert len(records) == 3 and records[2]["title"] == "Nile"


INDEX = ("file\turl\ttitle\tkind\trevision\n"
         "a.html\thttps://x.org/a\tA\tweb\t0\n"
         "gone.html\thttps://x.org/g\tG\tweb\t0\n"
         "fifo.html\thttps://x.org/f\tF\tweb\t0\n"
         "b.html\thttps://x.org/b\tB\tweb\t0\n")


def test_a_corpus_page_past_the_cap_missing_or_a_fifo_costs_only_itself(tmp_path):
    (tmp_path / "index.tsv").write_text(INDEX)
    (tmp_path / "a.html").write_text("<p>" + " " * 5000 + "</p>")
    (tmp_path / "b.html").write_text("<p>short</p>")
    os.mkfifo(tmp_path / "fifo.html")  # read whole, it would block forever
    records = list(corpus_directory_records(str(tmp_path)))
    assert [type(r).__name__ for r in records] == ["dict", "UnreadablePage", "UnreadablePage",
                                                   "dict"]
    assert isinstance(records[1].error, FileNotFoundError)
    assert "not a regular file" in str(records[2].error)
    capped = list(corpus_directory_records(str(tmp_path), max_decoded_bytes=1000))
    assert isinstance(capped[0], UnreadablePage)
    assert isinstance(capped[0].error, DecodedTooLarge)
    assert capped[3]["url"] == "https://x.org/b"
    with pytest.raises(DecodedTooLarge):
        list(readable_pages(corpus_directory_records(str(tmp_path), max_decoded_bytes=1000)))


def test_build_search_index_counts_and_dead_letters_each_unreadable_page(tmp_path):
    from pipelines import build_search_index
    from tests.conftest import TEST_RUNNER

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "index.tsv").write_text(INDEX)
    (corpus / "a.html").write_text("<p>" + "tide " * 1000 + "</p>")
    (corpus / "b.html").write_text("<p>The trade winds blow from the east.</p>")
    os.mkfifo(corpus / "fifo.html")
    result = build_search_index.run([TEST_RUNNER, "--source", "pages", "--input", str(corpus),
                                     "--max-decoded-mib", "0.001",
                                     "--output", str(tmp_path / "out")])
    pages = result["stats"]["counts"]["pages"]
    assert pages["read"] == 1 == result["manifest"]["rows_per_split"]["docs"]
    assert pages["unreadable_files"] == pages["dead_lettered"] == 3
    summary = build_search_index.format_summary(result)
    assert "unreadable pages: 3" in summary and "dead-lettered records: 3" in summary
