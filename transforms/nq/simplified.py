"""The ``simplified`` config of NQ releases: NQ's own simplified format, as Parquet.

Google's ``natural_questions.simplify_nq_data`` turns the original format into one record per
example without the HTML: ``document_text`` is the document's tokens joined by single blanks
(blanks inside a token become ``_``), and every span loses its byte offsets, so spans are
``[start_token, end_token)`` into ``document_text.split(" ")``. ``simplify_example`` is that
function's logic (``text_utils.simplify_nq_example``, Apache 2.0), so the release does not
depend on the official package; ``tests/realdata/test_nq_simplified_realdata.py`` checks the rows
equal what the official tool writes from the release's own ``nq_original`` files.

Each original file ``nq_original/<split>/nq-<split>-NN.jsonl.gz`` gives
``simplified/<split>/simplified-nq-<split>-NN.parquet`` with the same examples in the same order
(``datasets`` loads it as ``load_dataset(dir, "simplified")``). ``build_nq`` writes it with the
other two formats of the shard (``carried.simplified_bytes``, named by
``simplified_shard_name``): a refresh takes a carried example's row from the previous
release's simplified file instead of parsing its page again. ``WriteSimplified`` makes it from
a staged ``nq_original`` file (``annotate import``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.io.filesystems import FileSystems

from transforms.nq.examples import nq_shard_name
from transforms.release.formats import parquet_bytes
from transforms.release.storage import list_files, write_bytes
from transforms.sources.compressed import iter_path_lines

SIMPLIFIED_DIR = "simplified"
ORIGINAL_DIR = "nq_original"
_ORIGINAL_NAME = re.compile(rf"^{ORIGINAL_DIR}/(?P<split>[^/]+)/(?P<name>nq-[^/]+)\.jsonl\.gz$")

_TOKEN_SPAN = [pa.field("start_token", pa.int64()), pa.field("end_token", pa.int64())]
SIMPLIFIED_SCHEMA = pa.schema([
    pa.field("question_text", pa.string()),
    pa.field("example_id", pa.int64()),
    pa.field("document_url", pa.string()),
    pa.field("document_text", pa.string()),
    pa.field("long_answer_candidates", pa.list_(pa.struct(
        [*_TOKEN_SPAN, pa.field("top_level", pa.bool_())]))),
    pa.field("annotations", pa.list_(pa.struct([
        pa.field("annotation_id", pa.uint64()),
        pa.field("long_answer", pa.struct(
            [*_TOKEN_SPAN, pa.field("candidate_index", pa.int64())])),
        pa.field("short_answers", pa.list_(pa.struct(_TOKEN_SPAN))),
        pa.field("yes_no_answer", pa.string()),
    ]))),
], metadata={"dataset": "nq", "layout": "natural_questions simplified"})

FIELD_DOCS = {
    "simplified.question_text": "the question (NQ simplified format)",
    "simplified.example_id": "the example's int64 id, as in nq_original",
    "simplified.document_url": "the revision-pinned Wikipedia URL",
    "simplified.document_text": "the document's tokens joined by single blanks (blanks inside "
                                "a token become _); split it with split(\" \")",
    "simplified.long_answer_candidates": "NQ §4.1 candidates as [start_token, end_token) into "
                                         "document_text.split(\" \"), with top_level",
    "simplified.annotations": "NQ §3.2 annotations without byte offsets: long answer, short "
                              "answers as token spans, yes/no answer (empty until annotated)",
}

CARD_LINE = (
    "- `simplified/<split>/*.parquet` (the config `simplified`): NQ's simplified "
    "format (no HTML), row for row what the official "
    "`natural_questions.simplify_nq_data` writes from `nq_original/<split>`: `question_text`, "
    "`example_id`, `document_url`, `document_text` (the tokens joined by single blanks; "
    "spans are `[start_token, end_token)` into `document_text.split(\" \")`), "
    "`long_answer_candidates` (§4.1) and `annotations` (§3.2) without byte offsets.")


def _without_bytes(span: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in span.items() if key not in ("start_byte", "end_byte")}


def simplify_example(example: dict[str, Any]) -> dict[str, Any]:
    """One original-format example in NQ's simplified format (what ``simplify_nq_example``
    returns); ``ValueError`` when a token's blanks would change the token count, as there."""
    text = " ".join(token["token"].replace(" ", "_") for token in example["document_tokens"])
    if len(text.split(" ")) != len(example["document_tokens"]):
        raise ValueError("Incorrect number of tokens.")
    return {
        "question_text": example["question_text"],
        "example_id": example["example_id"],
        "document_url": example["document_url"],
        "document_text": text,
        "long_answer_candidates": [_without_bytes(c)
                                   for c in example["long_answer_candidates"]],
        "annotations": [{**annotation,
                         "long_answer": _without_bytes(annotation["long_answer"]),
                         "short_answers": [_without_bytes(s)
                                           for s in annotation["short_answers"]]}
                        for annotation in example["annotations"]],
    }


def simplified_shard_name(split: str, index: int, count: int, extension: str = "parquet"
                          ) -> str:
    """The simplified file of shard ``index`` (``WriteShards`` namer): the name of its
    ``nq_original`` file's simplified file, ``simplified-nq-<split>-00.parquet``."""
    return f"simplified-{nq_shard_name(split, index, count, extension)}"


def simplified_name(original: str) -> str | None:
    """The release-relative simplified file of an ``nq_original`` file, or ``None``."""
    match = _ORIGINAL_NAME.match(original)
    if match is None:
        return None
    split, name = match.group("split"), match.group("name")
    return f"{SIMPLIFIED_DIR}/{split}/simplified-{name}.parquet"


def _simplified_rows(path: str) -> Iterator[dict[str, Any]]:
    for line in iter_path_lines(path):
        if line.strip():
            yield simplify_example(json.loads(line))


def write_simplified(staging_dir: str, original: str) -> tuple[str, str, int]:
    """Write the simplified table file of one staged ``nq_original`` file (release-relative);
    returns ``(split, simplified file, rows)``."""
    target = simplified_name(original)
    if target is None:
        raise ValueError(f"{original} is not an nq_original file")
    rows = list(_simplified_rows(FileSystems.join(staging_dir, *original.split("/"))))
    write_bytes(FileSystems.join(staging_dir, *target.split("/")),
                parquet_bytes(rows, SIMPLIFIED_SCHEMA))
    return target.split("/")[1], target, len(rows)


def ensure_simplified(staging_dir: str) -> None:
    """Every staged ``nq_original`` file has its simplified file (the empty files written
    at publish time, ``publish.ensure_empty_jsonl``, get theirs here)."""
    names = set(list_files(staging_dir))
    for name in sorted(names):
        target = simplified_name(name)
        if target is not None and target not in names:
            write_simplified(staging_dir, name)


class WriteSimplified(beam.PTransform):
    """``(split, nq_original file, rows)`` elements (what the original-format writer emits)
    -> the simplified file of each, written under ``staging_dir``; emits
    ``(split, simplified file, rows)``. One file at a time: the memory is one file's rows."""

    def __init__(self, staging_dir: str):
        super().__init__()
        self.staging_dir = staging_dir

    def expand(self, written):
        staging = self.staging_dir
        return written | "Simplify" >> beam.MapTuple(
            lambda split, original, rows: write_simplified(staging, original))
