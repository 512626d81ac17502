"""Export annotation tasks from a release, for Label Studio or a crowdsourcing platform.

``export_tasks`` writes, under a new directory, one folder per stage:

* ``--tool label-studio``: ``config.xml`` (the labeling config), ``project.json`` (the body of
  ``POST /api/projects``: title, config, ``maximum_annotations`` = ways) and
  ``tasks-NNNNN.json`` (JSON arrays of tasks, ``--tasks-per-file`` each, for the import
  dialog or ``POST /api/projects/<id>/import``);
* ``--tool votes``: ``tasks-NNNNN.jsonl``, one task's data per line, for a crowd platform
  whose workers' answers come back as votes JSON lines.

``annotation_export.json`` records the release (dataset, version, fingerprint), tool, stages,
ways, splits and the tasks per stage. NQ has one stage (NQ §3.2's three steps in one task);
JNQ and JBoolQ have one per judgment, in the paper's order. A later JNQ stage may be limited
to the items that passed the earlier ones (``earlier_votes``): the good questions, then the
EXIST paragraphs.

With a previous annotated release (``annotate export --previous``, ``previous``), only the
examples that still need judgments are exported: those it did not judge (new, or pending then)
and those whose annotated content changed or that moved to another split
(``previous_items.invalidation``); the manifest records it (``previous``) and how many examples
were left out because their annotations are carried (``carried``).

With a model's predictions (``annotate export --suggestions``, ``suggestions``), the tasks of
the items outside the control group show them (Label Studio pre-annotations, or a votes task's
``suggestion``) and the manifest records every item's suggestion (``suggestions``).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from filters.annotation.jnq import (
    JnqThresholds,
    good_question,
    paragraph_label,
    yes_no_question,
)
from filters.annotation.votes import JnqVote, VoteError, latest_votes, parse_jnq_vote
from filters.text import safe_json
from transforms.annotation.content import content_digest
from transforms.annotation.label_studio.configs import (
    jnq_config,
    nq_config,
    nq_instructions,
    project_settings,
)
from transforms.annotation.label_studio.exports import votes_from_export
from transforms.annotation.label_studio.tasks import jnq_tasks, nq_task
from transforms.annotation.manifest import EXPORT_MANIFEST, ReleaseRef, base_dataset
from transforms.annotation.nq_files import FILES_KEY, NqFilesError, is_nq_files, nq_examples
from transforms.annotation.previous import PreviousAnnotations
from transforms.annotation.previous_items import invalidation, judged_items
from transforms.annotation.read_votes import not_regular_file, of_release
from transforms.annotation.release_examples import iter_lines, split_patterns
from transforms.annotation.suggestions import MANIFEST_KEY, Suggestions, suggested_project
from transforms.core.files import FileSystems
from transforms.core.inputs import beam_pattern
from transforms.core.interrupt import point_of_no_return
from transforms.jnq.labels import as_names
from transforms.release import RAW, to_json_bytes
from transforms.release.formats import read_parquet
from transforms.sources.compressed import CompressionDamage

TOOLS = ("label-studio", "votes")
STAGES = {
    "nq": ("nq",),
    "jnq": ("good_question", "long_answer", "yes_no_question", "yes_no_answer", "span"),
    "jboolq": ("good_question", "yes_no_question", "long_answer", "yes_no_answer"),
}


class ExportError(ValueError):
    """Options that cannot give an export (checked before any work)."""


def check_export(release: ReleaseRef, tool: str, stages: list[str], ways: dict[str, int],
                 splits: list[str], out_dir: str, tasks_per_file: int = 1000) -> None:
    """Refuse a bad tool, stage, split, ways or an output directory that is not new/empty."""
    base = base_dataset(release)
    if base not in STAGES:
        raise ExportError(f"{release.dataset} releases cannot be annotated (nq, jnq, jboolq)")
    if tool not in TOOLS:
        raise ExportError(f"--tool must be one of {', '.join(TOOLS)}")
    unknown = [s for s in stages if s not in STAGES[base]]
    if unknown:
        raise ExportError(f"unknown stage(s) {', '.join(unknown)} for {base}: "
                          f"{', '.join(STAGES[base])}")
    missing = [s for s in splits if s not in release.splits]
    if missing:
        raise ExportError(f"split(s) {', '.join(missing)} not in the release "
                          f"({', '.join(release.splits)})")
    if min(ways.values(), default=1) < 1:
        raise ExportError("--ways must be at least 1")
    if tasks_per_file < 1:
        raise ExportError("--tasks-per-file must be at least 1")
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ExportError(f"--out {out_dir} exists and is not an empty directory; exports "
                          "never overwrite")


def read_examples(release: ReleaseRef, split: str) -> Iterator[dict[str, Any]]:
    """The examples of one split, in file order (NQ original format or JNQ rows), streamed;
    of NQ original-format files (``nq_files``), theirs, each line bounded."""
    if is_nq_files(release):  # Google's NQ files given as --release: one split
        for path in release.manifest[FILES_KEY]:
            yield from nq_examples(path)
        return
    base = base_dataset(release)
    [(_, pattern)] = split_patterns(release.path, base, [split])
    paths = sorted(m.path for m in FileSystems.match([pattern])[0].metadata_list)
    for path in paths:
        if base == "nq":
            for line in iter_lines(path):
                yield json.loads(line)
        else:
            with FileSystems.open(path, compression_type=RAW) as handle:
                yield from map(as_names, read_parquet(handle).to_pylist())


def read_jnq_votes(patterns: Iterable[str], fingerprint: str) -> dict[str, list[JnqVote]]:
    """Earlier stages' JNQ votes by question id, from votes JSON lines or Label Studio exports
    matching ``patterns``. ``ExportError`` when a pattern matches nothing or no vote of this
    release parses (wrong files), and for a file that cannot be read whole (a directory or
    FIFO, damaged compression, an unreadable export): later stages must not be chosen from
    part of the votes. Lines that do not parse and votes of other releases are left out (the
    import reports them)."""
    votes: dict[str, list[JnqVote]] = {}
    for pattern in patterns:
        matched = FileSystems.match([beam_pattern(pattern)])[0].metadata_list
        paths = sorted(m.path for m in matched)
        if not paths:
            raise ExportError(f"--votes {pattern} matches no file")
        for path in paths:
            if not_regular_file(path):
                raise ExportError(f"--votes {path} is not a regular file (a directory, FIFO "
                                  "or device)")
            for number, record in enumerate(_checked_records(path), start=1):
                try:
                    vote = parse_jnq_vote(record, path, number)
                except VoteError:
                    continue
                if of_release(vote, fingerprint):
                    votes.setdefault(vote.question_id, []).append(vote)
    if not votes:
        raise ExportError(f"no JNQ vote of release {fingerprint} in --votes "
                          f"{' '.join(patterns)}: wrong files?")
    return {k: latest_votes(v) for k, v in votes.items()}


def _checked_records(path: str) -> Iterator[Any]:
    try:
        yield from _records(path)
    except CompressionDamage as damage:
        raise ExportError(f"--votes {path} cannot be read whole ({damage.reason}: "
                          f"{damage.error})") from None


def _records(path: str) -> Iterator[Any]:
    lines = iter_lines(path)
    first = next(lines, b"")
    if first.lstrip().startswith(b"["):
        try:
            tasks = safe_json.loads(b"".join([first, *lines]))
            converted = list(votes_from_export(tasks, "jnq"))
        except ValueError as error:  # JSON, UTF-8, too deeply nested, not a task list
            raise ExportError(f"--votes {path} is not a readable Label Studio export: "
                              f"{error}") from None
        yield from (r for r in converted if "error" not in r)
        return
    for line in (first, *lines) if first else ():
        try:
            yield safe_json.loads(line)
        except ValueError:  # JSON, UTF-8, too deeply nested
            yield None


def _count(votes: list[JnqVote], stage: str, paragraph: int | None = None) -> tuple[int, int]:
    chosen = [v for v in votes if v.stage == stage and v.paragraph == paragraph]
    return sum(1 for v in chosen if v.value is True), len(chosen)


def passed_paragraphs(row: dict[str, Any], stage: str, votes: list[JnqVote],
                      t: JnqThresholds, order: str = "jnq") -> list[int] | None:
    """The candidate paragraphs a later stage asks about, given earlier votes (``None``: all
    five); ``[]`` when the question is out: bad (JNQ §3.2), or, where the stage needs it, not
    or ambiguously yes/no (§3.4; in JBoolQ's order, §4, before the long answer)."""
    good, n = _count(votes, "good_question")
    if n and not good_question(good, n, t):
        return []
    yes, n = _count(votes, "yes_no_question")
    kind = yes_no_question(yes, n, t) if n else None
    if stage == "yes_no_question":
        return None
    if stage == "long_answer":
        return [] if order == "jboolq" and kind not in (None, "yes_no") else None
    exist = []
    for paragraph in row["candidate_paragraph_ids"]:
        yes, n = _count(votes, "long_answer", paragraph)
        if n and paragraph_label(yes, n, t) == "EXIST":
            exist.append(paragraph)
    wanted = "yes_no" if stage == "yes_no_answer" else "not_yes_no"
    if kind != wanted:
        return []
    return exist


def _stage_tasks(release: ReleaseRef, stage: str, split: str, examples: Iterable[dict],
                 earlier: dict[str, list[JnqVote]] | None, t: JnqThresholds,
                 suggest: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
                 ) -> Iterator[dict[str, Any]]:
    for example in examples:
        if stage == "nq":
            yield suggest(nq_task(example, split, release.fingerprint), example)
            continue
        paragraphs = None
        if earlier is not None and stage != "good_question":
            paragraphs = passed_paragraphs(example, stage, earlier.get(example["id"], []), t,
                                           base_dataset(release))
            if paragraphs == []:
                continue
        for task in jnq_tasks(example, stage, split, release.fingerprint, paragraphs):
            yield suggest(task, example)


class Unjudged:
    """Which examples still need judgments, given a previous annotated release: those it
    judged with the same content in the same split are left out (and remembered)."""

    def __init__(self, base: str, previous: PreviousAnnotations | None):
        self.base = base
        self.previous = previous
        self.judged = judged_items(previous) if previous is not None else {}
        self.carried: set[str] = set()

    def __call__(self, examples: Iterable[dict[str, Any]], split: str
                 ) -> Iterator[dict[str, Any]]:
        key = "example_id" if self.base == "nq" else "id"
        for example in examples:
            item = str(example[key])
            judged = self.judged.get(item)
            if judged is not None and invalidation(
                    self.base, judged[0], judged[1], split,
                    content_digest(self.base, example)) is None:
                self.carried.add(item)
                continue
            yield example


def item_ids(release: ReleaseRef, splits: Iterable[str]) -> set[str]:
    """The ids of the items (NQ example ids, JNQ / JBoolQ question ids) of ``splits``: the
    ``id`` column of each split's Parquet rows (an NQ release's HF layout holds the example id
    there), read alone; for an NQ split without them, its original-format examples."""
    ids: set[str] = set()
    for split in splits:
        pattern = FileSystems.join(release.path, split, "*.parquet")
        paths = sorted(m.path for m in FileSystems.match([pattern])[0].metadata_list)
        if not paths and base_dataset(release) == "nq":
            ids.update(str(example["example_id"]) for example in read_examples(release, split))
        for path in paths:
            with FileSystems.open(path, compression_type=RAW) as handle:
                ids.update(map(str, read_parquet(handle, ["id"]).column("id").to_pylist()))
    return ids


def write_file(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def export_tasks(release: ReleaseRef, tool: str, stages: list[str], ways: dict[str, int],
                 splits: list[str], out_dir: str, earlier_vote_files: list[str] | None = None,
                 tasks_per_file: int = 1000, thresholds: JnqThresholds | None = None,
                 previous: PreviousAnnotations | None = None,
                 suggestions: Suggestions | None = None) -> dict[str, Any]:
    """Write the tasks of every stage under ``out_dir``; returns the export manifest.

    ``ways`` is per split; Label Studio's ``maximum_annotations`` is per project, so a
    project asks for the most any exported split needs (export splits with different ways
    separately to get each its own). ``previous``: leave out the examples whose judgments
    it holds and that still hold (``Unjudged``). ``suggestions``: show a model's
    predictions on the tasks of the items not in its control group (``suggestions``)."""
    check_export(release, tool, stages, ways, splits, out_dir, tasks_per_file)
    if suggestions is not None:
        suggestions.check_ids(item_ids(release, splits))
    t = thresholds or JnqThresholds()
    unjudged = Unjudged(base_dataset(release), previous)
    earlier = (read_jnq_votes(earlier_vote_files, release.fingerprint)
               if earlier_vote_files else None)
    out = Path(out_dir)
    staging = out.with_name(f".{out.name}.partial")
    if staging.exists():
        shutil.rmtree(staging)
    try:  # a bad line of NQ files met late: no directory is left behind
        counts: dict[str, int] = {}
        for stage in stages:
            folder = staging / stage
            if tool == "label-studio":
                config = nq_config() if stage == "nq" else jnq_config(stage)
                write_file(folder / "config.xml", config.encode("utf-8"))
                title = f"{release.dataset} {release.version} {stage}"
                most = max(ways[split] for split in splits)
                instructions = nq_instructions() if stage == "nq" else ""
                settings = project_settings(title, config, most, instructions)
                write_file(folder / "project.json",
                       to_json_bytes(suggested_project(settings, suggestions)))
            batch: list[dict[str, Any]] = []
            number = total = 0
            for split in splits:
                examples = unjudged(read_examples(release, split), split)
                for task in _stage_tasks(release, stage, split, examples, earlier, t,
                                         lambda task, example, s=stage: suggestions.apply(
                                             task, example, s, tool) if suggestions else task):
                    batch.append(task)
                    total += 1
                    if len(batch) == tasks_per_file:
                        write_tasks(folder, tool, batch, number)
                        batch, number = [], number + 1
            if batch or number == 0:
                write_tasks(folder, tool, batch, number)
            counts[stage] = total
    except NqFilesError:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    manifest = {"release": release.describe(), "tool": tool, "stages": list(stages),
                "ways": {split: ways[split] for split in splits}, "splits": list(splits),
                "tasks": counts,
                "limited_by_earlier_votes": sorted(earlier_vote_files or [])}
    if previous is not None:
        manifest["previous"] = previous.describe()
        manifest["carried"] = len(unjudged.carried)
    return finish_directory(staging, out, EXPORT_MANIFEST, manifest, suggestions)


def finish_directory(staging: Path, out: Path, name: str, manifest: dict[str, Any],
                     suggestions: Any = None) -> dict[str, Any]:
    """Write ``manifest`` (with the suggestions' description) as ``name``, the staged
    directory's last file, then move the directory into place as ``out`` (the empty
    directory the checks may have left there is replaced). Returns the manifest."""
    if suggestions is not None:
        manifest[MANIFEST_KEY] = suggestions.describe()
    write_file(staging / name, to_json_bytes(manifest))
    with point_of_no_return(str(out)):  # not after SIGINT/SIGTERM (transforms.core.interrupt)
        if out.exists():
            out.rmdir()
        staging.rename(out)
    return manifest


def write_tasks(folder: Path, tool: str, batch: list[dict[str, Any]], number: int) -> None:
    if tool == "label-studio":
        write_file(folder / f"tasks-{number:05d}.json",
               json.dumps(batch, ensure_ascii=False, sort_keys=True).encode("utf-8"))
    else:
        lines = [json.dumps(task["data"], ensure_ascii=False, sort_keys=True) for task in batch]
        write_file(folder / f"tasks-{number:05d}.jsonl",
               "".join(line + "\n" for line in lines).encode("utf-8"))
