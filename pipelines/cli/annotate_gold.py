"""``annotate next --gold FILE --gold-rate SHARE``: the typed option, checked before any work.

The file is ``import --gold``'s (``pipelines.cli.annotate_quality.read_gold_file``); the
mixing is ``transforms.annotation.gold_rounds``.
"""

from __future__ import annotations

import argparse

from pipelines.cli.annotate_quality import read_gold_file
from pipelines.cli.errors import UsageError
from transforms.annotation.gold_rounds import GoldRounds


def gold_rounds_of(args: argparse.Namespace, base: str) -> GoldRounds | None:
    """``--gold`` and ``--gold-rate`` as ``GoldRounds`` (None without them); ``UsageError``
    (exit 2) for one without the other, NQ, or an invalid gold file."""
    path, rate = getattr(args, "gold", None), getattr(args, "gold_rate", None)
    if path is None and rate is None:
        return None
    if path is None:
        raise UsageError("--gold-rate needs --gold FILE (the known answers to mix in)")
    if rate is None:
        raise UsageError("--gold needs --gold-rate SHARE (the share of each round's tasks "
                         "that are gold items; 0 mixes none)")
    if base == "nq":
        raise UsageError("--gold applies to jnq and jboolq (NQ's gold is its 5-way "
                         "annotations)")
    return GoldRounds(read_gold_file(path), rate, args.seed, path)
