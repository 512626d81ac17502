"""The JNQ and JBoolQ cards: one paper, two task descriptions, one body for both variants."""

from __future__ import annotations

import pytest

from tests.transforms.nq.card_checks import HOSTILE, SECRET_PATH, check_body, check_card_info
from transforms.jnq.card import jboolq_card, jnq_card, jnq_card_for
from transforms.jnq.schema import EXAMPLE_SCHEMA

STATS = {"counts": {"queries": {"distinct": 9, "accepted": 4, "rejected.contains_space": 5},
                    "patterns": {"p1": 3, "p3": 1}},
         "baselines": {"split": "dev", "n": 0, "metrics": ["f1"], "rows": [],
                       "note": "Not annotated."}}


def _manifest(dataset, variant, rows):
    return {"dataset": dataset, "version": HOSTILE, "rows_per_split": rows,
            "source": {"kind": "query_log", "description": f"query logs matching {SECRET_PATH}"},
            "options": {"variant": variant, "min_users": 1, "window": 7,
                        "input": f"{SECRET_PATH}/log.tsv"}}


@pytest.mark.parametrize("variant, card", [("jnq", jnq_card), ("jboolq", jboolq_card)])
def test_each_variant_has_its_card_citing_the_jnq_paper(variant, card):
    assert jnq_card_for(variant) is card
    [entry] = check_card_info(card.info, EXAMPLE_SCHEMA)
    assert entry["key"] == "uematsu-etal-2024-benchmark" and entry["year"] == "2024"
    assert "Uematsu, Takuya" in entry["author"] and "*SEM 2024" in entry["booktitle"]
    assert card.info.language == ("ja",)


def test_jboolq_is_yes_no_classification_as_well_as_qa():
    assert "text-classification" in jboolq_card.info.task_categories
    assert "text-classification" not in jnq_card.info.task_categories
    assert "yes/no" in jboolq_card.info.summary


@pytest.mark.parametrize("variant", ["jnq", "jboolq"])
def test_the_body_keeps_rejections_patterns_and_splits(variant):
    body = check_body(jnq_card, _manifest(variant, variant, {"train": 3, "dev": 1}), STATS)
    assert jnq_card_for(variant).info.summary in body
    assert "| rejected, contains_space | 5 |" in body and "| pattern 3 matched | 1 |" in body
    assert "| examples in dev | 1 |" in body and "Long-answer candidates" in body
    assert ("か" in body) == (variant == "jboolq")


def test_a_questions_only_release_says_it_has_no_pages():
    body = check_body(jnq_card, _manifest("jnq_questions", "jnq", {"questions": 4}), STATS)
    assert "--stop-after questions" in body and "Long-answer candidates" not in body


def test_the_examples_card_names_the_backend_and_pages_used():
    """Issue 27 §4: the card names the search backend and pages; the bundled sample index is
    not called Wikipedia (question releases search nothing and say nothing of it)."""
    from transforms.nq.backend_labels import ON_PURPOSE, SAMPLE_PAGES
    from transforms.release import md_text

    source = {"kind": "query_log", "description": "query logs", "lang": "ja",
              "search_backend": "mediawiki (https://ja.wikipedia.org/w/api.php)",
              "pages_backend": "rest (https://ja.wikipedia.org/api/rest_v1)"}
    manifest = {**_manifest("jnq", "jnq", {"train": 3}), "source": source}
    body = check_body(jnq_card, manifest, STATS)
    assert (f"Search: {md_text(source['search_backend'])}; pages: "
            f"{md_text(source['pages_backend'])}; language: ja.") in body
    assert jnq_card.info_for(manifest).license_text == jnq_card.info.license_text
    bundled = {**manifest, "source": {**source, "bundled_sample_index": True,
                                      "sample_input": False}}
    body = check_body(jboolq_card, bundled, STATS)
    assert ON_PURPOSE in body and SAMPLE_PAGES in body
    info = jboolq_card.info_for(bundled)
    check_card_info(info)
    assert "Japanese Wikipedia" not in info.license_text
    questions = {**_manifest("jnq_questions", "jnq", {"questions": 4}), "source": source}
    assert "Search:" not in check_body(jnq_card, questions, STATS)
