"""Write the annotated NQ release: each release file streamed again, with its annotations.

Every input file becomes one output file of the same split and position
(``nq_original/<split>/nq-<split>-0i.jsonl.gz`` and ``<split>/...parquet``, the
HuggingFace layout), its examples in the same order, each with the ``annotations`` of the join
(short answers' byte offsets read from the document's tokens here); an example without them
(pending) is left out. The annotations arrive as a side input (``example id -> annotations``:
small even at NQ scale), so documents are never shuffled and the memory is one output file's
Parquet rows, as for ``build_nq``'s writers.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.io.filesystems import FileSystems

from filters.annotation.nq import with_short_answer_bytes
from transforms.annotation.release_examples import iter_lines
from transforms.nq.examples import HF_SCHEMA, hf_example, nq_shard_name
from transforms.release import RAW
from transforms.release.formats import parquet_writer, shard_name, write_row_groups

ROW_GROUP = 1000


class AttachNqAnnotations(beam.DoFn):
    """``(split, path, index, count)`` + side input ``{id: annotations}`` -> both files of
    the annotated split shard, written under ``staging_dir``; emits ``(split, original-format
    file, rows)`` (as ``WriteShards`` does, so ``WriteSimplified`` follows it)."""

    def __init__(self, staging_dir: str):
        self.staging_dir = staging_dir

    def process(self, element: tuple[str, str, int, int],
                annotations: dict[str, list[dict[str, Any]]]) -> Iterator[tuple[str, str, int]]:
        split, path, index, count = element
        relative = f"nq_original/{split}/{nq_shard_name(split, index, count)}"
        original = FileSystems.join(self.staging_dir, *relative.split("/"))
        parquet = FileSystems.join(self.staging_dir, split,
                                   shard_name(split, index, count, "parquet"))
        rows = 0
        with FileSystems.create(original, compression_type=RAW) as raw_out, \
                gzip.GzipFile(fileobj=raw_out, mode="wb", mtime=0, filename="") as lines_out, \
                FileSystems.create(parquet, compression_type=RAW) as parquet_out, \
                parquet_writer(parquet_out, HF_SCHEMA) as writer:
            batch: list[dict[str, Any]] = []
            for line in iter_lines(path):
                example = json.loads(line)
                found = annotations.get(str(example["example_id"]))
                if found is None:
                    continue
                tokens = example["document_tokens"]
                example["annotations"] = [with_short_answer_bytes(a, tokens) for a in found]
                lines_out.write((json.dumps(example, ensure_ascii=False) + "\n")
                                .encode("utf-8"))
                batch.append(hf_example(example))
                rows += 1
                if len(batch) == ROW_GROUP:
                    write_row_groups(writer, pa.Table.from_pylist(batch, schema=HF_SCHEMA))
                    batch = []
            if batch:
                write_row_groups(writer, pa.Table.from_pylist(batch, schema=HF_SCHEMA))
        yield split, relative, rows
