"""Leakage: one question or document in two splits, and release questions in evaluation sets.

``within_release_leakage`` streams the ``train``/``dev``/``test`` tables of a version (or
staging) directory, keeping a bit mask of splits per normalized question and per document
key; only when a key is in two splits does it read that column and the ids again, to count
the rows involved and take the examples (the five smallest keys). The
question is column ``question`` (its ``text`` field for NQ's struct); the document key is the
first of ``document_id`` (NLQuAD), ``document.url`` (NQ), ``document_url`` (JNQ, JBoolQ).
A release without train/dev/test (ReQA, NQ questions, search, categories) has no such
check: its ``questions`` and ``documents`` are ``None``.

``release_leakage`` adds the overlap with external evaluation sets: NQ-open style JSONL (a
``question`` key), SQuAD JSON (``data/paragraphs/qas/question``), or any JSONL or Parquet
file with a question field (``question_field``, ``a.b`` for a nested one). Each set is held in
memory (evaluation sets are small), as exact keys (``question_key``: the normalized question
as a Unicode TR39 skeleton, so zero-width characters, soft hyphens and homoglyphs do not hide
a copy) and as MinHash signatures of the ``shingles`` of those keys (character 3-grams) in LSH
bands (``transforms.release.near_duplicates``). The release is streamed: a question is an
exact match when its key is in the set, a near-duplicate when a set question sharing a band
with it has a true Jaccard similarity of shingles of at least ``threshold`` (the bands are
chosen for ``threshold - 0.1`` so that pairs just above the threshold are not lost to the
approximation; every reported pair has its true Jaccard checked). Each release question is
compared with at most ``max_candidates`` set questions (``MAX_CANDIDATES``): a set written
from one template would otherwise compare every pair; the report counts the comparisons and
the questions that reached the cap, and ``near_duplicates`` says what a capped one can miss.
A progress line (``transforms.core.progress``) tells how far the indexing and the release
questions are.
All examples are the smallest by (table, id), so the output is the same on every run. Keys
are for matching only: the examples show the questions as written (and, within a release,
the ``normalize_question`` form of the first row, not the skeleton).
"""

from __future__ import annotations

import gzip
import io
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from transforms.core.files import FileSystems
from transforms.release.diff import (
    EXAMPLES,
    Examples,
    column_values,
    has_column,
    id_column,
    parquet_tables,
    read_batches,
    table_schema,
)
from transforms.release.near_duplicates import (
    MAX_CANDIDATES,
    SEED,
    ExternalSet,
    Signer,
    lsh_threshold,
)
from transforms.release.normalize import (
    SHINGLE,
    normalization,
    normalize_question,
    question_key,
    shingles,
)
from transforms.release.storage import RAW, list_files, read_json
from transforms.release.target import MANIFEST

if TYPE_CHECKING:  # datasketch (and SciPy) load only when an evaluation set is given
    from datasketch import MinHash

SPLITS = ("train", "dev", "test")
DOCUMENT_COLUMNS = ("document_id", "document.url", "document_url")
ID_FIELDS = ("id", "example_id", "qid", "question_id")
THRESHOLD = 0.8
NUM_PERM = 128


class LeakageError(ValueError):
    """An external evaluation set that cannot be read, or an option out of range."""


def question_column(schema: pa.Schema) -> str | None:
    """``question.text`` for NQ's question struct, ``question`` for a string column."""
    if has_column(schema, "question.text"):
        return "question.text"
    if "question" in schema.names and pa.types.is_string(schema.field("question").type):
        return "question"
    return None


def document_column(schema: pa.Schema) -> str | None:
    return next((c for c in DOCUMENT_COLUMNS if has_column(schema, c)), None)


# Within a release --------------------------------------------------------------------------

def split_tables(version_dir: str, tables: dict[str, list[str]] | None = None
                 ) -> dict[str, list[str]]:
    """The train/dev/test tables of a version or staging directory, in that order;
    ``tables`` (directory -> Parquet files) when known, else the directory's files."""
    found = parquet_tables(list_files(version_dir)) if tables is None else tables
    return {split: found[split] for split in SPLITS if found.get(split)}


def _pairs(masks: Iterable[int], splits: list[str]) -> dict[str, int]:
    """How many keys each pair of splits shares, in split order (pairs sharing none left out)."""
    counts = Counter(masks)
    pairs: dict[str, int] = {}
    for i, first in enumerate(splits):
        for j in range(i + 1, len(splits)):
            both = (1 << i) | (1 << j)
            shared = sum(n for mask, n in counts.items() if mask & both == both)
            if shared:
                pairs[f"{first}/{splits[j]}"] = shared
    return pairs


@dataclass
class _Shared:
    """The keys (normalized questions or document keys) seen in two or more splits."""

    kind: str
    column: str
    masks: dict[Any, int] = field(default_factory=dict)

    def add(self, key: Any, bit: int) -> None:
        if key not in (None, ""):
            self.masks[key] = self.masks.get(key, 0) | bit

    def shared(self) -> dict[Any, int]:
        return {k: m for k, m in self.masks.items() if m & (m - 1)}


def _key(kind: str, value: Any) -> Any:
    return question_key(value) if kind == "question" else value


def within_release_leakage(version_dir: str, tables: dict[str, list[str]] | None = None
                           ) -> dict[str, Any]:
    """The same normalized question, and the same document, in two splits of a release:
    counts, the split pairs and up to five examples each (JSON-serializable). Works on a
    staging directory (no manifest needed); ``tables`` (default: the directory's Parquet
    files) may name the tables instead."""
    found = split_tables(version_dir, tables)
    splits = list(found)
    result: dict[str, Any] = {"splits": splits, "rows": {}, "questions": None,
                              "documents": None}
    if not splits:
        result["note"] = "no train/dev/test splits: nothing to compare"
        return result
    schema = table_schema(version_dir, found[splits[0]])
    checks = [_Shared(kind, column) for kind, column in
              (("question", question_column(schema)), ("document", document_column(schema)))
              if column]
    key = id_column(schema.names)
    for index, split in enumerate(splits):
        rows = 0
        for batch in read_batches(version_dir, found[split], [c.column for c in checks]):
            rows += batch.num_rows
            for check in checks:
                for value in column_values(batch, check.column):
                    check.add(_key(check.kind, value), 1 << index)
        result["rows"][split] = rows
    for check in checks:
        shared = check.shared()
        check.masks = {}
        result[f"{check.kind}s"] = _shared_report(version_dir, found, check, shared, key)
    return result


def _shared_report(version_dir: str, found: dict[str, list[str]], check: _Shared,
                   shared: dict[Any, int], key: str | None) -> dict[str, Any]:
    splits = list(found)
    picked = sorted(shared, key=str)[:EXAMPLES]
    examples: dict[Any, dict[str, Any]] = {
        k: {check.kind: k, "splits": {}, "rows": []} for k in picked}
    rows = 0
    columns = [check.column] + ([key] if key else [])
    for split in splits if shared else []:
        for batch in read_batches(version_dir, found[split], columns):
            values = column_values(batch, check.column)
            ids = column_values(batch, key) if key else [None] * len(values)
            for value, row_id in zip(values, ids, strict=True):
                wanted = _key(check.kind, value)
                if wanted not in shared:
                    continue
                rows += 1
                example = examples.get(wanted)
                if example is None:
                    continue
                if check.kind == "question" and not example["rows"]:
                    example["question"] = normalize_question(value)  # readable, not the key
                example["splits"][split] = example["splits"].get(split, 0) + 1
                if len(example["rows"]) < EXAMPLES:
                    row = {"split": split, "id": row_id}
                    example["rows"].append({**row, "question": value}
                                           if check.kind == "question" else row)
    return {"column": check.column, "count": len(shared), "rows": rows,
            "pairs": _pairs(shared.values(), splits),
            "examples": [examples[k] for k in picked]}


# External evaluation sets ------------------------------------------------------------------

def _open_text(path: str) -> io.TextIOBase:
    handle = FileSystems.open(path, compression_type=RAW)
    raw = gzip.GzipFile(fileobj=handle) if path.endswith(".gz") else handle
    return io.TextIOWrapper(raw, encoding="utf-8")


def _field(record: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(record, dict):
            return None
        record = record.get(part)
    if isinstance(record, dict):
        record = record.get("text")
    return record


def _record_id(record: dict[str, Any], index: int) -> Any:
    return next((record[f] for f in ID_FIELDS if isinstance(record.get(f), (str, int))), index)


def _from_records(records: Iterable[Any], question_field: str) -> Iterator[tuple[Any, str]]:
    for index, record in enumerate(records):
        question = _field(record, question_field)
        if isinstance(question, str) and isinstance(record, dict):
            yield _record_id(record, index), question


def _from_squad(document: dict[str, Any]) -> Iterator[tuple[Any, str]]:
    for article in document.get("data", []):
        for paragraph in article.get("paragraphs", []):
            for qa in paragraph.get("qas", []):
                if isinstance(qa.get("question"), str):
                    yield qa.get("id"), qa["question"]


def _from_parquet(path: str, question_field: str) -> Iterator[tuple[Any, str]]:
    with FileSystems.open(path, compression_type=RAW) as handle:
        parquet = pq.ParquetFile(handle)
        schema = parquet.schema_arrow
        if has_column(schema, f"{question_field}.text"):  # NQ's question struct
            question_field = f"{question_field}.text"
        if not has_column(schema, question_field):
            return
        key = next((f for f in ID_FIELDS if f in schema.names), None)
        index = 0
        columns = [question_field] + ([key] if key else [])
        for batch in parquet.iter_batches(columns=list(dict.fromkeys(c.split(".")[0]
                                                                     for c in columns))):
            questions = column_values(batch, question_field)
            ids = column_values(batch, key) if key else range(index, index + len(questions))
            index += len(questions)
            for row_id, question in zip(ids, questions, strict=True):
                if isinstance(question, str):
                    yield row_id, question


def read_external(path: str, question_field: str = "question") -> list[tuple[Any, str]]:
    """``(id, question)`` of an evaluation set: SQuAD JSON (``data/paragraphs/qas``), a JSON
    list or ``{"data": [...]}`` of records, JSONL or Parquet (``.gz`` for the text formats);
    the id is the record's ``id``/``example_id``/``qid``/``question_id``, else its position.
    ``LeakageError`` when it has no question."""
    if not FileSystems.exists(path):
        raise LeakageError(f"{path}: no such file")
    name = path[:-3] if path.endswith(".gz") else path
    try:
        if name.endswith(".parquet"):
            found = list(_from_parquet(path, question_field))
        elif name.endswith(".json"):
            with _open_text(path) as handle:
                document = json.load(handle)
            records = document.get("data", []) if isinstance(document, dict) else document
            found = (list(_from_squad(document)) if isinstance(document, dict) else []) or \
                list(_from_records(records if isinstance(records, list) else [],
                                   question_field))
        else:
            with _open_text(path) as handle:
                found = list(_from_records((json.loads(line) for line in handle
                                            if line.strip()), question_field))
    except (OSError, ValueError, pa.ArrowException) as error:
        raise LeakageError(f"{path}: not readable as an evaluation set: {error}") from error
    if not found:
        raise LeakageError(f"{path}: no question in field {question_field!r} (SQuAD JSON, or "
                           "JSONL/Parquet with that field; --question-field names another)")
    return found


@dataclass
class _Matches:
    limit: int
    rows: int = 0
    by_table: dict[str, int] = field(default_factory=dict)
    matched: set[int] = field(default_factory=set)
    examples: Examples = field(init=False)

    def __post_init__(self) -> None:
        self.examples = Examples(self.limit)

    def add(self, order: tuple[int, str, int], table: str, index: int,
            example: dict[str, Any]) -> None:
        self.rows += 1
        self.by_table[table] = self.by_table.get(table, 0) + 1
        self.matched.add(index)
        self.examples.add((order, json.dumps(example, ensure_ascii=False)))

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "external_questions": len(self.matched),
                "by_table": self.by_table,
                "examples": [json.loads(text) for _, text in self.examples.values]}


def _release_question_tables(version_dir: str, tables: dict[str, list[str]]
                             ) -> list[tuple[str, list[str], str, str | None]]:
    """(table, files, question column, id column) of the tables checked against the sets:
    the splits when the release has them, else every table with a question column."""
    chosen = [t for t in tables if t in SPLITS] or [
        t for t in tables if not t.startswith(("rejected/", "votes/"))]
    out = []
    for table in chosen:
        schema = table_schema(version_dir, tables[table])
        column = question_column(schema)
        if column:
            out.append((table, tables[table], column, id_column(schema.names)))
    return out


def _table_rows(version_dir: str, files: list[str]) -> int:
    """The rows of a table, from its files' footers."""
    rows = 0
    for name in files:
        with FileSystems.open(FileSystems.join(version_dir, *name.split("/")),
                              compression_type=RAW) as handle:
            rows += pq.ParquetFile(handle).metadata.num_rows
    return rows


def external_leakage(version_dir: str, checked: list[tuple[str, list[str], str, str | None]],
                     sets: list[ExternalSet], signer: Signer,
                     examples: int = EXAMPLES) -> list[dict[str, Any]]:
    """Exact and near-duplicate matches of the questions of the ``checked`` tables
    (``_release_question_tables``) in each set, with what the near-duplicate search did."""
    from transforms.core.progress import Progress  # Beam counters: only when sets are checked

    found = [(_Matches(examples), _Matches(examples)) for _ in sets]
    progress = Progress("release questions checked", None,
                        sum(_table_rows(version_dir, files) for _, files, _, _ in checked))
    for order, (table, files, column, key) in enumerate(checked):
        sequence = 0
        for batch in read_batches(version_dir, files, [column] + ([key] if key else [])):
            questions = column_values(batch, column)
            ids = column_values(batch, key) if key else [None] * len(questions)
            for row_id, question in zip(ids, questions, strict=True):
                sequence += 1
                _match_row(order, sequence, table, row_id, question, sets, found, signer)
            progress.tick(len(questions))
    return [{"file": s.path, "questions": s.size, "distinct": len(s.texts),
             "exact": exact.to_dict(), "near": near.to_dict(), "search": s.stats.to_dict()}
            for s, (exact, near) in zip(sets, found, strict=True)]


def _match_row(order: int, sequence: int, table: str, row_id: Any, question: Any,
               sets: list[ExternalSet], found: list[tuple[_Matches, _Matches]],
               signer: Signer) -> None:
    normalized = question_key(question if isinstance(question, str) else "")
    if not normalized:
        return
    rank = (order, str(row_id), sequence)
    grams: set[str] | None = None
    signature: MinHash | None = None
    for external, (exact, near) in zip(sets, found, strict=True):
        row = {"table": table, "id": row_id, "question": question}
        index = external.exact.get(normalized)
        if index is not None:
            exact.add(rank, table, index, {**row, **_external(external, index)})
            continue
        if grams is None:
            grams = shingles(normalized)
            signature = signer.sign(grams)
        assert signature is not None
        hit = external.near(grams, signature)
        if hit is not None:
            index, similarity, estimate = hit
            near.add(rank, table, index, {**row, **_external(external, index),
                                          "jaccard": round(similarity, 4),
                                          "estimated_jaccard": round(estimate, 4)})


def _external(external: ExternalSet, index: int) -> dict[str, Any]:
    row_id, question = external.records[index]
    return {"external_id": row_id, "external_question": question}


def release_leakage(version_dir: str, against: Sequence[str] = (), *,
                    question_field: str = "question", threshold: float = THRESHOLD,
                    num_perm: int = NUM_PERM, examples: int = EXAMPLES,
                    max_candidates: int = MAX_CANDIDATES) -> dict[str, Any]:
    """Leakage within a published release and into the evaluation sets at ``against``; each
    release question is compared with at most ``max_candidates`` questions of a set."""
    if not 0 < threshold <= 1:
        raise LeakageError(f"threshold {threshold} is not in (0, 1]")
    if num_perm < 2:
        raise LeakageError(f"num_perm {num_perm} is below 2")
    if examples < 0:
        raise LeakageError(f"examples {examples} is negative")
    if max_candidates < 1:
        raise LeakageError(f"max_candidates {max_candidates} is below 1")
    manifest = read_json(FileSystems.join(version_dir, MANIFEST))
    tables = parquet_tables(manifest.get("files", {}), manifest.get("splits", []))
    external: list[dict[str, Any]] = []
    checked = _release_question_tables(version_dir, tables)
    if against:
        signer = Signer(num_perm)
        sets = [ExternalSet(path, read_external(path, question_field), threshold, signer,
                            max_candidates) for path in against]
        external = external_leakage(version_dir, checked, sets, signer, examples)
    return {
        "dataset": manifest.get("dataset"), "version": manifest.get("version"),
        "path": version_dir,
        "method": {"normalization": normalization(), "shingles": f"character {SHINGLE}-grams",
                   "threshold": threshold, "num_perm": num_perm, "seed": SEED,
                   "lsh_threshold": round(lsh_threshold(threshold), 4),
                   "max_candidates": max_candidates},
        "within_release": within_release_leakage(version_dir, tables),
        "questions_checked": {table: column for table, _, column, _ in checked},
        "external": external,
    }

