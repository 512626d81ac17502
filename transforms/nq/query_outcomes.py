"""The query-stage outcomes of an NQ release: ``refresh/queries/queries-*.jsonl``.

NQ's heuristics (NQ §3.1, ``filters.nq.heuristics``) read spaCy's tagger, parser and entity
recognizer: about 1.4 ms of CPU a query, the bulk of a refresh when few questions are new. Their
outcome depends only on the normalized query, the spaCy release and model, the category
lexicon (its text and ``--min-category-count``) and the rules' code. So every build writes one
JSON line per query the tokenizer saw (every query past ``cheap_rejection``):
``{"key", "tokens", "heuristics"}``, where ``key`` is a 128-bit BLAKE2b digest of the query
(``outcome_key``: these files never hold a query's text) and
``heuristics`` the rules that fired (none: rejected, ``no_heuristic`` or ``too_few_tokens``).
The lines are sorted by key and sharded, so the same outcomes give the same bytes.

The manifest records what the outcomes depend on (``fingerprint``, under ``RECORD``). A
refresh (``--previous``, without ``--recompute-all``) whose fingerprint equals the previous
release's takes a query's recorded outcome instead of tagging it again
(``transforms.nq.questions.SelectQuestions``): the same counts, rows and rejects as a
tagging, counted ``queries.outcomes_carried``. Any difference (another spaCy, model, lexicon
or rules' code) tags every query again. A previous release without outcomes (written before
they existed) is refreshed the same way.

The digest is no secret: anyone who guesses a query can learn whether it was in the log,
issued by at least ``--min-users`` users (the users filter every recorded query passed). The
NQ dataset page (docs/datasets/nq.md) says so.

A line longer than ``MAX_LINE_BYTES``, one that is no outcome, or two lines with one key are a
damaged release (exit 5), naming the file and the line.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import apache_beam as beam

from transforms.release import ReleaseTarget, WriteShards, jsonl_bytes
from transforms.release.refresh.checked_read import (
    Release,
    bounded_lines,
    open_file,
    release_path,
)
from transforms.release.refresh.previous import PreviousRelease
from transforms.release.shards import ensure_group_file
from transforms.release.verify import DamagedReleaseError

DIRECTORY = "refresh"  # a release directory, so no split may have this name
GROUP = "queries"
PREFIX = f"{DIRECTORY}/{GROUP}/"
RECORD = "query_outcomes"  # the manifest option that records the fingerprint
ROWS_PER_FILE = 500_000  # outcomes per file (about 80 bytes each)
MAX_LINE_BYTES = 4096  # an outcome line read back, at most (one is about 80 bytes)
KEY_PERSON = b"nq-query-outcome"  # BLAKE2b personalization: these keys are no other digest
FIELDS = frozenset({"key", "tokens", "heuristics"})
# the code a query's outcome depends on: its digest is part of the fingerprint
RULE_MODULES = ("filters.nq.heuristics", "filters.nq.queries", "filters.nq.category_lexicon",
                "filters.text.spacy_models", "transforms.nq.questions")


@dataclass(frozen=True)
class Outcome:
    """What the tokenizer and the heuristics made of one query."""

    tokens: int
    heuristics: tuple[int, ...]  # the rules that fired, in order; () when rejected


def outcome_key(question: str) -> str:
    """The key of a normalized query's outcome: BLAKE2b-128 of its UTF-8 text, hex."""
    return hashlib.blake2b(question.encode("utf-8"), digest_size=16,
                           person=KEY_PERSON).hexdigest()


def outcome_line(question: str, outcome: Outcome) -> dict[str, Any]:
    """The sidecar line of ``question``'s outcome."""
    return {"key": outcome_key(question), "tokens": outcome.tokens,
            "heuristics": list(outcome.heuristics)}


def _module_digest(name: str) -> str:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise RuntimeError(f"cannot find the source of {name}")
    return hashlib.sha256(Path(spec.origin).read_bytes()).hexdigest()


def installed_model(names: tuple[str, ...]) -> str | None:
    """``"<package> <version>"`` of the first of ``names`` installed (the one
    ``filters.text.spacy_models.load_english`` loads), else ``None``."""
    for name in names:
        if importlib.util.find_spec(name) is not None:
            return f"{name} {importlib.metadata.version(name)}"
    return None


def fingerprint(categories_tsv: str, min_category_count: int) -> dict[str, Any]:
    """What every outcome depends on (the manifest's ``RECORD``): spaCy's version, the
    English model, the lexicon and its threshold, and the digest of the rules' code."""
    from filters.text.spacy_models import ENGLISH_MODELS

    try:
        spacy = importlib.metadata.version("spacy")
    except importlib.metadata.PackageNotFoundError:
        spacy = None
    rules = hashlib.sha256("".join(_module_digest(name) for name in RULE_MODULES).encode())
    return {"spacy": spacy, "model": installed_model(ENGLISH_MODELS),
            "lexicon": hashlib.sha256(categories_tsv.encode("utf-8")).hexdigest(),
            "min_category_count": min_category_count, "rules": rules.hexdigest()}


def carried_files(previous: PreviousRelease | None, current: dict[str, Any],
                  recompute_all: bool) -> list[str]:
    """The outcome files of ``previous`` a refresh reads: none without a previous release,
    with ``--recompute-all``, or when its recorded fingerprint is not ``current``."""
    if previous is None or recompute_all or previous.options.get(RECORD) != current:
        return []
    return sorted(name for name in previous.all_files
                  if name.startswith(PREFIX) and name.endswith(".jsonl"))


class OutcomeLineDamaged(DamagedReleaseError):
    """An outcome line no build writes (exit 5)."""


def _damaged(where: str, what: str) -> OutcomeLineDamaged:
    return OutcomeLineDamaged(f"{where} {what}, which no build writes (an outcome line is "
                              "one query's key, tokens and heuristics): the previous release "
                              "is damaged")


def parse_outcome(line: bytes, where: str) -> tuple[str, Outcome]:
    """``(key, Outcome)`` of one line, checked (``OutcomeLineDamaged`` naming ``where``)."""
    try:
        data = json.loads(line)
    except ValueError as error:
        raise _damaged(where, f"is not JSON ({error})") from None
    if not isinstance(data, dict) or set(data) != FIELDS:
        raise _damaged(where, "is not an object of exactly key, tokens and heuristics")
    key, tokens, fired = data["key"], data["tokens"], data["heuristics"]
    if not (isinstance(key, str) and len(key) == 32
            and all(char in "0123456789abcdef" for char in key)):
        raise _damaged(where, "has a key that is no 32-digit hex digest")
    if type(tokens) is not int or tokens < 0 or not isinstance(fired, list) or not all(
            type(number) is int and number > 0 for number in fired):
        raise _damaged(where, "has tokens or heuristics of the wrong type")
    return key, Outcome(tokens, tuple(fired))


def read_outcomes(name: str, release: Release) -> Iterator[tuple[str, Outcome]]:
    """The outcomes of one file of ``release``, a line at a time (memory bounded by
    ``MAX_LINE_BYTES``), checked against its verified sha256 at the end."""
    label = f"{release_path(release)}: {name}"
    with open_file(release, name) as handle:
        lines = bounded_lines(handle, MAX_LINE_BYTES, lambda number: _damaged(
            f"{label}: line {number}", f"is longer than {MAX_LINE_BYTES} bytes"))
        for number, line in enumerate(lines, 1):
            if line.strip():
                yield parse_outcome(line, f"{label}: line {number}")


def _attach(item: tuple[str, dict[str, list]]) -> Iterator[tuple[dict, Outcome | None]]:
    key, grouped = item
    outcomes = grouped["outcome"]
    if len(outcomes) > 1:
        raise OutcomeLineDamaged(f"the previous release records {len(outcomes)} outcomes of "
                                 f"the key {key}, which no build writes: it is damaged")
    for row in grouped["row"]:
        yield row, outcomes[0] if outcomes else None


class WithOutcomes(beam.PTransform):
    """Candidate rows -> ``(row, recorded Outcome or None)``: each row joined with the
    ``recorded`` outcomes (``(key, Outcome)`` of ``read_outcomes``: the files
    ``carried_files`` lists, read with the previous release's other files,
    ``transforms.nq.previous_read``); None: no outcome recorded."""

    def __init__(self, recorded):
        super().__init__()
        self.recorded = recorded

    def expand(self, rows):
        recorded = self.recorded
        if recorded is None:
            return rows | "NoOutcome" >> beam.Map(lambda row: (row, None))
        keyed = rows | "KeyRows" >> beam.Map(lambda row: (outcome_key(row["question"]), row))
        return ({"row": keyed, "outcome": recorded}
                | "JoinOutcomes" >> beam.CoGroupByKey()
                | "Attach" >> beam.FlatMap(_attach))


class WriteOutcomes(beam.PTransform):
    """Write outcome lines (``outcome_line``) into ``<staging>/refresh/queries/``, sorted by
    key; emits what ``WriteShards`` emits."""

    def __init__(self, staging_dir: str):
        super().__init__()
        self.staging_dir = staging_dir

    def expand(self, lines):
        return (lines
                | "Group" >> beam.Map(lambda line: (GROUP, line))
                | "WriteLines" >> WriteShards(self.staging_dir, lambda line: line["key"],
                                              jsonl_bytes, "jsonl", subdir=DIRECTORY,
                                              max_rows_per_shard=ROWS_PER_FILE))


def ensure_outcomes(target: ReleaseTarget) -> None:
    """An empty outcome file when no query reached the tokenizer (before publishing), so a
    release always says which outcomes it has, also when it has none."""
    ensure_group_file(target.staging_dir, DIRECTORY, GROUP, "jsonl")
