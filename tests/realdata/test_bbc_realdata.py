"""Checks on real BBC pages from ../shared/data/bbc (skipped when ../shared is absent)."""

from __future__ import annotations

import csv
import re

import pyarrow.parquet as pq
import pytest

from filters.bbc.article import SUBHEADING, ParsedArticle, ParseSkip, parse_bbc_article
from filters.bbc.urls import classify_bbc_url
from filters.nlquad.qa import build_document, is_interrogative
from filters.text.html_decoding import decode_html
from pipelines.build_nlquad import run
from tests.conftest import TEST_RUNNER

pytestmark = pytest.mark.realdata

_LEAK = re.compile(r"\{[^}]*:[^}]*\}|function\s*\(|window\.|\bcss-[a-z0-9]+|var\s+\w+\s*=")


def _provenance(shared_data):
    with open(shared_data / "bbc" / "provenance.tsv", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _parse(shared_data, name):
    return parse_bbc_article(decode_html((shared_data / "bbc" / name).read_bytes()).text)


def test_subheadings_match_provenance(shared_data):
    checked = 0
    for row in _provenance(shared_data):
        url_class = classify_bbc_url(row["original_url"])
        result = _parse(shared_data, row["filename"])
        if not url_class.is_article or "TRUNCATED" in row["filename"]:
            assert not url_class.is_article or isinstance(result, ParseSkip), row["filename"]
            continue
        assert isinstance(result, ParsedArticle), row["filename"]
        subheadings = [b.text for b in result.blocks if b.kind == SUBHEADING]
        assert len(subheadings) == int(row["n_subheadings"]), (row["filename"], subheadings)
        expected = [] if row["interrogative_subheadings"] == "-" else [
            s.strip() for s in row["interrogative_subheadings"].split("|")]
        assert [s for s in subheadings if is_interrogative(s)] == expected, row["filename"]
        assert result.headline and result.published[:4] >= "2010", row["filename"]
        checked += 1
    assert checked >= 13


def test_no_markup_or_script_leaks_into_text(shared_data):
    for row in _provenance(shared_data):
        result = _parse(shared_data, row["filename"])
        if isinstance(result, ParsedArticle):
            for block in result.blocks:
                for text in (block.text, *block.items):
                    assert not _LEAK.search(text), (row["filename"], text[:120])
                    assert text != "Related Topics"


def test_long_covid_page_questions_and_answers(shared_data):
    article = _parse(shared_data, "bbc_2020_health-54622059__wpp.html")
    document = build_document(article.blocks)
    assert [q.question for q in document.qas] == ["What raises the risk?"]
    answer = document.qas[0].answer_text
    assert answer.startswith('"Having more than five different symptoms in the first week')
    assert answer.endswith("No previous medical conditions were linked to long Covid except "
                           "asthma and lung disease.")
    assert document.qas[0].answer_paragraphs == 6
    assert [(d.question, d.reason) for d in document.dropped] == [
        ("What is long Covid like?", "bullet_list_answer")]
    assert "haveyoursay" not in document.context
    assert "Share your experiences" not in document.context


def test_pipeline_on_real_pages(shared_data, tmp_path):
    index = tmp_path / "index.tsv"
    lines = ["file\turl\ttimestamp"] + [
        f"{row['filename']}\t{row['original_url']}\t{row['year'][:4]}1201000000"
        for row in _provenance(shared_data)]
    index.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run([TEST_RUNNER, "--source", "html", "--input",
                  str(shared_data / "bbc" / "*.html"), "--index", str(index),
                  "--output", str(tmp_path / "out")])
    counts = result["stats"]["counts"]
    assert counts["pages"]["read"] == len(lines) - 1
    assert counts["pages"]["skipped.video_page"] == 1
    assert counts["pages"]["skipped.no_article_body"] == 1
    assert counts["questions"]["kept"] == 1
    assert counts["questions"]["dropped.bullet_list_answer"] == 1
    rows = [r for split in ("train", "dev", "test")
            for r in pq.read_table(tmp_path / "out" / "nlquad" / "1.0.0" / split).to_pylist()]
    assert [r["question"] for r in rows] == ["What raises the risk?"]
    assert rows[0]["date"] == "2020-10-21"
    for newsbeat_footer in ("Follow Newsbeat on Instagram", "Listen to Newsbeat live"):
        assert newsbeat_footer not in rows[0]["context"]
