"""Recompute NQ ``document_tokens`` and ``long_answer_candidates`` from ``document_html``.

    python -m pipelines.nq_candidates --input IN.jsonl.gz --output OUT.jsonl.gz [--compare]

Streams NQ original-format examples (one JSON object a line; ``.gz`` in and out by extension,
plain ``.jsonl`` works too), replaces the two fields with ``filters.nq.candidates.nq_document``
of the example's own HTML and keeps every other field as it is (annotations untouched: their
byte spans stay valid, their token indices refer to the input's tokens). A malformed line (not
JSON, not an object, no string ``document_html``, or a page the tokenizer fails on) is reported
with its line number, counted and written to ``OUT.rejected.jsonl`` (``OUT`` without its
``.jsonl[.gz]`` extension) as ``{"line", "error", "text"}``; it never stops the run.

``--compare`` measures the agreement of our candidates with the input's own (NQ §4.1):
precision and recall of candidate byte spans, top_level agreement on the shared spans, the
share of annotated long answers (by byte span) among ours, and token agreement (exact
``token, start_byte, end_byte, html_token``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from filters.nq.candidates import LongAnswerCandidate, nq_document
from filters.nq.tokens import NqToken
from pipelines.cli.parsers import readable_help


def open_lines(path: str) -> IO[bytes]:
    """Binary reader of ``path``, gunzipped when it ends in ``.gz``."""
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


def open_writer(path: str) -> IO[str]:
    """UTF-8 text writer of ``path``, gzipped when it ends in ``.gz``."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    if path.endswith(".gz"):
        return gzip.open(path, "wt", encoding="utf-8")
    return open(path, "w", encoding="utf-8")


def rejected_path(output: str) -> str:
    """``out.jsonl.gz`` -> ``out.rejected.jsonl``."""
    for suffix in (".jsonl.gz", ".json.gz", ".gz", ".jsonl", ".json"):
        if output.endswith(suffix):
            return output[: -len(suffix)] + ".rejected.jsonl"
    return output + ".rejected.jsonl"


class MalformedLine(ValueError):
    """A line that is not an NQ original-format example."""


def parse_example(raw: bytes) -> dict[str, Any]:
    """The example of one input line, or :class:`MalformedLine`."""
    try:
        example = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise MalformedLine(f"not JSON: {err}") from err
    if not isinstance(example, dict):
        raise MalformedLine(f"not a JSON object but {type(example).__name__}")
    if not isinstance(example.get("document_html"), str):
        raise MalformedLine("no string document_html")
    return example


def recompute(example: dict[str, Any]) -> tuple[list[NqToken], list[LongAnswerCandidate]]:
    """Our tokens and candidates of the example's HTML (a failure is a malformed line)."""
    try:
        return nq_document(example["document_html"])
    except Exception as err:  # any tokenizer failure rejects this line only
        raise MalformedLine(f"tokenizer failed: {type(err).__name__}: {err}") from err


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _spans(example: dict[str, Any]) -> dict[tuple[int, int], bool]:
    """The input's candidate byte spans and top_level flags (junk entries ignored)."""
    return {(c["start_byte"], c["end_byte"]): bool(c.get("top_level"))
            for c in _list(example.get("long_answer_candidates"))
            if isinstance(c, dict) and isinstance(c.get("start_byte"), int)
            and isinstance(c.get("end_byte"), int)}


def _long_answers(example: dict[str, Any]) -> list[tuple[int, Any]]:
    """Byte spans of the annotated long answers (``start_byte >= 0``)."""
    spans = []
    for annotation in _list(example.get("annotations")):
        answer = annotation.get("long_answer") if isinstance(annotation, dict) else None
        if (isinstance(answer, dict) and isinstance(answer.get("start_byte"), int)
                and answer["start_byte"] >= 0):
            spans.append((answer["start_byte"], answer.get("end_byte")))
    return spans


def _token_keys(example: dict[str, Any]) -> set[tuple]:
    return {(t["token"], t["start_byte"], t["end_byte"], bool(t.get("html_token")))
            for t in _list(example.get("document_tokens"))
            if isinstance(t, dict) and isinstance(t.get("token"), str)
            and isinstance(t.get("start_byte"), int) and isinstance(t.get("end_byte"), int)}


@dataclass
class Agreement:
    """Candidate and token agreement of ours with the input's own fields (``--compare``)."""

    ours: int = 0
    theirs: int = 0
    shared: int = 0
    top_level_same: int = 0
    annotated: int = 0
    annotated_found: int = 0
    our_tokens: int = 0
    their_tokens: int = 0
    shared_tokens: int = 0
    examples: int = 0

    def add(self, example: dict[str, Any], tokens: list[NqToken],
            candidates: list[LongAnswerCandidate]) -> None:
        """Count one example; ``example`` still holds the input's fields."""
        theirs = _spans(example)
        ours = {(c.start_byte, c.end_byte): c.top_level for c in candidates}
        shared = theirs.keys() & ours.keys()
        self.examples += 1
        self.ours += len(ours)
        self.theirs += len(theirs)
        self.shared += len(shared)
        self.top_level_same += sum(theirs[k] == ours[k] for k in shared)
        for span in _long_answers(example):
            self.annotated += 1
            self.annotated_found += span in ours
        their_tokens = _token_keys(example)
        our_tokens = {(t.token, t.start_byte, t.end_byte, t.html_token) for t in tokens}
        self.their_tokens += len(their_tokens)
        self.our_tokens += len(our_tokens)
        self.shared_tokens += len(their_tokens & our_tokens)

    def lines(self) -> list[str]:
        """The report, one measure a line."""
        def ratio(a: int, b: int) -> str:
            return f"{a / b:.4f} ({a}/{b})" if b else "n/a (0/0)"

        return [
            f"compare: {self.examples} examples",
            f"  candidate precision (byte spans)  {ratio(self.shared, self.ours)}",
            f"  candidate recall (byte spans)     {ratio(self.shared, self.theirs)}",
            f"  top_level agreement (shared)      {ratio(self.top_level_same, self.shared)}",
            f"  annotated long answers among ours {ratio(self.annotated_found, self.annotated)}",
            f"  token precision (exact)           {ratio(self.shared_tokens, self.our_tokens)}",
            f"  token recall (exact)              {ratio(self.shared_tokens, self.their_tokens)}",
        ]


@dataclass
class Counts:
    """What one run did."""

    lines: int = 0
    written: int = 0
    rejected: int = 0
    tokens: int = 0
    candidates: int = 0
    seconds: float = 0.0
    agreement: Agreement | None = None
    errors: list[str] = field(default_factory=list)

    def lines_report(self) -> list[str]:
        """The summary printed at the end of a run."""
        rate = self.written / self.seconds if self.seconds else 0.0
        out = [f"read {self.lines} lines: wrote {self.written} examples, "
               f"rejected {self.rejected} malformed lines",
               f"tokens {self.tokens}, long-answer candidates {self.candidates}, "
               f"{self.seconds:.2f}s ({rate:.1f} pages/s)"]
        if self.agreement is not None:
            out.extend(self.agreement.lines())
        return out


def _numbered_lines(path: str) -> Iterator[tuple[int, bytes]]:
    with open_lines(path) as handle:
        for number, raw in enumerate(handle, start=1):
            if raw.strip():
                yield number, raw


def run(input_path: str, output_path: str, compare: bool = False,
        log: IO[str] | None = None) -> Counts:
    """Stream ``input_path`` to ``output_path``; malformed lines are reported on ``log``
    (default stderr). Returns the counts."""
    log = log or sys.stderr
    counts = Counts(agreement=Agreement() if compare else None)
    started = time.perf_counter()
    reject_path = rejected_path(output_path)
    rejected: IO[str] | None = None
    with open_writer(output_path) as out:
        for number, raw in _numbered_lines(input_path):
            counts.lines += 1
            try:
                example = parse_example(raw)
                tokens, candidates = recompute(example)
            except MalformedLine as err:
                counts.rejected += 1
                print(f"line {number}: malformed: {err}", file=log)
                if rejected is None:
                    rejected = open(reject_path, "w", encoding="utf-8")
                text = raw.decode("utf-8", "replace").rstrip("\r\n")
                rejected.write(json.dumps({"line": number, "error": str(err), "text": text},
                                          ensure_ascii=False) + "\n")
                continue
            if counts.agreement is not None:
                counts.agreement.add(example, tokens, candidates)
            example["document_tokens"] = [t.to_dict() for t in tokens]
            example["long_answer_candidates"] = [c.to_dict() for c in candidates]
            out.write(json.dumps(example, ensure_ascii=False) + "\n")
            counts.written += 1
            counts.tokens += len(tokens)
            counts.candidates += len(candidates)
    if rejected is not None:
        rejected.close()
    counts.seconds = time.perf_counter() - started
    return counts


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipelines.nq_candidates",
        description="Recompute NQ document_tokens and long_answer_candidates from each "
                    "example's document_html (NQ §4.1), keeping every other field.")
    parser.add_argument("--input", required=True,
                        help="NQ original-format examples, .jsonl or .jsonl.gz")
    parser.add_argument("--output", required=True,
                        help="where to write the examples (.jsonl.gz gzips); malformed lines "
                             "go to OUT.rejected.jsonl")
    parser.add_argument("--compare", action="store_true",
                        help="print agreement of our candidates and tokens with the input's")
    return readable_help(parser)


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; exit status 0 even when lines were rejected."""
    args = build_parser().parse_args(argv)
    if not Path(args.input).is_file():
        print(f"no such input file: {args.input}", file=sys.stderr)
        return 2
    counts = run(args.input, args.output, args.compare)
    for line in counts.lines_report():
        print(line)
    if counts.rejected:
        print(f"rejected lines written to {rejected_path(args.output)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
