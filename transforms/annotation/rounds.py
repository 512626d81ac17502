"""Adaptive annotation rounds: ``annotate next`` asks only the judgments still needed.

``next_round`` reads the votes so far (``read_votes.VoteFileParser``, the import's parser, and
the import's checks: votes of another release, of a task showing another page, on an unknown
paragraph or with a span outside it are not counted), decides per JNQ / JBoolQ question what
is still open (``filters.annotation.curtail``: exact curtailment, the full overlap's decisions)
and writes, under a new directory:

* ``requests.jsonl``: one line per open judgment slot group, ``{"question_id" | "example_id",
  "split", "stage", "paragraph" (per-paragraph stages only), "more"}``, in release order;
* the tasks of those slots, written as ``annotate export`` writes them: ``--tool votes``:
  ``<stage>/tasks-NNNNN.jsonl``; ``--tool label-studio``: one project per stage and ``more``
  (Label Studio Community's overlap is per project), ``<stage>/more-<m>/`` with
  ``config.xml``, ``project.json`` (``maximum_annotations`` = m) and ``tasks-NNNNN.json``;
* ``annotation_next.json``: the release, tool, ways, votes read and what was asked.

With ``--suggestions`` (``suggestions``) the round's tasks show a model's predictions outside
the control group, as ``annotate export`` does, and ``annotation_next.json`` records them; the
control group depends only on the seed and the item, so it is the same in every round.

With ``--stop confident`` (``stop``: ``filters.annotation.sequential``) a round first fits the
worker model on every vote read (``confident.confident_round``) and closes what it is sure of,
NQ examples included; the manifest records the rule (``stop``). Without it (``--stop exact``,
the default) the round is exact curtailment's, byte for byte.

NQ keeps every annotation (NQ §5): train is 1-way (nothing to save) and the dev/test 5-way
annotations are themselves the evaluation reference (``nq_eval`` scores against all five), so
an NQ example is asked until it has its split's ways, never curtailed (but for the confident
rule, which a campaign chooses knowing its dev/test then hold fewer annotations).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filters.annotation.curtail import PAPER, curtail
from filters.annotation.jnq import JnqThresholds, JnqVoteError, check_vote
from filters.annotation.sequential import EXACT_RULE, StopRule
from filters.annotation.votes import JnqVote, NqVote, latest_votes
from transforms.annotation.confident import Confident, confident_round
from transforms.annotation.export import (
    TOOLS,
    ExportError,
    finish_directory,
    item_ids,
    read_examples,
    write_file,
    write_tasks,
)
from transforms.annotation.gold_rounds import GoldRounds, finish_manifest, gold_mix, mixed
from transforms.annotation.label_studio.configs import (
    jnq_config,
    nq_config,
    nq_instructions,
    project_settings,
)
from transforms.annotation.label_studio.task_map import vote_mismatch
from transforms.annotation.label_studio.tasks import jnq_tasks, nq_task
from transforms.annotation.manifest import ReleaseRef, base_dataset
from transforms.annotation.read_votes import (
    VoteFileParser,
    VoteOutputs,
    not_regular_file,
    of_release,
)
from transforms.annotation.round_request import Request
from transforms.annotation.suggestions import Suggestions, suggested_project
from transforms.core.files import FileSystems
from transforms.core.inputs import beam_pattern
from transforms.release import to_json_bytes
from transforms.sources.compressed import iter_path_lines

NEXT_MANIFEST = "annotation_next.json"
REQUESTS = "requests.jsonl"


@dataclass(frozen=True)
class NextOptions:
    """What ``annotate next`` is asked: the release, the votes so far, the new ``out``
    directory, the tool, the ways per split and the thresholds the import will use."""

    release: ReleaseRef
    out: str
    ways: dict[str, int]
    votes: tuple[str, ...] = ()
    tool: str = "votes"
    thresholds: JnqThresholds = PAPER
    tasks_per_file: int = 1000
    splits: tuple[str, ...] = field(default=())
    suggestions: Suggestions | None = None  # --suggestions: shown outside the control group
    gold: GoldRounds | None = None  # --gold with --gold-rate: gold items mixed in (gold_rounds)
    stop: StopRule = EXACT_RULE  # --stop exact (curtailment) or confident (a worker model)


def check_next(options: NextOptions) -> None:
    """Refuse a bad tool, split, ways, votes pattern or an ``out`` that is not new/empty,
    before any work (``ExportError``)."""
    release = options.release
    if base_dataset(release) not in ("nq", "jnq", "jboolq"):
        raise ExportError(f"{release.dataset} releases cannot be annotated (nq, jnq, jboolq)")
    if options.tool not in TOOLS:
        raise ExportError(f"--tool must be one of {', '.join(TOOLS)}")
    missing = [s for s in options.splits if s not in release.splits]
    if missing:
        raise ExportError(f"split(s) {', '.join(missing)} not in the release "
                          f"({', '.join(release.splits)})")
    if min(options.ways.values(), default=1) < 1 or options.tasks_per_file < 1:
        raise ExportError("--ways and --tasks-per-file must be at least 1")
    for pattern in options.votes:
        paths = vote_paths(pattern)
        if not paths:
            raise ExportError(f"--votes {pattern} matches no file (the first round takes no "
                              "--votes)")
        for path in paths:
            if not_regular_file(path.path):
                raise ExportError(f"--votes {path.path} is not a regular file (a directory, "
                                  "FIFO or device)")
    out = Path(options.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ExportError(f"--out {options.out} exists and is not an empty directory; rounds "
                          "never overwrite")


def vote_paths(pattern: str) -> list[Any]:
    """The files (``FileMetadata``) a ``--votes`` pattern matches, sorted by path."""
    matched = FileSystems.match([beam_pattern(pattern)])[0].metadata_list
    return sorted(matched, key=lambda m: m.path)


_COUNTED, _REFUSED = object(), object()  # what a round's reading of votes reports


def _counted(*_: Any, **__: Any) -> object:
    """A count of the import's (``votes.read``, ...): a round has no tallies."""
    return _COUNTED


def _refused(*_: Any, **__: Any) -> object:
    """A line, annotation or file the import would dead-letter: a round counts them."""
    return _REFUSED


def read_round_votes(patterns: tuple[str, ...], base: str
                     ) -> tuple[dict[str, list[NqVote | JnqVote]], int]:
    """Votes by item id from every file ``patterns`` match (the import's parser), and how
    many lines or annotations were refused by it (malformed, unreadable)."""
    parse = VoteFileParser(base, VoteOutputs(tally=_counted, dead_letter=_refused))
    votes: dict[str, list[NqVote | JnqVote]] = {}
    refused = 0
    for pattern in patterns:
        for metadata in vote_paths(pattern):
            for output in parse.parse_file(metadata.path, iter_path_lines(metadata.path)):
                if output is _REFUSED:
                    refused += 1
                elif output is not _COUNTED:
                    votes.setdefault(output[0], []).append(output[1])
    return votes, refused


def jnq_usable(row: dict[str, Any], order: str, votes: list[JnqVote],
               fingerprint: str) -> list[JnqVote]:
    """The votes the import would aggregate for ``row`` (same checks, latest per worker)."""
    candidates = list(row["candidate_paragraph_ids"])
    lengths = {p["id"]: len(p["text"]) for p in row["paragraphs"]}
    usable = []
    for vote in latest_votes([v for v in votes if of_release(v, fingerprint)
                              and not vote_mismatch(order, v, row)]):
        try:
            check_vote(vote, candidates, lengths)
        except JnqVoteError:
            continue
        usable.append(vote)
    return usable


def requests_for(release: ReleaseRef, split: str, example: dict[str, Any], ways: int,
                 votes: list, t: JnqThresholds, confident: Confident | None = None
                 ) -> list[Request]:
    """The open slots of one example of ``split`` given its votes so far: exact
    curtailment, or with ``confident`` the confident rule under the round's fit."""
    base = base_dataset(release)
    if base == "nq":
        item = str(example["example_id"])
        ours = latest_votes([v for v in votes if of_release(v, release.fingerprint)])
        more = (ways - len({v.annotator_id for v in ours}) if confident is None
                else confident.nq_more(item, ours, ways))
        return [Request(item, split, "nq", None, more)] if more > 0 else []
    item = str(example["id"])
    usable = jnq_usable(example, base, votes, release.fingerprint)
    candidates = list(example["candidate_paragraph_ids"])
    state = (curtail(item, usable, candidates, base, ways, t) if confident is None
             else confident.jnq_state(item, usable, candidates, base, ways))
    return [Request(item, split, slot.stage, slot.paragraph, slot.more) for slot in state.open]


def _tasks(release: ReleaseRef, request: Request, example: dict[str, Any]
           ) -> list[dict[str, Any]]:
    if request.stage == "nq":
        return [nq_task(example, request.split, release.fingerprint)]
    paragraphs = None if request.paragraph is None else [request.paragraph]
    return jnq_tasks(example, request.stage, request.split, release.fingerprint, paragraphs)


class _Folders:
    """Task batches per folder (a stage, or a stage and ``more`` for Label Studio), flushed
    every ``tasks_per_file`` tasks as ``export`` writes them."""

    def __init__(self, staging: Path, release: ReleaseRef, tool: str, tasks_per_file: int,
                 suggestions: Suggestions | None = None):
        self.staging, self.release, self.tool = staging, release, tool
        self.suggestions = suggestions
        self.tasks_per_file = tasks_per_file
        self.batches: dict[tuple[str, int], list[dict[str, Any]]] = {}
        self.numbers: dict[tuple[str, int], int] = {}
        self.tasks: dict[str, int] = {}

    def folder(self, stage: str, more: int) -> Path:
        if self.tool == "votes":
            return self.staging / stage
        return self.staging / stage / f"more-{more}"

    def add(self, stage: str, more: int, tasks: list[dict[str, Any]]) -> None:
        key = (stage, more if self.tool == "label-studio" else 0)
        if key not in self.batches:
            self.batches[key], self.numbers[key] = [], 0
            if self.tool == "label-studio":
                self._project(stage, more)
        for task in tasks:
            self.batches[key].append(task)
            self.tasks[stage] = self.tasks.get(stage, 0) + 1
            if len(self.batches[key]) == self.tasks_per_file:
                self._flush(key)

    def _project(self, stage: str, more: int) -> None:
        folder = self.folder(stage, more)
        config = nq_config() if stage == "nq" else jnq_config(stage)
        write_file(folder / "config.xml", config.encode("utf-8"))
        title = f"{self.release.dataset} {self.release.version} {stage} (+{more})"
        instructions = nq_instructions() if stage == "nq" else ""
        settings = project_settings(title, config, more, instructions)
        write_file(folder / "project.json",
               to_json_bytes(suggested_project(settings, self.suggestions)))

    def _flush(self, key: tuple[str, int]) -> None:
        write_tasks(self.folder(*key), self.tool, self.batches[key], self.numbers[key])
        self.batches[key], self.numbers[key] = [], self.numbers[key] + 1

    def close(self) -> None:
        for key in sorted(self.batches):
            if self.batches[key]:
                self._flush(key)


def _open_requests(options: NextOptions, votes: dict[str, list],
                   confident: Confident | None = None
                   ) -> Iterator[tuple[Request, dict[str, Any]]]:
    release = options.release
    key = "example_id" if base_dataset(release) == "nq" else "id"
    for split in options.splits or release.splits:
        for example in read_examples(release, split):
            item = str(example[key])
            for request in requests_for(release, split, example, options.ways[split],
                                        votes.get(item, []), options.thresholds,
                                        confident):
                yield request, example


def next_round(options: NextOptions) -> dict[str, Any]:
    """Write the next round's requests and tasks under ``options.out``; returns the round's
    manifest (also written as ``annotation_next.json``)."""
    check_next(options)
    release = options.release
    base = base_dataset(release)
    suggestions = options.suggestions
    if suggestions is not None:
        suggestions.check_ids(item_ids(release, options.splits or release.splits))
    votes, refused = read_round_votes(options.votes, base)
    gold = options.gold and gold_mix(options.gold, release, options.splits or release.splits,
                                     votes)
    confident = (confident_round(options.stop, [v for judged in votes.values() for v in judged],
                                 options.thresholds) if options.stop.confident else None)
    out = Path(options.out)
    staging = out.with_name(f".{out.name}.partial")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    folders = _Folders(staging, release, options.tool, options.tasks_per_file, suggestions)
    items: set[str] = set()
    judgments: dict[str, int] = {}
    with open(staging / REQUESTS, "w", encoding="utf-8") as handle:
        for request, example in mixed(gold, _open_requests(options, votes, confident)):
            handle.write(json.dumps(request.record(base), ensure_ascii=False, sort_keys=True)
                         + "\n")
            items.add(request.item)
            judgments[request.stage] = judgments.get(request.stage, 0) + request.more
            tasks = _tasks(release, request, example)
            if suggestions is not None:
                tasks = [suggestions.apply(task, example, request.stage, options.tool)
                         for task in tasks]
            folders.add(request.stage, request.more, tasks)
    folders.close()
    splits = list(options.splits or release.splits)
    manifest = {"release": release.describe(), "tool": options.tool,
                "ways": {split: options.ways[split] for split in splits}, "splits": splits,
                "votes": sorted(options.votes), "items_with_votes": len(votes),
                "votes_refused": refused, "open_items": len(items),
                "judgments_requested": sum(judgments.values()),
                "judgments_per_stage": dict(sorted(judgments.items())),
                "tasks": dict(sorted(folders.tasks.items()))}
    if confident is not None:
        manifest["stop"] = options.stop.describe()
    return finish_directory(staging, out, NEXT_MANIFEST, finish_manifest(manifest, gold),
                            suggestions)


def round_summary(manifest: dict[str, Any]) -> str:
    """``open items: N; judgments requested: M``, or ``all decided``."""
    if not manifest["open_items"]:
        return "all decided"
    return (f"open items: {manifest['open_items']}; "
            f"judgments requested: {manifest['judgments_requested']}")
