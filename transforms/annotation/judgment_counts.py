"""What adaptive rounds spent: judgments used against a fixed overlap, per gold label.

``import --curtailed`` counts, for every question it decides (``filters.annotation.curtail``):

* ``judgments.used``: the judgments its decisions read (the real votes of every stage and
  paragraph it consulted, as ``votes.used`` counts them);
* ``judgments.full_overlap``: what a fixed overlap of ``ways`` would have spent on the same
  stages and paragraphs (``ways`` each, or the judgments given where more were);
* ``judgments.label.<stage>.<label>`` and ``judgments.decisions.<stage>.<label>``: the
  judgments spent on, and the number of, the decisions of each stage that ended with each
  gold label (``good_question``: good/bad; ``long_answer``: EXIST/AMBIGUOUS/NONE;
  ``yes_no_question``: yes_no/ambiguous/not_yes_no; ``yes_no_answer``: YES/NO/NONE; ``span``:
  span/no_span). Clear-cut labels take few judgments, borderline ones the full overlap.

The card's "Judgments" section and ``stats.json`` (``counts.judgments``) report them. With
``import --stop confident`` (``filters.annotation.sequential``) the same tallies count the
confident rule's stages, and ``stats.json``'s ``stop`` records the rule (``rule``,
``confidence``, ``min_votes``, ``step``, ``model``); NQ counts ``judgments.used`` and
``judgments.full_overlap`` per example.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from filters.annotation.curtail import Curtailment, curtail
from filters.annotation.jnq import JnqResult, JnqThresholds
from filters.annotation.votes import JnqVote
from transforms.annotation.counters import (
    DECISIONS_PER_LABEL,
    JUDGMENTS,
    JUDGMENTS_FULL_OVERLAP,
    JUDGMENTS_PER_LABEL,
    JUDGMENTS_USED,
)
from transforms.core.accounting import tally

STOP_KEY = "stop"  # stats.json: the confident rule of import --stop confident


def _gold_label(stage: str, paragraph: int | None, result: JnqResult, label: Any) -> str:
    if stage == "good_question":
        return "good" if label is True else "bad"
    if stage == "span":
        found = next(p for p in result.paragraphs if p.paragraph_id == paragraph)
        return "span" if found.span else "no_span"
    return str(label)


def judgment_tallies(question_id: str, votes: Sequence[JnqVote], candidates: Sequence[int],
                     order: str, ways: int, t: JnqThresholds, result: JnqResult,
                     state: Curtailment | None = None) -> Iterator[Any]:
    """The ``judgments.*`` tallies of one decided question (``result`` its aggregate;
    ``state`` the stop rule's, default exact curtailment's)."""
    state = state or curtail(question_id, votes, candidates, order, ways, t)
    used = full = 0
    for (stage, paragraph), found in state.states.items():
        used += found.judged
        full += max(found.judged, ways)
        label = _gold_label(stage, paragraph, result, found.label)
        yield tally(JUDGMENTS_PER_LABEL.member(f"{stage}.{label}"), found.judged)
        yield tally(DECISIONS_PER_LABEL.member(f"{stage}.{label}"))
    yield tally(JUDGMENTS_USED, used)
    yield tally(JUDGMENTS_FULL_OVERLAP, full)


def judgment_summary_lines(stats: dict[str, Any]) -> list[str]:
    """The import summary's line: judgments used against a fixed overlap (curtailed only)."""
    counts = stats["counts"].get(JUDGMENTS)
    full = (counts or {}).get(JUDGMENTS_FULL_OVERLAP.name, 0)
    if not full:
        return []
    used = counts.get(JUDGMENTS_USED.name, 0)
    line = f"  judgments used: {used} of a fixed overlap's {full} ({100 * used / full:.1f}%)"
    stop = stats.get(STOP_KEY)
    if stop:
        line += f" (--stop confident --confidence {stop['confidence']})"
    return [line]


def judgment_card_lines(stats: dict[str, Any]) -> list[str]:
    """The card's "Judgments" section (only for a curtailed import)."""
    counts = stats["counts"].get(JUDGMENTS)
    if not counts:
        return []
    used, full = counts.get(JUDGMENTS_USED.name, 0), counts.get(JUDGMENTS_FULL_OVERLAP.name, 0)
    share = f"{100 * used / full:.1f}%" if full else "-"
    stop = stats.get(STOP_KEY)
    rule = ("exact curtailment" if not stop else
            f"`--stop confident --confidence {stop['confidence']} --min-votes "
            f"{stop['min_votes']}`")
    outcome = ("every decision is the one the full overlap gives" if not stop else
               f"a stage was decided once a Dawid-Skene worker model fitted on every vote "
               f"gave its label a posterior of at least {stop['confidence']} (spans: exact "
               "curtailment), so a decision may differ from the full overlap's; `decisions/` "
               "gives each one's confidence")
    lines = ["## Judgments", "",
             f"Adaptive rounds (`annotate next`, {rule}): {used} judgments used, "
             f"{share} of the {full} a fixed overlap would have used on the same stages; "
             f"{outcome}. `yes_votes` and `votes` count the "
             "judgments collected (a decided paragraph may have fewer than the overlap).", "",
             "| stage | gold label | decisions | judgments | per decision |",
             "|---|---|---|---|---|"]
    prefix = f"{DECISIONS_PER_LABEL.prefix}."
    for name, decisions in sorted(counts.items()):
        if not name.startswith(prefix):
            continue
        stage, _, label = name[len(prefix):].partition(".")
        spent = counts.get(f"{JUDGMENTS_PER_LABEL.prefix}.{stage}.{label}", 0)
        lines.append(f"| {stage} | {label} | {decisions} | {spent} | "
                     f"{spent / decisions:.1f} |")
    return lines + [""]
