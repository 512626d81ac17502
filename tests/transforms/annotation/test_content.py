"""The annotated-content digest: what a worker saw, part by part (``content.py``)."""

from __future__ import annotations

import copy

import pytest

from tests.transforms.annotation.label_studio.fixtures import jnq_row, nq_example
from transforms.annotation.content import UNKNOWN, changed_part, content_digest
from transforms.annotation.previous_items import invalidation


def _changed(base: str, example: dict, change) -> str | None:
    edited = copy.deepcopy(example)
    change(edited)
    return changed_part(base, content_digest(base, example), content_digest(base, edited))


@pytest.mark.parametrize("change, reason", [
    (lambda e: e.update(question_text=e["question_text"] + "?"), "question_changed"),
    (lambda e: e.update(document_title="Trade wind"), "document_changed"),
    (lambda e: e.update(document_url=e["document_url"].replace("oldid=1", "oldid=2")),
     "document_changed"),
    (lambda e: e["document_tokens"][3].update(token="west"), "document_changed"),
    (lambda e: e.update(document_html=e["document_html"] + " "), "document_changed"),
    (lambda e: e["long_answer_candidates"][0].update(top_level=False), "candidates_changed"),
    (lambda e: e["long_answer_candidates"].pop(), "candidates_changed"),
    (lambda e: e.update(annotations=[{"x": 1}], question_tokens=["other"]), None),
])
def test_nq_parts(change, reason):
    assert _changed("nq", nq_example(), change) == reason


@pytest.mark.parametrize("base", ["jnq", "jboolq"])
@pytest.mark.parametrize("change, reason", [
    (lambda r: r.update(question=r["question"] + "か"), "question_changed"),
    (lambda r: r.update(document_title="風"), "document_changed"),
    (lambda r: r.update(revision=2), "document_changed"),
    (lambda r: r["paragraphs"][3].update(text="変わった。"), "paragraphs_changed"),
    (lambda r: r.update(candidate_paragraph_ids=[0, 3, 1, 5, 4]), "paragraphs_changed"),
    (lambda r: r["paragraphs"][4].update(text="候補でない段落。"), None),  # not a candidate
    (lambda r: r.update(snippet="x", candidate_scores=[0.0] * 5, search_rank=3), None),
])
def test_jnq_parts(base, change, reason):
    assert _changed(base, jnq_row(), change) == reason


def test_a_digest_depends_on_content_not_on_key_order():
    example = nq_example()
    reordered = dict(reversed(list(example.items())))
    assert content_digest("nq", reordered) == content_digest("nq", example)
    assert set(content_digest("nq", example)) == {"question", "document", "candidates"}
    assert all(len(d) == 16 for d in content_digest("jnq", jnq_row()).values())


@pytest.mark.parametrize("old", [None, "abc", {}, {"question": "x"},
                                 {"question": 1, "document": "y", "paragraphs": "z"}])
def test_an_unrecorded_content_cannot_be_carried(old):
    assert changed_part("jnq", old, content_digest("jnq", jnq_row())) == UNKNOWN


def test_a_moved_example_is_split_changed_unless_its_content_changed_too():
    row = jnq_row()
    digest = content_digest("jnq", row)
    assert invalidation("jnq", "train", digest, "train", digest) is None
    assert invalidation("jnq", "train", digest, "dev", digest) == "split_changed"
    edited = content_digest("jnq", {**row, "question": "別の質問"})
    assert invalidation("jnq", "train", digest, "dev", edited) == "question_changed"
