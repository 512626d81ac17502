"""The search index card: what the index is for, bm25s's citation, page licences."""

from __future__ import annotations

from tests.transforms.nq.card_checks import HOSTILE, SECRET_PATH, check_body, check_card_info
from transforms.search_index.card import index_card, index_card_for
from transforms.sources.search_corpus import DOC_SCHEMA


def test_the_card_describes_a_retrieval_corpus_citing_bm25s():
    [entry] = check_card_info(index_card.info, DOC_SCHEMA)
    assert (entry["key"], entry["eprint"]) == ("lu-2024-bm25s", "2407.03618")
    assert index_card.info.task_categories == ("text-retrieval",)
    assert "Wikipedia" in index_card.info.license_text


def test_a_language_has_its_own_card():
    assert index_card_for("ja").info.language == ("ja",)
    assert index_card_for("ja").info.citation == index_card.info.citation


def test_the_body_says_what_the_index_is_and_how_to_use_it():
    manifest = {"dataset": "search_en", "version": HOSTILE, "rows_per_split": {"docs": 4},
                "options": {"lang": "en", "input": SECRET_PATH},
                "source": {"kind": "pages", "description": SECRET_PATH}}
    stats = {"counts": {"pages": {"read": 5, "malformed_lines": 1}}}
    body = check_body(index_card, manifest, stats)
    assert index_card.info.summary in body and "not a benchmark" in body
    assert "| pages indexed | 4 |" in body and "| malformed dump lines | 1 |" in body
    assert "--search local --index-dir" in body and "saved pages" in body


def test_a_refresh_says_the_whole_index_was_recomputed_and_why():
    manifest = {"dataset": "search_en", "version": HOSTILE, "rows_per_split": {"docs": 4},
                "options": {"lang": "en"}, "source": {"kind": "pages", "description": ""}}
    stats = {"counts": {"pages": {"read": 4}},
             "refresh": {"previous": {"dataset": "search_en", "version": HOSTILE,
                                      "fingerprint": "0" * 16}, "recompute_all": True}}
    body = check_body(index_card, manifest, stats)
    assert "Refresh: built on version 1.0.0 \\<script\\>" in body
    assert "A BM25 index is global" in body and "<script>" not in body
    assert "Refresh:" not in check_body(index_card, manifest, {"counts": stats["counts"]})
