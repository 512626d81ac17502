"""The category lexicon card: what the lexicon is for, Hearst's and NQ's citations."""

from __future__ import annotations

from tests.transforms.nq.card_checks import HOSTILE, SECRET_PATH, check_body, check_card_info
from transforms.categories.card import categories_card
from transforms.categories.stages import LEXICON_SCHEMA


def test_the_card_cites_hearst_and_natural_questions():
    hearst, nq = check_card_info(categories_card.info, LEXICON_SCHEMA)
    assert (hearst["key"], hearst["year"], hearst["url"]) == (
        "hearst-1992-automatic", "1992", "https://aclanthology.org/C92-2082")
    assert nq["key"] == "kwiatkowski-etal-2019-natural"


def test_the_body_says_what_the_lexicon_is_without_corpus_paths():
    manifest = {"dataset": "categories", "version": HOSTILE, "rows_per_split": {"lexicon": 9},
                "options": {"input": [f"{SECRET_PATH}/a.txt"]},
                "source": {"kind": "corpus", "description": f"{SECRET_PATH}/a.txt"}}
    stats = {"counts": {"corpus": {"files": 1, "paragraphs": 12},
                        "hearst": {"pattern.such_as": 7, "pattern.including": 2}}}
    body = check_body(categories_card, manifest, stats)
    assert categories_card.info.summary in body and "Not a QA dataset" in body
    assert "1 files, 12 paragraphs" in body and "Lexicon entries: 9" in body
    assert "| such_as | 7 |" in body and "--categories" in body


def test_a_refresh_says_every_row_was_recomputed_and_why():
    manifest = {"dataset": "categories", "version": HOSTILE, "rows_per_split": {"lexicon": 9},
                "options": {}, "source": {"kind": "corpus", "description": ""}}
    stats = {"counts": {"corpus": {"files": 1, "paragraphs": 12}},
             "refresh": {"previous": {"dataset": "categories", "version": HOSTILE,
                                      "fingerprint": "0" * 16}, "recompute_all": True}}
    body = check_body(categories_card, manifest, stats)
    assert "Refresh: built on version 1.0.0 \\<script\\>" in body
    assert "no row can be carried" in body and "<script>" not in body
    assert "Refresh:" not in check_body(categories_card, manifest, {"counts": stats["counts"]})
