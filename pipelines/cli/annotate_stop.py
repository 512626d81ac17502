"""``--stop exact|confident``, ``--confidence`` and ``--min-votes`` of ``annotate next`` and
``annotate import`` (``filters.annotation.sequential``), checked before any work (exit 2)."""

from __future__ import annotations

import argparse

from filters.annotation.sequential import (
    CONFIDENT,
    DEFAULT_CONFIDENCE,
    DEFAULT_MIN_VOTES,
    EXACT,
    STOP_RULES,
    StopRule,
    StopRuleError,
)
from pipelines.cli.errors import UsageError
from transforms.annotation.confident import MODEL

CONFIDENT_NEEDS_DS = (f"--stop confident decides with the worker model of the rounds: pass "
                      f"--aggregate {MODEL}")
CONFIDENT_NOT_CURTAILED = ("--stop confident includes the rounds' exact curtailment: drop "
                           "--curtailed")


def add_stop_options(parser: argparse.ArgumentParser, imported: bool = False) -> None:
    """Add ``--stop``, ``--confidence`` and ``--min-votes`` to ``next`` or ``import``."""
    what = ("how the rounds were stopped: exact (see --curtailed) or confident (stages a "
            f"{MODEL} model fitted on every vote is --confidence sure of, with fewer than "
            f"--ways judgments, are decided, not pending; needs --aggregate {MODEL})"
            if imported else
            "when to stop asking about a stage: exact (curtailment: once no further judgment "
            f"can change the paper's label) or confident (also once Dawid-Skene ({MODEL}), "
            "fitted on every vote so far, is --confidence sure of its label; a span once "
            "the skill-weighted posterior of its majority span is)")
    parser.add_argument("--stop", choices=STOP_RULES, default=EXACT, help=what)
    parser.add_argument("--confidence", type=float, default=None, metavar="C",
                        help=f"with --stop confident: the posterior a label needs (0.5 < C < "
                             f"1, default {DEFAULT_CONFIDENCE})")
    parser.add_argument("--min-votes", type=int, default=None, metavar="N",
                        help=f"with --stop confident: the cold start, judgments a stage needs "
                             f"before the model may close it (default {DEFAULT_MIN_VOTES}; "
                             "give import the same)")


def stop_rule(args: argparse.Namespace) -> StopRule:
    """The ``StopRule`` of the options (``UsageError`` for a bad or misplaced value)."""
    stop = getattr(args, "stop", EXACT)
    confidence, min_votes = getattr(args, "confidence", None), getattr(args, "min_votes", None)
    if stop != CONFIDENT:
        if confidence is not None or min_votes is not None:
            raise UsageError("--confidence and --min-votes apply to --stop confident")
        return StopRule()
    try:
        rule = StopRule(CONFIDENT, DEFAULT_CONFIDENCE if confidence is None else confidence,
                        DEFAULT_MIN_VOTES if min_votes is None else min_votes)
    except StopRuleError as error:
        raise UsageError(str(error)) from None
    return rule


def import_stop_rule(args: argparse.Namespace) -> StopRule:
    """``stop_rule`` for ``annotate import``: a confident rule needs ``--aggregate ds`` and
    no ``--curtailed``."""
    rule = stop_rule(args)
    if rule.confident and getattr(args, "curtailed", False):
        raise UsageError(CONFIDENT_NOT_CURTAILED)
    if rule.confident and args.aggregate != MODEL:
        raise UsageError(CONFIDENT_NEEDS_DS)
    return rule
