"""The invariants a release is checked against before it is published
(``transforms.release.invariants``): one test per invariant on small staged tables, the hash
of keys, and every bundled sample release holding its own declared invariants."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.cli.entry import exit_code
from transforms import registry
from transforms.core.spec import TableInvariants
from transforms.release import invariants as module
from transforms.release.features import with_class_labels, with_hf_features
from transforms.release.invariant_spans import (
    char_span,
    nq_annotations,
    paragraph_spans,
    squad_answers,
    word_span,
)
from transforms.release.invariants import (
    DANGLING_REFERENCE,
    DUPLICATE_ID,
    GROUP_IN_SPLITS,
    LABEL_OUT_OF_RANGE,
    MISSING_ID,
    SPAN_MISMATCH,
    ReleaseInvariantError,
    check_invariants,
    key_hashes,
    require_invariants,
)

CONTEXT = "Why now? Because the rules changed. Nobody saw it coming."


def qa(row_id: str, document: str, start: int = 9, end: int = 35, **extra) -> dict:
    """An NLQuAD-like row whose answer is ``CONTEXT[start:end]``."""
    answer = CONTEXT[start:end]
    return {"id": row_id, "document_id": document, "context": CONTEXT, "answer_text": answer,
            "answer_start": start, "answer_end": end,
            "answer_word_start": len(CONTEXT[:start].split()),
            "answer_word_end": len(CONTEXT[:start].split()) + len(answer.split()),
            "answers": {"text": [answer], "answer_start": [start]}, **extra}


def stage(root: Path, tables: dict[str, list[dict]], schema: pa.Schema | None = None,
          row_group_size: int | None = None) -> str:
    """Write ``{table: rows}`` as ``<table>/part-0.parquet`` under ``root``."""
    for table, rows in tables.items():
        directory = root / table
        directory.mkdir(parents=True)
        data = (pa.Table.from_pylist(rows, schema=schema) if schema is not None
                else pa.Table.from_pylist(rows))
        pq.write_table(data, directory / "part-0.parquet", row_group_size=row_group_size)
    return str(root)


def reasons(violations) -> list[str]:
    return [v.reason for v in violations]


NLQUAD_LIKE = (TableInvariants(id_column="id", group_key="document_id", spans=(
    char_span("context", "answer_start", "answer_end", "answer_text"),
    word_span("context", "answer_start", "answer_word_start", "answer_word_end",
              "answer_text"),
    squad_answers("context", "answers"))),)


def test_a_release_keeping_every_invariant_passes(tmp_path):
    root = stage(tmp_path, {"train": [qa("a-q1", "a"), qa("a-q2", "a", 0, 8)],
                            "test": [qa("b-q1", "b", 36, 57)]})
    assert check_invariants(root, NLQUAD_LIKE) == []
    require_invariants(root, NLQUAD_LIKE, "toy 1")


# duplicate ids -----------------------------------------------------------------------------

def test_an_id_in_two_rows_is_named_across_splits_and_within_one(tmp_path):
    root = stage(tmp_path, {"train": [qa("a-q1", "a"), qa("a-q1", "a"), qa("a-q2", "a")],
                            "test": [qa("b-q1", "b"), qa("a-q2", "b")]})
    (violation,) = check_invariants(root, (TableInvariants(id_column="id"),))
    assert violation.reason == DUPLICATE_ID and violation.count == 2
    assert violation.examples == ["'a-q1' in 2 rows (train, train)",
                                  "'a-q2' in 2 rows (test, train)"]


def test_a_row_without_an_id_is_named_by_its_position(tmp_path):
    root = stage(tmp_path, {"train": [qa("a-q1", "a"), qa(None, "a")]})
    (violation,) = check_invariants(root, (TableInvariants(id_column="id"),))
    assert (violation.reason, violation.count, violation.examples) == (
        MISSING_ID, 1, ["train: row 1"])


def test_a_blank_id_is_missing(tmp_path):
    root = stage(tmp_path, {"train": [qa("a-q1", "a"), qa("", "a"), qa("a-q2", "a"),
                                      qa(" \t", "a")]})
    found = check_invariants(root, (TableInvariants(id_column="id"),))
    (violation,) = [v for v in found if v.reason == MISSING_ID]
    assert (violation.count, violation.examples) == (2, ["train: row 1", "train: row 3"])


def test_a_hash_collision_is_not_a_duplicate(tmp_path, monkeypatch):
    """Every value hashing alike only makes candidates: they are compared exactly."""
    monkeypatch.setattr(module, "key_hashes", lambda array: np.zeros(len(array), np.uint64))
    root = stage(tmp_path, {"train": [qa("a-q1", "a"), qa("a-q2", "a")],
                            "test": [qa("b-q1", "b")]})
    assert check_invariants(root, NLQUAD_LIKE) == []


def test_ids_are_checked_over_the_tables_a_declaration_names(tmp_path):
    root = stage(tmp_path, {"train": [qa("x", "a")], "squad_v2/train": [qa("x", "a")],
                            "squad_v2/test": [qa("x", "b")]})
    declared = (TableInvariants(id_column="id"), TableInvariants("squad_v2/{split}",
                                                                 id_column="id"))
    (violation,) = check_invariants(root, declared)
    assert violation.examples == ["'x' in 2 rows (squad_v2/test, squad_v2/train)"]


# one group, one split ----------------------------------------------------------------------

def test_a_document_in_two_splits_names_it_with_its_rows(tmp_path):
    root = stage(tmp_path, {"train": [qa("a-q1", "a"), qa("a-q2", "a"), qa("c-q1", "c")],
                            "dev": [qa("c-q2", "c")],
                            "test": [qa("a-q3", "a"), qa("b-q1", "b")]})
    (violation,) = check_invariants(root, (TableInvariants(id_column="id",
                                                           group_key="document_id"),))
    assert violation.reason == GROUP_IN_SPLITS and violation.count == 2
    assert violation.examples == ["'a' in test (a-q3), train (a-q1, a-q2)",
                                  "'c' in dev (c-q2), train (c-q1)"]


def test_a_nested_group_key_without_ids_names_rows_by_position(tmp_path):
    rows = [{"id": "1", "question": {"text": "who"}}, {"id": "2", "question": {"text": "why"}}]
    root = stage(tmp_path, {"train": rows[:1], "test": rows[1:] + [
        {"id": "3", "question": {"text": "who"}}], "simplified/train": rows[1:]})
    (violation,) = check_invariants(root, (TableInvariants(group_key="question.text"),))
    assert violation.examples == ["'who' in test (row 1), train (row 0)"]


# answer spans ------------------------------------------------------------------------------

def test_an_answer_that_no_longer_matches_its_context_is_named(tmp_path):
    edited = qa("a-q2", "a")
    edited["answer_text"] += " (edited)"
    shifted = qa("a-q3", "a")
    shifted["answers"] = {"text": [shifted["answer_text"]], "answer_start": [10]}
    words = qa("a-q4", "a")
    words["answer_word_start"] += 1
    outside = qa("a-q5", "a", 40, 500)
    root = stage(tmp_path, {"train": [qa("a-q1", "a"), edited, shifted, words, outside]})
    found = {v.what: v for v in check_invariants(root, NLQUAD_LIKE)}
    assert reasons(found.values()) == [SPAN_MISMATCH] * 3
    assert found["rows where not context[answer_start:answer_end] == answer_text"
                 ].examples == ["train: a-q2", "train: a-q5"]  # a-q5 ends past its context
    assert found["rows where not context.split()[answer_word_start:answer_word_end] are the "
                 "words of answer_text"].examples == ["train: a-q2", "train: a-q4"]
    assert found["rows where not context[s:s+len(t)] == t for each t, s of answers"
                 ].examples == ["train: a-q3"]


def nq_row(row_id: str, short: tuple[int, int], text: str, candidate: int = 0,
           annotated: bool = True) -> dict:
    """An NQ example (HF layout) of five tokens, one candidate, one annotation."""
    tokens = ["<P>", "Paris", "is", "big", "</P>"]
    starts = [0, 3, 9, 12, 15]
    ends = [3, 8, 11, 15, 19]
    s, e = short
    annotation = {
        "id": ["7"],
        "long_answer": [{"start_token": 0, "end_token": 5, "start_byte": 0, "end_byte": 19,
                         "candidate_index": candidate}],
        "short_answers": [{"start_token": [s], "end_token": [e], "start_byte": [starts[s]],
                           "end_byte": [ends[min(e, 5) - 1]], "text": [text]}],
        "yes_no_answer": [-1]}
    empty = {"id": [], "long_answer": [], "short_answers": [], "yes_no_answer": []}
    return {"id": row_id,
            "document": {"title": "Paris", "url": "u", "html": "<P>Paris is big</P>",
                         "tokens": {"token": tokens, "is_html": [True, False, False, False,
                                                                 True],
                                    "start_byte": starts, "end_byte": ends}},
            "question": {"text": f"question {row_id}", "tokens": []},
            "long_answer_candidates": {"start_token": [0], "end_token": [5],
                                       "start_byte": [0], "end_byte": [19],
                                       "top_level": [True]},
            "annotations": annotation if annotated else empty}


def test_nq_token_offsets_are_checked_in_annotated_rows_only(tmp_path):
    """Two row groups: the rows are named by id whichever group they are in, and a row
    without annotations is not read in full."""
    rows = [nq_row("1", (1, 2), "Paris"), nq_row("2", (1, 3), "Paris is"),
            nq_row("3", (1, 3), "Paris is big"), nq_row("4", (0, 0), "", annotated=False),
            nq_row("5", (1, 2), "Paris", candidate=3), nq_row("6", (3, 9), "big")]
    rows[3]["document"]["tokens"]["is_html"] = []  # read, this row would break the check
    root = stage(tmp_path, {"train": rows}, row_group_size=3)
    declared = (TableInvariants(id_column="id", spans=(nq_annotations(),)),)
    (violation,) = check_invariants(root, declared)
    assert violation.reason == SPAN_MISMATCH
    assert violation.examples == ["train: 3", "train: 5", "train: 6"]


def test_jnq_span_text_is_its_paragraphs_slice(tmp_path):
    def row(row_id: str, span_text: str, paragraph: int = 2) -> dict:
        return {"id": row_id, "paragraphs": [{"id": 1, "text": "一つ目"},
                                             {"id": 2, "text": "富士山は高い"}],
                "annotations": [{"paragraph_id": paragraph, "short_answer_type": 1,
                                 "span_start": 0, "span_end": 3, "span_text": span_text}]}
    root = stage(tmp_path, {"train": [row("a", "富士山"), row("b", "富士"),
                                      row("c", "富士山", paragraph=9)]})
    declared = (TableInvariants(id_column="id", spans=(paragraph_spans(1),)),)
    (violation,) = check_invariants(root, declared)
    assert violation.examples == ["train: b", "train: c"]


def test_rows_of_one_jnq_variant_relabelled_as_the_other_are_named(tmp_path):
    """A re-sealed JNQ release whose ``variant`` column says jboolq: JNQ §3.1 rows record the
    pattern they were kept for, JBoolQ §4 rows none (27 such rows were carried)."""
    from transforms.release.invariant_spans import SELECTION_MISMATCH, variant_selection

    rows = [{"id": "a", "variant": 0, "patterns": [1]}, {"id": "b", "variant": 1, "patterns": []},
            {"id": "c", "variant": 1, "patterns": [1, 3]}, {"id": "d", "variant": 0,
                                                            "patterns": []}]
    root = stage(tmp_path, {"train": rows})
    declared = (TableInvariants(id_column="id", spans=(variant_selection(),)),)
    (violation,) = check_invariants(root, declared)
    assert (violation.reason, violation.count, violation.examples) == (
        SELECTION_MISMATCH, 2, ["train: c", "train: d"])


# references --------------------------------------------------------------------------------

def test_a_correct_candidate_no_candidate_row_has_is_named(tmp_path):
    root = stage(tmp_path, {
        "questions": [{"qid": "q1", "correct_candidate_ids": ["c1", "c2"]},
                      {"qid": "q2", "correct_candidate_ids": ["c2", "c9"]},
                      {"qid": "q3", "correct_candidate_ids": []}],
        "candidates": [{"candidate_id": "c1"}, {"candidate_id": "c2"}]})
    declared = (TableInvariants("questions", id_column="qid", references=(
        ("correct_candidate_ids", "candidates", "candidate_id"),)),)
    (violation,) = check_invariants(root, declared)
    assert (violation.reason, violation.count, violation.examples) == (
        DANGLING_REFERENCE, 1, ["questions: q2"])


# class labels ------------------------------------------------------------------------------

def test_a_class_label_out_of_range_is_named_in_any_table(tmp_path):
    """No declaration needed: the footer names the class labels, top level or nested in a
    list of structs; -1 (no label) is in range, as in ``datasets``."""
    schema = with_hf_features(with_class_labels(pa.schema([
        pa.field("id", pa.string()), pa.field("answer", pa.int64()),
        pa.field("annotations", pa.list_(pa.struct([pa.field("label", pa.int64())])))]),
        {"answer": ("NO", "YES"), "annotations.label": ("EXIST", "AMBIGUOUS", "NONE")},
        {"answer": "NONE"}))
    rows = [{"id": "ok", "answer": -1, "annotations": [{"label": 2}]},
            {"id": "high", "answer": 2, "annotations": []},
            {"id": "nested", "answer": 1, "annotations": [{"label": 0}, {"label": 3}]},
            {"id": "low", "answer": -2, "annotations": [{"label": -5}]}]
    root = stage(tmp_path, {"boolq/train": rows}, schema=schema)
    found = {v.what: v for v in check_invariants(root, ())}
    assert reasons(found.values()) == [LABEL_OUT_OF_RANGE] * 2
    assert found["rows with answer outside -1..1"].examples == [
        "boolq/train: high", "boolq/train: low"]
    assert found["rows with annotations.label outside -1..2"].examples == [
        "boolq/train: nested", "boolq/train: low"]


# the error ---------------------------------------------------------------------------------

def test_the_error_names_the_rows_and_their_count_and_exits_5(tmp_path):
    rows = [qa(f"a-q{i}", "a") for i in range(8)]
    for row in rows:
        row["answer_start"] += 1
    root = stage(tmp_path, {"train": rows})
    with pytest.raises(ReleaseInvariantError) as raised:
        require_invariants(root, NLQUAD_LIKE[:1], "nlquad 2")
    message = str(raised.value)
    assert message.startswith("release nlquad 2 breaks its invariants, so nothing was "
                              "published: answer_span_mismatch: rows where not context[")
    assert ": 8 (train: a-q0; train: a-q1; train: a-q2; train: a-q3; train: a-q4; and 3 " \
           "more)" in message
    assert "--previous" not in message  # nothing was carried: no refresh advice
    assert exit_code(raised.value) == 5
    with pytest.raises(ReleaseInvariantError, match="build without --previous, or with "
                                                    "--recompute-all"):
        require_invariants(root, NLQUAD_LIKE[:1], "nlquad 2", carried=True)


# hashing keys ------------------------------------------------------------------------------

def test_key_hashes_are_equal_for_equal_values_in_any_slice_or_type():
    values = ["", "a", "ab", "ba", "富士山", None, "a" * 300]
    array = pa.array(values * 2)
    hashes = key_hashes(array)
    assert (hashes[:7] == hashes[7:]).all()
    assert len(set(hashes[:7].tolist())) == 7
    assert (key_hashes(array.slice(3, 5)) == hashes[3:8]).all()
    assert (key_hashes(pa.array(values, pa.large_string())) == hashes[:7]).all()
    assert (key_hashes(pa.chunked_array([values[:2], values[2:]])) == hashes[:7]).all()
    ints = key_hashes(pa.array([5, 6, None, 5]))
    assert ints[0] == ints[3] and len(set(ints.tolist())) == 3


# the bundled samples -----------------------------------------------------------------------

def test_every_sample_release_holds_its_declared_invariants(sample_releases):
    for dataset, path in sample_releases.items():
        kind = registry.release_kind(dataset)
        assert kind is not None and kind.invariants, dataset
        assert check_invariants(str(path), kind.invariants) == [], dataset
