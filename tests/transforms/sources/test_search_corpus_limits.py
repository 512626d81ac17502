"""Search-corpus reads are bounded: an over-long dump line or a too deep one costs only itself,
a page file past the cap is refused (issue 23 §15)."""

from __future__ import annotations

import json

import pytest

from tests.transforms.sources.test_search_corpus import ARTICLE, _dump
from transforms.sources.compressed import DECODED_TOO_LARGE, DecodedTooLarge
from transforms.sources.search_corpus import corpus_directory_records, enterprise_records


def test_an_over_long_dump_line_costs_only_itself():
    huge = json.dumps({**ARTICLE, "article_body": {"html": "x" * 300_000}})
    deep = "[" * 20_000 + "]" * 20_000
    records = list(enterprise_records(_dump([huge, deep, json.dumps(ARTICLE)]),
                                      max_decoded_bytes=100_000))
    assert isinstance(records[0], DecodedTooLarge) and records[0].reason == DECODED_TOO_LARGE
    assert isinstance(records[1], ValueError) and records[1].reason == "too_deeply_nested"
    assert len(records) == 3 and records[2]["title"] == "Nile"


def test_a_corpus_page_past_the_cap_is_refused(tmp_path):
    (tmp_path / "index.tsv").write_text("file\turl\ttitle\tkind\trevision\n"
                                        "a.html\thttps://x.org/a\tA\tweb\t0\n")
    (tmp_path / "a.html").write_text("<p>" + " " * 5000 + "</p>")
    assert len(list(corpus_directory_records(str(tmp_path)))) == 1
    with pytest.raises(DecodedTooLarge):
        list(corpus_directory_records(str(tmp_path), max_decoded_bytes=1000))
