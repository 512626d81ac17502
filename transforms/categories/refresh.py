"""A refresh (``--previous``) of the category lexicon: the lineage is recorded and every row is
recomputed.

No row of the lexicon belongs to one input: a row adds up the Hearst matches of its lemma over
every paragraph of the corpus (``count``, ``distinct_hyponyms``, the 20 most frequent
hyponyms), so one paragraph added or removed anywhere can change any row. Carrying rows would
need each paragraph's matches, which a release does not keep. A weekly schedule passes
``--previous auto`` to every builder, so refusing it would fail the job; instead a refresh
is a full build that behaves as ``--recompute-all`` (the plan sets it: no option change is
refused, since nothing is carried), records the previous release in the manifest, counts each
lemma as ``refresh.recomputed``, ``new`` or ``removed`` against it, and the card's "Changes
since" says what changed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

import apache_beam as beam

from transforms.release.refresh.carry import Carry
from transforms.release.refresh.previous import PreviousRelease

UNIT = ("none: a lexicon row adds up the matches of the whole corpus, so a refresh recomputes "
        "every row and records the lineage")
NOTE = ("A lexicon row adds up Hearst matches over the whole corpus, so no row can be carried "
        "from one version to the next: every row was recomputed from the corpus (as with "
        "`--recompute-all`).")
REFRESH_NOTE = ("every row was recomputed: a lexicon row adds up the Hearst matches of the "
                "whole corpus, so none can be carried")  # Plan.refresh_note
O = TypeVar("O")  # noqa: E741 - the options dataclass


def row_key(row: dict[str, Any]) -> str:
    """A lexicon row's key: its lemma."""
    return row["lemma"]


def recompute_everything(options: O) -> O:
    """The options of a refresh: ``--previous`` given means ``--recompute-all``."""
    return replace(options, recompute_all=True) if options.previous else options


def count_against_previous(pbegin, previous: PreviousRelease | None, rows, group: str) -> list:
    """The ``refresh.*`` tallies of this run's lexicon ``rows`` against the previous release
    (results for ``WriteAccounting``; none without one): every row is recomputed or new, and
    a previous lemma no row has is removed."""
    if previous is None:
        return []
    carry = Carry(pbegin, previous, row_key, recompute_all=True)
    fresh = carry.fresh(rows, row_key)  # all of them: nothing is carried
    _, results = carry.finish(fresh | "RefreshGroup" >> beam.Map(lambda row: (group, row)))
    return results
