"""Read the examples of the release being annotated, keyed by their id, with their split.

NQ examples are read twice and never shuffled: first as compact **views** (the
candidates' offsets and opening tags: what checking and converting votes needs; no document,
no tokens), joined with the votes; then ``nq_attach`` streams each
release file again and writes it annotated. A parsed NQ example takes several times the memory
of its text and NQ pages are large, so carrying whole documents through a shuffle would make the
job's memory grow with the corpus. JNQ rows are small and are carried whole.

The Beam stage that reads them is ``release_examples_beam.ReadReleaseExamples``; this module
imports no Beam, so ``annotate export`` and ``next`` use its helpers without it.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import Any

from filters.annotation.nq import LONG_ANSWER_TYPES
from transforms.annotation.counters import EXAMPLES
from transforms.core.files import FileSystems
from transforms.sources.compressed import iter_path_lines

STAGE = EXAMPLES


def split_patterns(release_dir: str, base: str, splits: list[str]) -> list[tuple[str, str]]:
    """``(split, glob)`` of the example files of each split: NQ's original format for nq,
    the Parquet rows for jnq / jboolq."""
    if base == "nq":
        return [(s, FileSystems.join(release_dir, "nq_original", s, "*.jsonl.gz"))
                for s in splits]
    return [(s, FileSystems.join(release_dir, s, "*.parquet")) for s in splits]


def split_files(patterns: Sequence[tuple[str, str]]) -> list[tuple[str, str, int, int]]:
    """``(split, path, index, count)`` of every file the patterns match, sorted per split."""
    files: dict[str, list[str]] = {}
    for split, pattern in patterns:
        matched = FileSystems.match([pattern])[0].metadata_list
        files.setdefault(split, []).extend(m.path for m in matched)
    return [(split, path, index, len(paths))
            for split, paths in files.items()
            for index, path in enumerate(sorted(set(paths)))]


def iter_lines(path: str) -> Iterator[bytes]:
    """The non-blank lines of a JSON lines file on any Beam filesystem, decompressed by
    extension; ``CompressionDamage`` after the last complete line of a damaged file."""
    return (line for line in iter_path_lines(path) if line.strip())


class DamagedReleaseError(RuntimeError):
    """A file of the release being annotated cannot be read whole: the job fails."""


class PackedCandidates(Sequence):
    """An example's long-answer candidates as packed int64s (32 bytes each), with the
    ``long_answer_candidates[i]["start_token"]`` interface the NQ vote functions read."""

    KEYS = ("start_token", "end_token", "start_byte", "end_byte")

    def __init__(self, candidates: list[dict[str, Any]]):
        self.packed = array("q", (c[k] for c in candidates for k in self.KEYS)).tobytes()

    def __len__(self) -> int:
        return len(self.packed) // 32

    def __getitem__(self, index):  # noqa: ANN001 - Sequence protocol
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        values = array("q")
        values.frombytes(self.packed[index * 32:index * 32 + 32])
        return dict(zip(self.KEYS, values, strict=True))


def nq_view(example: dict[str, Any]) -> dict[str, Any]:
    """What checking and converting an example's votes needs, without its document: the
    candidates' offsets and the tag each opens with (a few bytes per candidate)."""
    tokens = example["document_tokens"]
    candidates = example["long_answer_candidates"]
    heads = {c["start_token"]: tokens[c["start_token"]]["token"] for c in candidates
             if tokens[c["start_token"]]["token"] in LONG_ANSWER_TYPES}
    return {"example_id": example["example_id"], "question_text": example["question_text"],
            "long_answer_candidates": PackedCandidates(candidates), "candidate_heads": heads}
