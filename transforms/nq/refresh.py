"""What a refresh (``--previous``) of NQ and JNQ carries, and how.

**The unit is a normalized question** that passes this run's query stage (log aggregation,
users within the window, the length and heuristic or pattern rules): those stages are cheap and
always run in full, so a question that no longer passes them is gone (``refresh.removed``).
A question the previous release has an example of keeps that example as it was published:
the same page revision, tokens and candidates (JNQ: paragraphs and candidates), the same id
and split, with no search and no page request. Other questions are linked, fetched and
tokenized as in a full build, except those the previous release dropped for a lasting reason
(no Wikipedia page in the top 5, a missing or redirect page, no candidates: their drop is
kept, ``transforms.nq.refresh_drops``); a failed search or fetch is tried again.

``--relink`` asks for fresh pages: every question still in the log is linked again
(``refresh.recomputed``) and nothing is carried; the row options must still match.

**With ``--stop-after questions``** the release is the query stage's own output, which a
refresh computes in full anyway, and whose rows (events, users, variants) describe this log:
nothing is worth carrying. ``--previous`` still records the lineage and the card's "Changes
since" (questions added and removed), with every row rebuilt (``recompute_all``).

NQ carries each example as the bytes it was published as, its HF Parquet row and its
``nq_original`` gzip member (``transforms.nq.carried``), written again as they are, so its
carried rows are the same bytes in both formats; JNQ carries its Parquet rows.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from transforms.core.errors import UsageError
from transforms.nq.carried import example_key, paired_files, read_carried
from transforms.nq.counters import LASTING_DROPS
from transforms.nq.previous_read import DROPS, EXAMPLES, PreviousFiles
from transforms.nq.refresh_drops import CarryDrops, drop_files
from transforms.release.refresh.carry import Carry, ParquetKeys
from transforms.release.refresh.previous import PreviousRelease

UNIT = ("a normalized question that still passes the query stage: its example (page "
        "revision, tokens, candidates) is carried unless --relink")


def question_key(row: dict[str, Any]) -> str:
    """The unit key of a question row of the query stage (and of a JNQ row)."""
    return row["question"]


def published_key(row: dict[str, Any]) -> str:
    """The unit key of a published NQ row: the HF layout's ``question.text``, or the
    ``question`` of a question row (``nq_questions``, JNQ)."""
    question = row["question"]
    return question["text"] if isinstance(question, dict) else question


def check_refresh_options(options: Any, questions_only: bool) -> Any:
    """``options`` as a refresh runs them: ``--relink`` needs ``--previous`` and examples
    (``UsageError`` otherwise); with ``--stop-after questions`` and ``--previous`` every row is
    rebuilt (``recompute_all``; see the module docstring)."""
    if options.relink and not options.previous:
        raise UsageError("--relink only applies with --previous")
    if options.relink and questions_only:
        raise UsageError("--relink links questions again: with --stop-after questions "
                         "nothing is linked")
    if questions_only and options.previous and not options.recompute_all:
        return dataclasses.replace(options, recompute_all=True)
    return options


def refresh_note(options: Any, questions_only: bool) -> str:
    """What the card and summary say a refresh did, when it is not the default carry
    (``Plan.refresh_note``): ``--recompute-all`` given by the user needs no note."""
    if not options.previous:
        return ""
    if questions_only:
        return ("every row was recomputed: question rows (--stop-after questions) hold this "
                "log's counts, so none is carried")
    if options.relink and not options.recompute_all:
        return ("--relink: every question still in the log was searched and its page "
                "fetched again, so nothing was carried")
    return ""


def original_files(previous: PreviousRelease | None) -> list[tuple[str, str, str]] | None:
    """``(split, nq_original name, paired Parquet shard or "")`` of every NQ original-format
    file of ``previous`` (``transforms.nq.carried.paired_files``)."""
    if previous is None:
        return None
    return paired_files(previous.all_files, previous.splits)


def previous_files(plan: Any, questions_only: bool, outcomes: list[str]
                   ) -> PreviousFiles | None:
    """What an NQ refresh reads of the previous release (``previous_read``): the recorded
    ``outcomes`` files, and for examples without ``--relink`` or ``--recompute-all`` the
    carried examples and the lasting drops; None without a previous release or files."""
    options, previous = plan.options, plan.previous
    if previous is None:
        return None
    relink = options.recompute_all or options.relink
    linked = not questions_only and not relink
    files = PreviousFiles(outcomes, original_files(previous) if linked else [],
                          drop_files(previous) if linked else [])
    return files if files.items() else None


class LinkingRefresh:
    """The refresh of an examples release around the linking stages: ``to_link`` keeps the
    questions to link (no example and no lasting drop in the previous release; every one with
    ``--relink`` or ``--recompute-all``), ``finish`` adds the carried examples (NQ's
    ``PackedExample`` with ``original``, else the Parquet rows) and returns the
    accounting of the refresh. A pass-through without a previous release. ``read``: NQ's
    ``previous_read.ReadPrevious`` output (the carried examples and the drops, read with the
    outcomes), None to read them here."""

    def __init__(self, pbegin, plan: Any, *, original: bool,
                 lasting: frozenset[str] = LASTING_DROPS, read=None):
        options, previous = plan.options, plan.previous
        relink = options.recompute_all or options.relink
        keys = ParquetKeys(("question",), published_key)  # the Parquet question column only
        rows, drops = (read[EXAMPLES], read[DROPS]) if read is not None else (None, None)
        if original:
            self.carry = Carry(pbegin, previous, example_key, recompute_all=relink,
                               files=original_files(previous), reader=read_carried,
                               keys=(previous.split_files() if previous else None, keys),
                               join_rows=True, rows=rows)  # references, joined
        else:
            self.carry = Carry(pbegin, previous, question_key, recompute_all=relink,
                               keys=(None, keys), rows=rows)
        self.drops = CarryDrops(pbegin, previous, lasting, relink=relink, drops=drops)

    def to_link(self, questions):
        """The question rows the linking stages process."""
        return self.drops.fresh(self.carry.fresh(questions, question_key))

    def finish(self, examples) -> tuple[Any, list]:
        """``(every example as (split, row), [accounting results])``."""
        return self.carry.finish(examples, also=self.drops.joined())


def question_carry(pbegin, plan: Any) -> Carry:
    """The ``Carry`` of a question release: nothing carried, the changes counted."""
    return Carry(pbegin, plan.previous, question_key, recompute_all=True,
                 keys=(None, ParquetKeys(("question",), published_key)))
