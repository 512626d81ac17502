"""The ReQA card: the ReQA paper plus the source's paper and licence, and the retrieval body."""

from __future__ import annotations

import pytest

from tests.transforms.nq.card_checks import HOSTILE, SECRET_PATH, check_body, check_card_info
from transforms.reqa.card import reqa_card, reqa_card_for
from transforms.reqa.schema import RELEASE_SCHEMA

STATS = {"questions": 3, "candidates": 7, "paragraphs": 2,
         "examples": {"read": 5, "kept": 4, "dropped": 1, "malformed": 0},
         "drop_reasons": {"answer_offset_mismatch": 1},
         "lengths": {"sentence_words": {"count": 7, "mean": 12.5, "median": 12, "min": 4,
                                        "max": 20}},
         "counts": {"answers": {"cross_sentence_boundary": 1}},
         "baselines": {"split": "all", "n": 3, "metrics": ["sentence_mrr"], "note": "",
                       "rows": [{"name": "BM25 over sentences", "sentence_mrr": 0.75}]}}


def _manifest(source, input_path=None, split="all"):
    return {"dataset": f"reqa_{source}", "version": HOSTILE,
            "rows_per_split": {"questions": 3, "candidates": 7},
            "options": {"source": source, "input": input_path},
            "source": {"kind": source, "split": split, "pattern": input_path or SECRET_PATH,
                       "description": f"somewhere ({input_path or SECRET_PATH})"}}


def test_the_generic_card_names_every_source_licence_and_paper():
    keys = [entry["key"] for entry in check_card_info(reqa_card.info, RELEASE_SCHEMA)]
    assert keys == ["ahmad-etal-2019-reqa", "rajpurkar-etal-2016-squad",
                    "kwiatkowski-etal-2019-natural", "soleimani-etal-2021-nlquad"]
    for licence in ("CC BY-SA 4.0", "CC BY-SA 3.0", "BBC"):
        assert licence in reqa_card.info.license_text


@pytest.mark.parametrize("source, licence, origin, key", [
    ("squad", "cc-by-sa-4.0", "extended|squad", "rajpurkar-etal-2016-squad"),
    ("nq", "cc-by-sa-3.0", "extended|natural_questions", "kwiatkowski-etal-2019-natural"),
    ("nlquad", "other", "original", "soleimani-etal-2021-nlquad"),
])
def test_each_source_has_its_own_licence_and_citation(source, licence, origin, key):
    info = reqa_card_for(source).info
    ahmad, cited = check_card_info(info)
    assert (info.license, info.source_datasets) == (licence, (origin,))
    assert (ahmad["pages"], ahmad["booktitle"], cited["key"]) == (
        "137--146", "Proceedings of the 2nd Workshop on Machine Reading for Question Answering",
        key)


def test_the_body_says_what_reqa_is_and_keeps_counts_and_baselines():
    body = check_body(reqa_card, _manifest("squad"), STATS)
    assert reqa_card.info.summary in body
    assert "| dropped, answer_offset_mismatch | 1 |" in body
    assert "| answers crossing a sentence boundary | 1 |" in body
    assert "Words per sentence: mean 12.5, median 12, min 4, max 20." in body
    assert "| BM25 over sentences | 0.750 |" in body
    assert "the bundled sample" in body and "87,599 questions" in body


def test_an_input_is_named_without_its_path():
    body = check_body(reqa_card_for("nq"), _manifest("nq", f"{SECRET_PATH}/nq", "dev"), STATS)
    assert "the input files, split dev" in body


@pytest.mark.parametrize("recompute_all, text", [
    (False, "The sentences of 2 paragraphs it already indexed were reused, not split again; "
            "every example was read and labeled again, and each row whose values did not "
            "change (9 rows) was carried"),
    (True, "with `--recompute-all`: every paragraph was split again"),
])
def test_a_refresh_says_what_was_reused_and_carried(recompute_all, text):
    previous = {"dataset": "reqa_squad", "version": HOSTILE, "fingerprint": "0" * 16}
    stats = {**STATS, "refresh": {"previous": previous, "recompute_all": recompute_all,
                                  "carried": 9, "inputs_carried": 2}}
    body = check_body(reqa_card, _manifest("squad"), stats)
    assert "Refresh: built on reqa\\_squad 1.0.0 \\<script\\>" in body and text in body
    assert "Refresh:" not in check_body(reqa_card, _manifest("squad"), STATS)
