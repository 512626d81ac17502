"""The command line of ``python -m pipelines.annotate``: its parser, defaults and option types.

``pipelines.annotate`` runs the commands; this module only declares them (``build_parser``),
so that each command's options are in one place and the runner stays small.
"""

from __future__ import annotations

import argparse

from filters.annotation.jnq import JnqThresholds
from filters.annotation.worker_models import AGGREGATES, PAPER
from pipelines.cli.annotate_stop import add_stop_options
from pipelines.cli.errors import UsageError
from pipelines.cli.options import (
    add_release_arguments,
    add_underscore_aliases,
    non_negative_int,
    positive_int,
)
from pipelines.cli.parsers import program, readable_help
from transforms.annotation.export import TOOLS
from transforms.annotation.gold_rounds import check_gold_rate

DATASETS = ("nq", "jnq", "jboolq")
DEFAULT_WAYS = {"nq": "train=1,dev=5,test=5", "jnq": "10", "jboolq": "10"}
DATASET_VERSION = "1.0.0"


def ways_option(spec: str) -> dict[str, int] | int:
    """``5`` (every split) or ``train=1,dev=5,test=5``."""
    try:
        if "=" not in spec:
            value = int(spec)
            if value < 1:
                raise ValueError
            return value
        ways = {}
        for part in spec.split(","):
            name, _, count = part.partition("=")
            ways[name.strip()] = int(count)
            if ways[name.strip()] < 1 or not name.strip():
                raise ValueError
        return ways
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--ways takes a positive integer or split=N,... (got {spec!r})") from None


def ways_for(ways: dict[str, int] | int, splits: list[str]) -> dict[str, int]:
    """``--ways`` per split of ``splits`` (``UsageError`` for a split it names no count for)."""
    if isinstance(ways, int):
        return {split: ways for split in splits}
    missing = [s for s in splits if s not in ways]
    if missing:
        raise UsageError(f"--ways names no count for split(s) {', '.join(missing)}")
    return {split: ways[split] for split in splits}


def share_option(value: str) -> float:
    """A share in [0, 1] (``--spammers``)."""
    try:
        share = float(value)
    except ValueError:
        share = float("nan")
    if not 0.0 <= share <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {value!r}")
    return share


def accuracy_option(spec: str) -> tuple[float, float]:
    """``LOW,HIGH`` with 0 <= LOW <= HIGH <= 1 (``--accuracy``)."""
    low, _, high = spec.partition(",")
    try:
        bounds = (float(low), float(high))
    except ValueError:
        bounds = (float("nan"), float("nan"))
    if not 0.0 <= bounds[0] <= bounds[1] <= 1.0:
        raise argparse.ArgumentTypeError(
            f"--accuracy takes LOW,HIGH with 0 <= LOW <= HIGH <= 1 (got {spec!r})")
    return bounds


COMMAND = "python -m pipelines.annotate import"  # recorded in the manifest; the card names it


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=program("python -m pipelines.annotate"),
        description="Human annotation of NQ, JNQ and JBoolQ releases: export writes annotation "
                    "tasks for a tool, simulate writes votes of a seeded synthetic worker pool, "
                    "import aggregates votes into a versioned annotated release (a Beam "
                    "pipeline).")
    commands = parser.add_subparsers(dest="command", required=True)

    export = commands.add_parser("export", help="write annotation tasks for a tool")
    export.add_argument("--release", required=True, help="release directory (or dataset root "
                        "with LATEST) to annotate, or a glob of Google's NQ original-format "
                        ".jsonl / .jsonl.gz files (one split: --split, default dev)")
    export.add_argument("--tool", choices=TOOLS, default="label-studio",
                        help="label-studio: Label Studio tasks, labeling config and project; "
                             "votes: tasks as JSON lines for a crowd platform whose answers "
                             "come back as votes JSON lines")
    export.add_argument("--out", required=True, help="new directory for the tasks")
    export.add_argument("--stage", action="append", default=[],
                        help="stage(s) to export (default: every stage of the dataset: nq: "
                             "nq; jnq: good_question long_answer yes_no_question "
                             "yes_no_answer span; jboolq: good_question yes_no_question "
                             "long_answer yes_no_answer)")
    export.add_argument("--ways", type=ways_option, default=None,
                        help="judgments per task: N or split=N,... (default as import: nq "
                             "train=1,dev=5,test=5; jnq/jboolq 10); Label Studio's "
                             "maximum_annotations is the most an exported split needs")
    export.add_argument("--split", action="append", default=[],
                        help="split(s) to export (default: every split)")
    export.add_argument("--votes", action="append", default=[],
                        help="JNQ/JBoolQ: glob of earlier stages' votes (JSON lines or Label "
                             "Studio exports); later stages then ask only about the good "
                             "questions and EXIST paragraphs")
    export.add_argument("--tasks-per-file", type=positive_int, default=1000,
                        help="tasks per JSON file written")
    export.add_argument("--previous", default=None, metavar="ANNOTATED",
                        help="an earlier annotated release (version directory, dataset "
                             "directory with LATEST, or 'auto': <root>/<dataset>_annotated "
                             "next to --release): export only the examples it did not judge "
                             "or whose annotated content changed; its ways are the default")
    add_suggestion_options(export)

    simulate = commands.add_parser("simulate", help="write votes of a seeded synthetic "
                                   "worker pool (for demos and tests, never for real data)")
    simulate.add_argument("--release", required=True,
                          help="release directory (or dataset root with LATEST) to vote on")
    simulate.add_argument("--out", required=True, help="votes JSON lines file to write (new)")
    simulate.add_argument("--ways", type=ways_option, default=None,
                          help="judgments per item: N or split=N,... (default as import)")
    simulate.add_argument("--split", action="append", default=[],
                          help="split(s) to vote on (default: every split)")
    simulate.add_argument("--workers", type=positive_int, default=50, help="worker pool size")
    simulate.add_argument("--spammers", type=share_option, default=0.1, metavar="SHARE",
                          help="share of workers answering at random (0 to 1)")
    simulate.add_argument("--accuracy", type=accuracy_option, default=(0.75, 0.95),
                          metavar="LOW,HIGH",
                          help="skill spread: honest workers' accuracies are spread evenly "
                               "over [LOW, HIGH] (a right binary judgment; NQ judgments err "
                               "more, calibrated to NQ §4 at the default)")
    simulate.add_argument("--truth", default=None, metavar="FILE",
                          help="also write the hidden truth the workers were drawn from, one "
                               "JSON line per item (new file)")
    simulate.add_argument("--seed", type=int, default=0,
                          help="seed of the worker pool and its votes (same seed, same votes)")
    simulate.add_argument("--requests", default=None, metavar="FILE",
                          help="answer one round of annotate next (its requests.jsonl) "
                               "instead of every item: each request gets the next workers of "
                               "the item's simulated overlap, with the votes a full "
                               "simulation gives them")
    simulate.add_argument("--votes", action="append", default=[], metavar="GLOB",
                          help="with --requests: the votes so far (who judged what)")

    next_round = commands.add_parser("next", help="write tasks only for the judgments still "
                                     "needed (adaptive rounds, exact curtailment)")
    next_round.add_argument("--release", required=True, help="release directory (or dataset "
                            "root with LATEST) being annotated")
    next_round.add_argument("--votes", action="append", default=[],
                            help="glob of the votes so far (JSON lines or Label Studio "
                                 "exports; repeatable); none: the first round")
    next_round.add_argument("--out", required=True, help="new directory for the round's "
                            "requests.jsonl and tasks")
    next_round.add_argument("--tool", choices=TOOLS, default="votes",
                            help="votes: tasks as JSON lines; label-studio: one project per "
                                 "stage and number of judgments asked (<stage>/more-<m>/)")
    next_round.add_argument("--ways", type=ways_option, default=None,
                            help="the full overlap: N or split=N,... (default as import)")
    next_round.add_argument("--split", action="append", default=[],
                            help="split(s) to ask about (default: every split)")
    next_round.add_argument("--tasks-per-file", type=positive_int, default=1000,
                            help="tasks per file written")
    _add_thresholds(next_round, "the import's: give it the same")
    add_suggestion_options(next_round)
    add_stop_options(next_round)
    next_round.add_argument("--gold", default=None, metavar="FILE",
                            help="known answers (import --gold's file): their questions are "
                                 "never asked as ordinary items; needs --gold-rate")
    next_round.add_argument("--gold-rate", type=gold_rate, default=None, metavar="SHARE",
                            help="with --gold, the share of each round's tasks that are gold "
                                 "items (0 <= SHARE < 1; seeded by --seed), in every stage "
                                 "and project, alike to the others")

    imported = commands.add_parser("import", help="aggregate votes into an annotated release "
                                   "(a Beam pipeline; other --options go to Beam)")
    imported.add_argument("--dataset", choices=DATASETS, required=True,
                          help="the dataset the votes annotate; the release is "
                               "<dataset>_annotated")
    imported.add_argument("--input", action="append", required=True,
                          help="release directory (repeat for jboolq to merge a JNQ release), "
                               "or a glob of NQ original-format / JNQ Parquet files")
    imported.add_argument("--votes", action="append", required=True,
                          help="glob of votes JSON lines or Label Studio JSON exports "
                               "(repeatable)")
    imported.add_argument("--ways", type=ways_option, default=None,
                          help="judgments an item needs: N or split=N,... (default nq "
                               "train=1,dev=5,test=5; jnq/jboolq 10); items with fewer are "
                               "pending")
    imported.add_argument("--no-verify", action="store_true",
                          help="skip re-hashing the input release against its manifest "
                               "(done by default: a damaged release is refused, exit 5)")
    imported.add_argument("--export", default=None,
                          help="the export directory the votes answer (annotation_export."
                               "json): checked to be of this release, its ways the default")
    imported.add_argument("--split", action="append", default=[],
                          help="split(s) to annotate (default every split); with files as "
                               "--input, the split they are (default dev)")
    imported.add_argument("--curtailed", action="store_true",
                          help="jnq/jboolq votes of annotate next rounds: a stage with fewer "
                               "than --ways judgments is decided when no further judgment "
                               "could change its label (the full overlap's decision), not "
                               "pending; the card reports the judgments saved")
    imported.add_argument("--aggregate", choices=AGGREGATES, default=PAPER,
                          help="how votes become labels: paper (its rules), or a "
                               "worker-quality model fitted on every vote: ds (Dawid-Skene), "
                               "mace or glad (crowd-kit: pip install '.[crowd]'); decisions/ "
                               "gives each label's confidence, workers/ each worker's skill "
                               "(NQ's annotations stay as given)")
    imported.add_argument("--gold", default=None, metavar="FILE",
                          help="jnq/jboolq: JSON lines of known answers (question_id, stage, "
                               "paragraph, value): each worker's gold accuracy in workers/; "
                               "gold questions are not published")
    add_stop_options(imported, imported=True)
    _add_thresholds(imported, "the paper's")
    add_release_arguments(imported, "<dataset>_annotated", DATASET_VERSION)
    _add_previous(imported)
    imported.add_argument("--max-rows-per-shard", type=positive_int, default=50_000,
                          help="rows per output file")
    for sub in (export, simulate, next_round, imported):
        add_underscore_aliases(sub)
    return readable_help(parser)


def _add_thresholds(parser: argparse.ArgumentParser, default: str) -> None:
    """The JNQ thresholds (``--workers``, ``--good-question``, ...) as ``t_<name>``."""
    thresholds = JnqThresholds()
    for name in ("workers", "good_question", "exist", "ambiguous", "yes_no_question",
                 "yes_no_ambiguous", "yes_no_answer", "span_min_votes"):
        parser.add_argument(f"--{name.replace('_', '-')}", dest=f"t_{name}",
                            type=non_negative_int, default=getattr(thresholds, name),
                            metavar="N",
                            help=f"JNQ threshold (default {getattr(thresholds, name)}, "
                                 f"{default}; counts out of --workers)")


def control_rate(value: str) -> float:
    """``--control-rate``: a share strictly between 0 and 1."""
    try:
        rate = float(value)
    except ValueError:
        rate = -1.0
    if not 0 < rate < 1:
        raise argparse.ArgumentTypeError(f"--control-rate takes a share between 0 and 1 "
                                         f"(exclusive), got {value!r}")
    return rate


def gold_rate(value: str) -> float:
    """``--gold-rate``: a share with ``0 <= rate < 1``."""
    try:
        return check_gold_rate(float(value))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--gold-rate takes a share with 0 <= SHARE < 1, "
                                         f"got {value!r}") from None


def add_suggestion_options(parser: argparse.ArgumentParser) -> None:
    """``--suggestions``, ``--control-rate`` and ``--seed`` (``export``; ``next`` too)."""
    parser.add_argument("--suggestions", default=None, metavar="PREDICTIONS",
                        help="a model's predictions in qa-evaluate's format (nq: the "
                             "official predictions JSON; jnq/jboolq: {question id: [paragraph "
                             "ids]}; qa-evaluate baseline writes both) shown to annotators: "
                             "Label Studio pre-annotations, or a 'suggestion' field in votes "
                             "tasks")
    parser.add_argument("--control-rate", type=control_rate, default=None, metavar="SHARE",
                        help="with --suggestions, the share of items exported without their "
                             "suggestion (the control group: the card compares agreement "
                             "with the suggestion in both; default 0.1)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the control group (a stable hash of seed and item id)")


PREVIOUS_HELP = ("an earlier annotated release (version directory, dataset directory with "
                 "LATEST, or 'auto': <output>/<dataset>_annotated/LATEST when there is one) "
                 "of this release or an ancestor: carry its judgments, votes included, of "
                 "every example whose annotated content is unchanged")


RECOMPUTE_ALL_HELP = ("with --previous, carry nothing: aggregate every item from the votes "
                      "given (also when --ways or a threshold differs from the previous "
                      "release's); the manifest still names the previous release")


def _add_previous(parser: argparse.ArgumentParser) -> None:
    """``--previous`` and ``--recompute-all`` on ``import`` with annotation help (the release
    options declare them for every builder; added here if they do not)."""
    helps = {"--previous": PREVIOUS_HELP, "--recompute-all": RECOMPUTE_ALL_HELP}
    found = set()
    for action in parser._actions:
        for name in set(action.option_strings) & set(helps):
            action.help = helps[name]
            found.add(name)
    if "--previous" not in found:
        parser.add_argument("--previous", default=None, metavar="ANNOTATED",
                            help=PREVIOUS_HELP)
    if "--recompute-all" not in found:
        parser.add_argument("--recompute-all", action="store_true", help=RECOMPUTE_ALL_HELP)
