"""The annotated releases' cards: the base dataset's CardInfo plus the annotation protocol."""

from __future__ import annotations

import pytest

from tests.transforms.nq.card_checks import HOSTILE, SECRET_PATH, check_body, check_card_info
from transforms.annotation.jnq_schema import ANNOTATED_SCHEMA
from transforms.annotation.publish import (
    annotation_card,
    annotation_dataset_card,
    jnq_annotation_figures,
    nq_annotation_figures,
)
from transforms.jnq.card import JBOOLQ_INFO, JNQ_INFO
from transforms.nq.card import NQ_INFO
from transforms.nq.examples import HF_SCHEMA
from transforms.release.citations import NOT_ANNOTATED


def _manifest(dataset):
    return {"dataset": f"{dataset}_annotated", "version": HOSTILE,
            "rows_per_split": {"train": 1, "dev": 1},
            "options": {"votes": [f"{SECRET_PATH}/votes.jsonl"]},
            "source": {"kind": "annotation", "votes": [f"{SECRET_PATH}/votes.jsonl"],
                       "annotates": {"dataset": dataset, "version": "1.0.0",
                                     "fingerprint": "abc123", "path": SECRET_PATH}}}


def _nq_stats():
    votes = [{"example_id": "e1", "annotator_id": f"w{i}", "question_good": True,
              "long_answer_candidate": i % 2, "long_answer_type": "paragraph",
              "short_answers": 0, "yes_no_answer": "NONE"} for i in range(3)]
    return {"counts": {"votes": {"read": 3, "simulated": 3}, "examples": {"annotated": 1}},
            "simulated_votes": 3, **nq_annotation_figures(votes)}


def _jnq_stats():
    votes = [{"question_id": "q1", "annotator_id": f"w{i}", "stage": "long_answer",
              "paragraph": 0, "value": "true"} for i in range(3)]
    rows = [{"id": "q1", "question": "東京は何ですか", "paragraphs": [{"id": 0, "text": "x"}],
             "candidate_paragraph_ids": [0], "is_yes_no_question": False,
             "annotations": [{"paragraph_id": 0, "label": "EXIST", "short_answer_type": "none",
                              "span_text": None}], "gold_paragraph_ids": [0]}]
    return {"counts": {"votes": {"read": 3}}, "simulated_votes": 0,
            **jnq_annotation_figures(votes, rows)}


@pytest.mark.parametrize("base, info, schema", [
    ("nq", NQ_INFO, HF_SCHEMA), ("jnq", JNQ_INFO, ANNOTATED_SCHEMA),
    ("jboolq", JBOOLQ_INFO, ANNOTATED_SCHEMA)])
def test_the_info_is_the_base_datasets_with_the_annotation_protocol(base, info, schema):
    card = annotation_dataset_card(base)
    check_card_info(card.info, schema)
    assert card.info.citation == info.citation and card.info.license == info.license
    assert card.info.annotation and "votes/" in card.info.annotation
    assert NOT_ANNOTATED not in card.info.limitations
    assert any("simulated" in text for text in card.info.limitations)


@pytest.mark.parametrize("base, stats", [("nq", _nq_stats), ("jnq", _jnq_stats)])
def test_the_body_is_annotation_card_with_escaped_text(base, stats):
    manifest, figures = _manifest(base), stats()
    card = annotation_dataset_card(base)
    body = check_body(card, manifest, figures)
    assert body == annotation_card(base, manifest, figures)
    assert ("Simulated annotations" in body) == (base == "nq")
    assert "## Agreement" in body and "abc123" in body
