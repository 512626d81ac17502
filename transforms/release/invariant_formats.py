"""Two formats of the same rows must agree (``TableInvariants.agrees_with``).

NQ publishes each example twice: the HF Parquet row (``<split>/*.parquet``) and the NQ
original-format line (``nq_original/<split>/*.jsonl.gz``), from which the ``simplified/<split>``
Parquet is made while the release is staged (``transforms.nq.simplified``), so the simplified
table says what the original lines hold. A refresh copies a carried example's row and line as
the previous release's bytes: a re-sealed previous release whose line was edited would
publish two formats that disagree, while each table alone keeps its invariants.

A ``FormatAgreement`` names the other format's tables and how each layout gives a row's id
and its fields (``Layout``). Every row is reduced to its id's 64-bit hash and one 64-bit
digest per field of a normalized tuple (ids as decimal strings, yes/no as -1/0/1, lists of
records and records of lists alike), computed with numpy over Arrow's buffers (long texts
with ``blake2b``, row by row over the buffer, without Python strings); the files are read
batch by batch, so memory is 8 bytes per row and field on each side. An id of one format
absent from the other, or a field whose digests differ, is ``formats_disagree``; equal
values always hash equal, so an agreeing release is never reported. Only the rows reported
are read again, for their ids.

``nq_formats`` declares NQ's: id, split, question text, document (URL and tokens as the
simplified ``document_text`` joins them), long-answer candidates (start/end token,
``top_level``) and annotations (ids, long answer start/end token and candidate index, short
answers' start/end tokens, yes/no). Byte offsets and the HTML are not in the simplified
format, so they are not compared.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from transforms.release.invariant_spans import Batch, arrow_column
from transforms.release.invariants import (
    EXAMPLES,
    FORMATS_DISAGREE,
    Violation,
    key_hashes,
    mix64,
    read_batches,
)

FORMAT_BATCH_ROWS = 512  # rows per batch: NQ's document tokens are read whole
_POSITION = np.uint64(0xD6E8FEB86659FD93)
_LENGTH = np.uint64(0x9E3779B97F4A7C15)
_NULL = np.uint64(0xFFFFFFFFFFFFFFFF)
_YES_NO = pa.array(["NONE", "NO", "YES"])  # simplified yes_no_answer -> -1, 0, 1

Fields = dict[str, np.ndarray]  # field name -> a uint64 digest per row


@dataclass(frozen=True)
class Layout:
    """How one format's tables give each row's id (``ids``: a string array) and its
    normalized fields (``fields``: one uint64 digest per row and field, the same field names
    in both layouts), from the dotted ``columns`` it reads."""

    columns: tuple[str, ...]
    ids: Callable[[Batch], pa.Array]
    fields: Callable[[Batch], Fields]


@dataclass(frozen=True)
class FormatAgreement:
    """The rows of the declared tables are published again in ``other`` (a table pattern,
    ``{split}`` as in ``TableInvariants.tables``): ``this`` reads the declared tables,
    ``that`` the other ones. The split of a row (from its table's ``{split}``) is a field."""

    other: str
    this: Layout
    that: Layout

    def check(self, tables: Any, found: dict[str, tuple[str, list[str]]],
              declared: str) -> list[Violation]:
        """The ids whose rows disagree or are in one format only (``formats_disagree``)."""
        other = tables.matching(self.other)
        ours, names = _digests(tables, found, self.this)
        theirs, _ = _digests(tables, other, self.that)
        bad = _differences(ours, theirs, names)
        if not bad:
            return []
        examples = _name(tables, bad, (found, self.this), (other, self.that))
        return [Violation(FORMATS_DISAGREE, f"ids whose row in {declared} and row in "
                                            f"{self.other} differ, or that one lacks",
                          len(bad), examples)]


# Digests -----------------------------------------------------------------------------------

def combine(*parts: np.ndarray) -> np.ndarray:
    """One digest of several per-row digests, in order."""
    digest = np.zeros(len(parts[0]), np.uint64)
    for part in parts:
        digest = mix64(digest * np.uint64(0x100000001B3) + part)
    return digest


def sequence(hashes: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """An order-sensitive digest of each row's run of ``lengths`` element hashes."""
    lengths = lengths.astype(np.int64)
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    positions = (np.arange(len(hashes), dtype=np.int64)
                 - np.repeat(offsets[:-1], lengths)).astype(np.uint64)
    sums = np.zeros(len(hashes) + 1, np.uint64)
    np.cumsum(mix64(hashes ^ mix64(positions + _POSITION)), out=sums[1:])
    return mix64((sums[offsets[1:]] - sums[offsets[:-1]])
                 ^ (lengths.astype(np.uint64) * _LENGTH))


def flat(array: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """A list array's values and each row's length (a null list: none)."""
    lengths = pc.list_value_length(array).fill_null(0).to_numpy(zero_copy_only=False)
    return pc.list_flatten(array), lengths


def list_digest(array: pa.Array,
                element: Callable[[pa.Array], np.ndarray] = key_hashes) -> np.ndarray:
    """The digest of each row's list, its elements hashed by ``element``."""
    values, lengths = flat(array)
    return sequence(element(values), lengths)


def values_hash(array: pa.Array) -> np.ndarray:
    """``key_hashes`` of strings and integers, booleans as 0/1."""
    if pa.types.is_boolean(array.type):
        array = array.cast(pa.int64())
    return key_hashes(array)


def text_digests(array: pa.Array) -> np.ndarray:
    """A 64-bit ``blake2b`` of each value of a long string array, over Arrow's buffer."""
    array = array.cast(pa.large_binary())
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int64)[
        array.offset:array.offset + len(array) + 1].tolist()
    data = memoryview(buffers[2] if buffers[2] is not None else b"")
    digests = np.fromiter((int.from_bytes(hashlib.blake2b(
        data[offsets[i]:offsets[i + 1]], digest_size=8).digest(), "little")
        for i in range(len(array))), dtype=np.uint64, count=len(array))
    if array.null_count:
        digests[array.is_null().to_numpy(zero_copy_only=False)] = _NULL
    return digests


def _digests(tables: Any, found: dict[str, tuple[str, list[str]]], layout: Layout
             ) -> tuple[tuple[np.ndarray, np.ndarray], list[str]]:
    """``(id hashes, fields matrix)`` of every row of ``found``, and the field names."""
    ids, rows, names = [], [], []
    for _table, (split, files) in found.items():
        for _, batch in read_batches(tables.version_dir, files, layout.columns,
                                     FORMAT_BATCH_ROWS):
            fields = layout.fields(batch)
            fields["split"] = np.full(batch.num_rows, key_hashes(pa.array([split]))[0])
            names = sorted(fields)
            ids.append(key_hashes(layout.ids(batch)))
            rows.append(np.stack([fields[name] for name in names], axis=1))
    if not ids:
        return (np.zeros(0, np.uint64), np.zeros((0, 0), np.uint64)), names
    return (np.concatenate(ids), np.concatenate(rows)), names


def _differences(ours: tuple[np.ndarray, np.ndarray], theirs: tuple[np.ndarray, np.ndarray],
                 names: list[str]) -> dict[int, str]:
    """``{id hash: what differs}`` of the ids whose rows differ or are in one side only; an
    id in several rows of a side (a ``duplicate_id``) agrees when both sides hold the same
    rows."""
    (mine, my_rows), (other, other_rows) = ours, theirs
    keep_mine, keep_other = mine != _NULL, other != _NULL
    mine, my_rows, other, other_rows = (mine[keep_mine], my_rows[keep_mine],
                                        other[keep_other], other_rows[keep_other])
    bad: dict[int, str] = {}
    for key in np.unique(mine[~np.isin(mine, other)]).tolist():
        bad[key] = "no row in the other format"
    for key in np.unique(other[~np.isin(other, mine)]).tolist():
        bad[key] = "in the other format only"
    ids, counts = np.unique(mine, return_counts=True)
    other_ids, other_counts = np.unique(other, return_counts=True)
    single = np.intersect1d(ids[counts == 1], other_ids[other_counts == 1])
    if len(single):
        mine_at = np.flatnonzero(np.isin(mine, single))
        other_at = np.flatnonzero(np.isin(other, single))
        mine_at = mine_at[np.argsort(mine[mine_at], kind="stable")]
        other_at = other_at[np.argsort(other[other_at], kind="stable")]
        differ = my_rows[mine_at] != other_rows[other_at]
        for row in np.flatnonzero(differ.any(axis=1)).tolist():
            bad[int(mine[mine_at[row]])] = ", ".join(
                name for name, wrong in zip(names, differ[row], strict=True) if wrong
            ) + " differ"
    repeated = np.intersect1d(np.union1d(ids[counts > 1], other_ids[other_counts > 1]),
                              np.intersect1d(ids, other_ids))
    if len(repeated):
        for key in _unequal_multisets(mine, my_rows, other, other_rows, repeated).tolist():
            bad[key] = "rows differ"
    return bad


def _unequal_multisets(mine: np.ndarray, my_rows: np.ndarray, other: np.ndarray,
                       other_rows: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The ``keys`` (ids in several rows of a side) whose rows differ as multisets."""
    pairs = []
    for ids, rows in ((mine, my_rows), (other, other_rows)):
        picked = np.isin(ids, keys)
        pairs.append((ids[picked], combine(ids[picked], *rows[picked].T)))
    (mine_ids, mine_pairs), (other_ids, other_pairs) = pairs
    mine_unique, mine_counts = np.unique(mine_pairs, return_counts=True)
    other_unique, other_counts = np.unique(other_pairs, return_counts=True)
    common, at_mine, at_other = np.intersect1d(mine_unique, other_unique,
                                               return_indices=True)
    wrong = np.concatenate([np.setxor1d(mine_unique, other_unique),
                            common[mine_counts[at_mine] != other_counts[at_other]]])
    return np.union1d(mine_ids[np.isin(mine_pairs, wrong)],
                      other_ids[np.isin(other_pairs, wrong)])


def _name(tables: Any, bad: dict[int, str],
          *sides: tuple[dict[str, tuple[str, list[str]]], Layout]) -> list[str]:
    """The first ``EXAMPLES`` bad ids, with their table and what differs."""
    wanted = np.array(sorted(bad), dtype=np.uint64)
    named: dict[int, str] = {}
    for found, layout in sides:
        for table, (_, files) in found.items():
            for _, batch in read_batches(tables.version_dir, files, layout.columns[:1]):
                array = layout.ids(batch)
                hashes = key_hashes(array)
                for row in np.flatnonzero(np.isin(hashes, wanted)).tolist():
                    key = int(hashes[row])
                    named.setdefault(key, f"{table}: {array[row].as_py()} ({bad[key]})")
            if len(named) == len(bad):
                break
    return sorted(named.values())[:EXAMPLES]


# NQ ----------------------------------------------------------------------------------------

def _hf_ids(batch: Batch) -> pa.Array:
    return arrow_column(batch, "id")


def _simplified_ids(batch: Batch) -> pa.Array:
    return arrow_column(batch, "example_id").cast(pa.string())


def _long_answers(records: pa.Array) -> np.ndarray:
    return combine(*(values_hash(pc.struct_field(records, key))
                     for key in ("start_token", "end_token", "candidate_index")))


def _short_spans(starts: pa.Array, ends: pa.Array) -> np.ndarray:
    """Per annotation: the digest of its short answers' start tokens, then end tokens."""
    return combine(list_digest(starts), list_digest(ends))


def _relist(lengths: np.ndarray, values: pa.Array) -> pa.Array:
    """``values`` as a list array of runs of ``lengths``."""
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return pa.LargeListArray.from_arrays(pa.array(offsets), values)


def _hf_fields(batch: Batch) -> Fields:
    tokens, lengths = flat(arrow_column(batch, "document.tokens.token"))
    text = pc.binary_join(_relist(lengths, pc.replace_substring(tokens, " ", "_")), " ")
    shorts, counts = flat(arrow_column(batch, "annotations.short_answers"))
    per_annotation = _short_spans(pc.struct_field(shorts, "start_token"),
                                  pc.struct_field(shorts, "end_token"))
    return {
        "question": key_hashes(arrow_column(batch, "question.text")),
        "document": combine(key_hashes(arrow_column(batch, "document.url")),
                            text_digests(text)),
        "long_answer_candidates": combine(*(
            list_digest(arrow_column(batch, f"long_answer_candidates.{key}"), values_hash)
            for key in _CANDIDATE)),
        "annotations": combine(
            list_digest(arrow_column(batch, "annotations.id")),
            list_digest(arrow_column(batch, "annotations.long_answer"), _long_answers),
            sequence(per_annotation, counts),
            list_digest(arrow_column(batch, "annotations.yes_no_answer"))),
    }


def _simplified_fields(batch: Batch) -> Fields:
    candidates, per_row = flat(arrow_column(batch, "long_answer_candidates"))
    records, counts = flat(arrow_column(batch, "annotations"))
    shorts, per_annotation = flat(pc.struct_field(records, "short_answers"))
    yes_no = pc.subtract(pc.index_in(pc.struct_field(records, "yes_no_answer"),
                                     value_set=_YES_NO).cast(pa.int64()), 1)
    ids = pc.struct_field(records, "annotation_id").cast(pa.string())
    return {
        "question": key_hashes(arrow_column(batch, "question_text")),
        "document": combine(key_hashes(arrow_column(batch, "document_url")),
                            text_digests(arrow_column(batch, "document_text"))),
        "long_answer_candidates": combine(*(
            sequence(values_hash(pc.struct_field(candidates, key)), per_row)
            for key in _CANDIDATE)),
        "annotations": combine(
            sequence(key_hashes(ids), counts),
            sequence(_long_answers(pc.struct_field(records, "long_answer")), counts),
            sequence(_short_spans(
                _relist(per_annotation, pc.struct_field(shorts, "start_token")),
                _relist(per_annotation, pc.struct_field(shorts, "end_token"))), counts),
            sequence(key_hashes(yes_no), counts)),
    }


_CANDIDATE = ("start_token", "end_token", "top_level")
HF_LAYOUT = Layout(
    ("id", "question.text", "document.url", "document.tokens.token",
     *(f"long_answer_candidates.{key}" for key in _CANDIDATE), "annotations.id",
     "annotations.long_answer", "annotations.short_answers", "annotations.yes_no_answer"),
    _hf_ids, _hf_fields)
SIMPLIFIED_LAYOUT = Layout(
    ("example_id", "question_text", "document_url", "document_text",
     "long_answer_candidates", "annotations"),
    _simplified_ids, _simplified_fields)


def nq_formats(other: str = "simplified/{split}") -> FormatAgreement:
    """NQ's HF Parquet rows (the declared ``{split}`` tables) agree with the simplified rows
    made from the ``nq_original`` lines (``other``): see the module docstring."""
    return FormatAgreement(other, HF_LAYOUT, SIMPLIFIED_LAYOUT)
