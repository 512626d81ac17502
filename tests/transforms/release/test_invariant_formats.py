"""Two formats of the same rows agree (``transforms.release.invariant_formats``): NQ's HF
Parquet row and its simplified row (made from the ``nq_original`` line) must hold the same
id, split, question, document, candidates and annotations (issue 35, B5)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from transforms.core.spec import TableInvariants
from transforms.nq.examples import HF_SCHEMA, hf_example
from transforms.nq.simplified import SIMPLIFIED_SCHEMA, simplify_example
from transforms.release.invariant_formats import list_digest, nq_formats, text_digests
from transforms.release.invariants import FORMATS_DISAGREE, check_invariants

FORMATS = (TableInvariants(agrees_with=(nq_formats(),)),)
WORDS = ["<P>", "The", "river", "starts", "in", "the", "Andes", "</P>", "<P>", "It", "ends",
         "in", "the", "sea", "</P>"]


def original(example_id: int, question: str) -> dict:
    """An annotated NQ original-format example: two candidate paragraphs, the long answer
    the first, a short answer ``Andes``."""
    tokens, offset = [], 0
    for word in WORDS:
        tokens.append({"token": word, "start_byte": offset, "end_byte": offset + len(word),
                       "html_token": word.startswith("<")})
        offset += len(word) + 1
    candidates = [{"start_token": s, "end_token": e, "start_byte": tokens[s]["start_byte"],
                   "end_byte": tokens[e - 1]["end_byte"], "top_level": True}
                  for s, e in ((0, 8), (8, 15))]
    return {
        "example_id": example_id, "question_text": question,
        "question_tokens": question.split(), "document_url": "https://en.wikipedia.org/x",
        "document_title": "x", "document_html": " ".join(WORDS), "document_tokens": tokens,
        "long_answer_candidates": candidates,
        "annotations": [{
            "annotation_id": 7000 + example_id,
            "long_answer": {**candidates[0], "candidate_index": 0},
            "short_answers": [{"start_token": 6, "end_token": 7,
                               "start_byte": tokens[6]["start_byte"],
                               "end_byte": tokens[6]["end_byte"]}],
            "yes_no_answer": "NONE"}],
    }


EXAMPLES = [original(1, "where does the river start"), original(2, "where does it end"),
            original(3, "is the andes a river")]


def stage(root: Path, hf: dict[str, list[dict]], simplified: dict[str, list[dict]]) -> str:
    for split, rows in hf.items():
        (root / split).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist([hf_example(r) for r in rows], schema=HF_SCHEMA),
                       root / split / f"{split}-00000-of-00001.parquet")
    for split, rows in simplified.items():
        (root / "simplified" / split).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist([simplify_example(r) for r in rows],
                                            schema=SIMPLIFIED_SCHEMA),
                       root / "simplified" / split / f"simplified-nq-{split}-00.parquet")
    return str(root)


def _long_answer_moved(example: dict) -> None:
    example["annotations"][0]["long_answer"] = {
        **example["long_answer_candidates"][1], "candidate_index": 1}


def _set(path: str, value) -> Callable[[dict], None]:
    def edit(example: dict) -> None:
        *parents, last = path.split("/")
        target = example
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[last] = value
    return edit


EDITS = {  # the original line edited -> the field that must be named
    "long answer moved to another candidate": (_long_answer_moved, "annotations"),
    "short answer end": (_set("annotations/0/short_answers/0/end_token", 7 + 1),
                         "annotations"),
    "short answer removed": (_set("annotations/0/short_answers", []), "annotations"),
    "yes/no flipped": (_set("annotations/0/yes_no_answer", "YES"), "annotations"),
    "annotation id": (_set("annotations/0/annotation_id", 1), "annotations"),
    "annotation added": (lambda ex: ex["annotations"].append(
        copy.deepcopy(ex["annotations"][0])), "annotations"),
    "candidate top_level": (_set("long_answer_candidates/1/top_level", False),
                            "long_answer_candidates"),
    "candidate start": (_set("long_answer_candidates/1/start_token", 9),
                        "long_answer_candidates"),
    "question": (_set("question_text", "where does the river end"), "question"),
    "document token": (_set("document_tokens/6/token", "Alps"), "document"),
}


def test_agreeing_formats_pass(tmp_path):
    root = stage(tmp_path, {"train": EXAMPLES[:2], "dev": EXAMPLES[2:]},
                 {"train": EXAMPLES[:2], "dev": EXAMPLES[2:]})
    assert check_invariants(root, FORMATS) == []


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_edited_original_line_is_named_with_the_field(tmp_path, edit):
    change, field = EDITS[edit]
    edited = copy.deepcopy(EXAMPLES)
    change(edited[1])
    root = stage(tmp_path, {"train": EXAMPLES}, {"train": edited})
    (violation,) = check_invariants(root, FORMATS)
    assert violation.reason == FORMATS_DISAGREE and violation.count == 1
    assert violation.examples == [f"train: 2 ({field} differ)"]


def test_an_example_in_another_split_or_in_one_format_only_is_named(tmp_path):
    root = stage(tmp_path, {"train": EXAMPLES[:2], "dev": EXAMPLES[2:]},
                 {"train": [EXAMPLES[0], EXAMPLES[2]], "dev": [original(4, "a new one")]})
    (violation,) = check_invariants(root, FORMATS)
    assert violation.count == 3
    assert violation.examples == [
        "dev: 3 (split differ)", "simplified/dev: 4 (in the other format only)",
        "train: 2 (no row in the other format)"]


def test_digests_do_not_depend_on_slices_or_list_boundaries():
    words = pa.array([["a", "b"], ["c"], [], None, ["a", "b"]])
    digests = list_digest(words)
    assert digests[0] == digests[4] and digests[2] == digests[3]  # a null list: empty
    assert len(set(digests[:3].tolist())) == 3
    assert (list_digest(words.slice(1)) == digests[1:]).all()
    assert list_digest(pa.array([["ab"], ["a", "b"]]))[0] != list_digest(
        pa.array([["ab"], ["a", "b"]]))[1]
    texts = pa.array(["one", "two", None, "one"])
    assert (text_digests(texts.slice(1)) == text_digests(texts)[1:]).all()
    assert text_digests(texts)[0] == text_digests(texts)[3]
    assert text_digests(pa.array(["one"], pa.large_string()))[0] == text_digests(texts)[0]
    assert np.unique(text_digests(texts)).size == 3


def test_an_id_in_two_rows_agrees_only_when_both_formats_hold_the_same_rows(tmp_path):
    twice = [EXAMPLES[0], EXAMPLES[0], EXAMPLES[1]]
    assert check_invariants(stage(tmp_path / "same", {"train": twice}, {"train": twice}),
                            FORMATS) == []
    edited = copy.deepcopy(twice)
    _long_answer_moved(edited[1])
    (violation,) = check_invariants(stage(tmp_path / "edited", {"train": twice},
                                          {"train": edited}), FORMATS)
    assert violation.examples == ["train: 1 (rows differ)"]


def test_a_missing_format_names_every_example(tmp_path):
    (violation,) = check_invariants(stage(tmp_path, {"train": EXAMPLES}, {}), FORMATS)
    assert violation.count == 3 and violation.examples[0] == (
        "train: 1 (no row in the other format)")
