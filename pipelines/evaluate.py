"""Score predictions against a gold set: NQ, NLQuAD, ReQA or JNQ.

    python -m pipelines.evaluate {nq,nlquad,reqa,jnq} --gold PATH --predictions PATH
        [--threshold N] [--split NAME] [--strict] [--legacy-tokenizer {regex,nltk}]

    python -m pipelines.evaluate baseline {nq,nlquad,reqa,jnq} --gold PATH --out FILE
        [--method NAME] [--split NAME] [--top N] [--overwrite] [--no-verify]

Prints one JSON object (sorted keys) to stdout; warnings go to stderr. ``baseline`` writes
the predictions of an untrained baseline the release's card reports, in the format the task
reads, to a new ``--out`` (``--overwrite`` replaces it). The gold and predictions each task
reads are described in ``transforms.evaluation.gold`` and ``transforms.evaluation.tasks``;
formats, baselines and a worked example in ``docs/guides/evaluation.md``.

``--gold`` may be a dataset root with a ``LATEST`` file: its latest version is read. A gold
release is first checked against its manifest (``--no-verify`` skips it): a damaged release
exits 5. Exit code 2 with a message on stderr for a missing file, malformed JSON or gold, an
unannotated gold, or when none of the prediction ids is in the gold (``--strict``: any
unknown prediction id or gold without a prediction), followed by ``hint:`` lines naming the
likely cause (``transforms.metrics.hints``). This module parses the command line and maps
errors to exit codes; the work is ``transforms.evaluation``'s.
"""

from __future__ import annotations

import argparse
import json
import sys

if __name__ == "__main__":  # --help without importing Beam (pipelines.cli.quick_help)
    from pipelines.cli.quick_help import exit_with_stored_help

    exit_with_stored_help("python -m pipelines.evaluate")
from collections.abc import Callable, Sequence
from typing import Any

from filters.text.terminal import printable
from pipelines.cli.entry import interruptible
from pipelines.cli.errors import EXIT_DAMAGED, EXIT_OK, EXIT_USAGE
from pipelines.cli.parsers import HelpFormatter, program
from transforms import registry
from transforms.evaluation import tasks
from transforms.evaluation.baselines import BASELINES, write_baseline
from transforms.evaluation.errors import EvaluationError
from transforms.evaluation.gold import resolve_latest
from transforms.evaluation.options import BaselineOptions, EvaluationOptions
from transforms.metrics.baselines.output import OutputError
from transforms.release import DamagedReleaseError

__all__ = ["EVALUATORS", "EvaluationError", "build_baseline_parser", "build_parser", "main",
           "options_of", "resolve_latest", "run_baseline"]

PROGRAM = "python -m pipelines.evaluate"


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``evaluate TASK`` (``baseline`` is dispatched before it)."""
    prog = program(PROGRAM)
    parser = argparse.ArgumentParser(
        prog=prog, formatter_class=HelpFormatter,
        description="Score predictions against NQ, NLQuAD, ReQA or JNQ gold; prints JSON.",
        epilog=f"{prog} baseline TASK --gold PATH --out FILE writes an untrained baseline's "
               "predictions in the format TASK reads (baseline --help).")
    parser.add_argument("task", choices=registry.evaluation_tasks(),
                        help="; ".join(f"{task} scores {tasks.ABOUT[task]}"
                                       for task in registry.evaluation_tasks()))
    parser.add_argument("--gold", required=True, help="gold file, glob or release directory")
    parser.add_argument("--predictions", required=True, help="predictions JSON file")
    parser.add_argument("--threshold", type=_positive_int, default=None,
                        help="nq: non-null annotations needed for a gold answer (default 2)")
    parser.add_argument("--split", help="read only this split of a release directory")
    parser.add_argument("--strict", action="store_true",
                        help="unknown prediction ids and gold without predictions are errors")
    parser.add_argument("--no-verify", action="store_true",
                        help="do not check a gold release against its manifest first")
    parser.add_argument("--legacy-tokenizer", choices=("regex", "nltk"), default="regex",
                        help="nlquad: tokenizer of the published script's IoU (iou_legacy)")
    return parser


def build_baseline_parser() -> argparse.ArgumentParser:
    """The parser of ``evaluate baseline TASK``."""
    parser = argparse.ArgumentParser(
        prog=f"{program(PROGRAM)} baseline", formatter_class=HelpFormatter,
        description="Write an untrained baseline's predictions, the ones the release's card "
                    "scores, in the format 'evaluate TASK --predictions' reads.")
    parser.add_argument("task", choices=list(BASELINES), help="the task to predict for")
    parser.add_argument("--gold", required=True,
                        help="the release to predict for, as evaluate's --gold")
    parser.add_argument("--out", required=True,
                        help="predictions JSON to write (its directory must exist)")
    parser.add_argument("--method", help="; ".join(
        f"{task}: {', '.join(methods)} (default {default})"
        for task, (_, methods, default) in BASELINES.items()))
    parser.add_argument("--split", help="predict only this split of a release directory")
    parser.add_argument("--top", type=_positive_int, default=None,
                        help="reqa: keep the first N candidates of each ranking (default all: "
                             "the card's exact ranks)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    parser.add_argument("--no-verify", action="store_true",
                        help="do not check a gold release against its manifest first")
    return parser


def options_of(args: argparse.Namespace) -> EvaluationOptions:
    """The typed options of a parsed ``evaluate TASK`` command line."""
    return EvaluationOptions(gold=args.gold, predictions=args.predictions, split=args.split,
                             strict=args.strict, threshold=args.threshold,
                             legacy_tokenizer=args.legacy_tokenizer)


def _evaluator(task: str) -> Callable[[argparse.Namespace], dict[str, Any]]:
    def evaluate(args: argparse.Namespace) -> dict[str, Any]:
        return tasks.EVALUATORS[task](options_of(args))

    evaluate.__doc__ = tasks.EVALUATORS[task].__doc__
    return evaluate


#: task -> its evaluator, taking parsed arguments whose ``--gold`` is already resolved
EVALUATORS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    task: _evaluator(task) for task in tasks.EVALUATORS}


def run_baseline(argv: Sequence[str]) -> int:
    """``evaluate baseline``: check ``--out``, predict, write atomically; exit 0, 2 or 5."""
    parser = build_baseline_parser()
    args = parser.parse_args(argv)
    _, methods, default = BASELINES[args.task]
    method = args.method or default
    if method not in methods:
        parser.error(f"--method for {args.task}: one of {', '.join(methods)}")
    if args.top is not None and args.task != "reqa":
        parser.error("--top applies to reqa only")
    options = BaselineOptions(task=args.task, gold=args.gold, out=args.out, method=method,
                              split=args.split, top=args.top, overwrite=args.overwrite,
                              verify=not args.no_verify)
    try:
        count = write_baseline(options)
    except OutputError as err:
        print(f"error: {printable(err)}", file=sys.stderr)
        return EXIT_USAGE
    except EvaluationError as err:
        print(f"error: {printable(err.message)}", file=sys.stderr)
        return EXIT_USAGE
    except DamagedReleaseError as err:
        print(f"error: {printable(err)}", file=sys.stderr)
        return EXIT_DAMAGED
    print(f"wrote {count} {args.task} predictions of the {method} baseline to "
          f"{printable(args.out)}")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """The command's ``main``; SIGINT and SIGTERM stop it with one line, exit 130 / 143, and
    a ``gs://`` path without the GCP extra is one line, exit 2 (``interruptible``)."""
    return interruptible(lambda: _main(argv), None if argv is None else list(argv))


def _main(argv: Sequence[str] | None = None) -> int:
    """``evaluate TASK`` (or ``evaluate baseline TASK``); exit 0, 2 or 5."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["baseline"]:
        return run_baseline(argv[1:])
    args = build_parser().parse_args(argv)
    if args.threshold is not None and args.task != "nq":
        print("error: --threshold applies to nq only", file=sys.stderr)
        return EXIT_USAGE
    try:
        result = tasks.evaluate(args.task, options_of(args), verify=not args.no_verify)
    except EvaluationError as err:
        print(f"error: {printable(err.message)}", file=sys.stderr)
        for hint in err.hints:
            print(f"hint: {printable(hint)}", file=sys.stderr)
        return EXIT_USAGE
    except DamagedReleaseError as err:
        print(f"error: {printable(err)}", file=sys.stderr)
        return EXIT_DAMAGED
    print(json.dumps(result, sort_keys=True))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
