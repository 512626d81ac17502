"""``annotate import --aggregate`` and ``--gold``: their checks before any work, and the field
docs of the ``workers/`` and ``decisions/`` tables they write
(``transforms.annotation.worker_table``; ``pipelines.cli.annotate_import`` writes them)."""

from __future__ import annotations

import argparse

from filters.annotation.gold import GoldError, parse_gold
from filters.annotation.worker_models import PAPER
from transforms.annotation.worker_fit import require_crowd_kit
from transforms.annotation.worker_table import DECISION_FIELD_DOCS, WORKER_FIELD_DOCS
from transforms.core.errors import UsageError

FIELD_DOCS = {**WORKER_FIELD_DOCS, **DECISION_FIELD_DOCS}
MAX_GOLD_BYTES = 64 << 20


def read_gold_file(path: str | None) -> dict[str, str]:
    """``--gold``'s answers (``filters.annotation.gold``); ``UsageError`` for an unreadable or
    invalid file."""
    if path is None:
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(MAX_GOLD_BYTES + 1)
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--gold {path}: unreadable ({error})") from None
    if len(text) > MAX_GOLD_BYTES:
        raise UsageError(f"--gold {path}: larger than {MAX_GOLD_BYTES >> 20} MiB")
    try:
        gold = parse_gold(text.splitlines(), path)
    except GoldError as error:
        raise UsageError(f"--gold {error}") from None
    if not gold:
        raise UsageError(f"--gold {path} holds no gold answer")
    return gold


def check_quality_options(args: argparse.Namespace) -> None:
    """``--aggregate`` and ``--gold`` before any work (exit 2): NQ takes no ``--gold``,
    ``--curtailed`` is exact for the paper's rules only, a model needs crowd-kit, and the gold
    file must be valid."""
    model = args.aggregate != PAPER
    if args.dataset == "nq" and args.gold:
        raise UsageError("--gold applies to jnq and jboolq (NQ's gold is its 5-way "
                         "annotations)")
    if model and args.curtailed:
        raise UsageError("--curtailed gives the paper's full-overlap decisions: use it with "
                         "--aggregate paper")
    require_crowd_kit(args.aggregate)
    read_gold_file(args.gold)
