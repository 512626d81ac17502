"""NQ examples in the original format and in the HuggingFace ``natural_questions`` layout.

Original format (one JSON object per line, ``nq_original/<split>/nq-<split>-00.jsonl.gz``,
named as NQ's own release names its files): ``example_id`` (int64),
``question_text``, ``question_tokens``, ``document_url`` (revision-pinned, NQ's
``https://en.wikipedia.org//w/index.php?title=T&amp;oldid=N`` form), ``document_title``,
``document_html``, ``document_tokens`` (``token, start_byte, end_byte, html_token``),
``long_answer_candidates`` (``start_token, end_token, start_byte, end_byte, top_level``) and
``annotations`` (empty until annotated). The official ``natural_questions`` tools read it.

The Parquet shards use the field layout of the HuggingFace ``natural_questions`` dataset
(``id``, ``document{title,url,html,tokens{token,is_html,start_byte,end_byte}}``,
``question{text,tokens}``, ``long_answer_candidates{...}``, ``annotations{...}``; sequences of
records are structs of lists, as ``datasets`` stores them), so code written for it reads ours.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pyarrow as pa

from transforms.nq.example_ids import example_id
from transforms.release.features import with_class_labels

_LONG_ANSWER = pa.struct([
    pa.field("start_token", pa.int64()), pa.field("end_token", pa.int64()),
    pa.field("start_byte", pa.int64()), pa.field("end_byte", pa.int64()),
    pa.field("candidate_index", pa.int64()),
])
_SHORT_ANSWERS = pa.struct([
    pa.field("start_token", pa.list_(pa.int64())), pa.field("end_token", pa.list_(pa.int64())),
    pa.field("start_byte", pa.list_(pa.int64())), pa.field("end_byte", pa.list_(pa.int64())),
    pa.field("text", pa.list_(pa.string())),
])
CLASS_LABELS = {"annotations.yes_no_answer": ("NO", "YES")}
HF_SCHEMA = with_class_labels(pa.schema([
    pa.field("id", pa.string(), nullable=False),
    pa.field("document", pa.struct([
        pa.field("title", pa.string()),
        pa.field("url", pa.string()),
        pa.field("html", pa.string()),
        pa.field("tokens", pa.struct([
            pa.field("token", pa.list_(pa.string())),
            pa.field("is_html", pa.list_(pa.bool_())),
            pa.field("start_byte", pa.list_(pa.int64())),
            pa.field("end_byte", pa.list_(pa.int64())),
        ])),
    ])),
    pa.field("question", pa.struct([
        pa.field("text", pa.string()),
        pa.field("tokens", pa.list_(pa.string())),
    ])),
    pa.field("long_answer_candidates", pa.struct([
        pa.field("start_token", pa.list_(pa.int64())),
        pa.field("end_token", pa.list_(pa.int64())),
        pa.field("start_byte", pa.list_(pa.int64())),
        pa.field("end_byte", pa.list_(pa.int64())),
        pa.field("top_level", pa.list_(pa.bool_())),
    ])),
    pa.field("annotations", pa.struct([
        pa.field("id", pa.list_(pa.string())),
        pa.field("long_answer", pa.list_(_LONG_ANSWER)),
        pa.field("short_answers", pa.list_(_SHORT_ANSWERS)),
        pa.field("yes_no_answer", pa.list_(pa.int64())),
    ])),
], metadata={"dataset": "nq", "layout": "huggingface natural_questions"}), CLASS_LABELS)
FIELD_DOCS = {
    "id": "example_id as a string (stable 64-bit hash of the normalized question)",
    "document": "the top-ranked Wikipedia page among the top-5 search results",
    "question": "the selected question and its whitespace tokens",
    "long_answer_candidates": "P/Table/Tr/Ul/Ol/Dl/Li/Dd/Dt boxes of the page (NQ §4.1)",
    "annotations": "one entry per annotator (NQ §3.2): long answer, short answers, yes/no "
                   "(-1 NONE, 0 NO, 1 YES); empty until annotated",
}


def nq_shard_name(split: str, index: int, count: int, extension: str = "jsonl.gz") -> str:
    """NQ's own file names, ``nq-<split>-00.jsonl.gz``: the official ``simplify_nq_data``
    reads ``<dir named after the split>/nq-*-??.jsonl.gz`` (so at most 100 shards)."""
    return f"nq-{split}-{index:02d}.{extension}"


def original_example(page, row: dict[str, Any], tokens: list, candidates: list) -> dict:
    """The NQ original-format example of one linked question."""
    return {
        "example_id": example_id(row["question"]),
        "question_text": row["question"],
        "question_tokens": row["question"].split(),
        "document_url": page.url,
        "document_title": page.title.replace("_", " "),
        "document_html": page.html,
        "document_tokens": [t.to_dict() for t in tokens],
        "long_answer_candidates": [c.to_dict() for c in candidates],
        "annotations": [],
    }


def hf_example(example: dict[str, Any]) -> dict[str, Any]:
    """The same example in the HuggingFace ``natural_questions`` field layout."""
    tokens = example["document_tokens"]
    candidates = example["long_answer_candidates"]
    return {
        "id": str(example["example_id"]),
        "document": {
            "title": example["document_title"],
            "url": example["document_url"],
            "html": example["document_html"],
            "tokens": {
                "token": [t["token"] for t in tokens],
                "is_html": [t["html_token"] for t in tokens],
                "start_byte": [t["start_byte"] for t in tokens],
                "end_byte": [t["end_byte"] for t in tokens],
            },
        },
        "question": {"text": example["question_text"], "tokens": example["question_tokens"]},
        "long_answer_candidates": {
            key: [c[key] for c in candidates]
            for key in ("start_token", "end_token", "start_byte", "end_byte", "top_level")
        },
        "annotations": hf_annotations(example),
    }


YES_NO_CODES = {"NONE": -1, "NO": 0, "YES": 1}


def hf_annotations(example: dict[str, Any]) -> dict[str, list]:
    """The example's annotations in the HuggingFace layout: ids as strings, short answers as
    lists with their text (the non-HTML tokens of the span), yes/no as -1 NONE, 0 NO, 1 YES."""
    tokens = example["document_tokens"]
    keys = ("start_token", "end_token", "start_byte", "end_byte")
    columns: dict[str, list] = {"id": [], "long_answer": [], "short_answers": [],
                                "yes_no_answer": []}
    for annotation in example.get("annotations", []):
        shorts = annotation["short_answers"]
        columns["id"].append(str(annotation["annotation_id"]))
        columns["long_answer"].append(
            {k: annotation["long_answer"][k] for k in (*keys, "candidate_index")})
        columns["short_answers"].append({
            **{k: [s[k] for s in shorts] for k in keys},
            "text": [" ".join(t["token"] for t in tokens[s["start_token"]:s["end_token"]]
                              if not t["html_token"]) for s in shorts]})
        columns["yes_no_answer"].append(YES_NO_CODES[annotation["yes_no_answer"]])
    return columns


def jsonl_line(example: dict[str, Any]) -> bytes:
    """One example as a line of JSON (UTF-8, ``\\n``-terminated)."""
    return (json.dumps(example, ensure_ascii=False) + "\n").encode("utf-8")


def member_bytes(data: bytes) -> bytes:
    """``data`` as one gzip member with a fixed header (mtime 0, no name)."""
    return gzip.compress(data, compresslevel=9, mtime=0)


def jsonl_gz_bytes(rows: list[dict[str, Any]], schema: Any = None) -> bytes:
    """Gzipped JSON lines, one gzip member per line (gzip readers read the members as one
    stream; a refresh copies a carried example's member as it is), with fixed headers: same
    rows, same bytes. No rows give one empty member."""
    if not rows:
        return member_bytes(b"")
    return b"".join(member_bytes(jsonl_line(row)) for row in rows)
