"""Gold questions mixed into adaptive rounds: ``annotate next --gold FILE --gold-rate R``.

A gold item is one answer of ``--gold`` (``filters.annotation.gold``): a question, a stage and
(per-paragraph stages) a paragraph. Its question is a control question: ``next`` never asks
it as an ordinary item (``import --gold`` neither aggregates nor publishes it), and mixes its
items into the round's tasks instead:

* after each ordinary request (release order), ``floor(p + u)`` gold requests follow, with
  ``p = R / (1 - R)`` and ``u`` a stable uniform of the seed, the votes read so far and the
  request, so gold is a share ``R`` of the round's tasks (and judgments) in expectation,
  spread at random among them and in every folder: in the same stage, with the same ``more``
  (the same Label Studio project, ``<stage>/more-<m>/``), so every worker meets gold in
  proportion to their work;
* each takes, of the stage's gold items in the round's splits, the one judged by the fewest
  workers so far (ties: a stable hash of the seed and the item), each at most once a round;
  when a stage has none left, the shortfall is reported (``short``), never filled by repeats;
* its task is the ordinary task of that question, stage and paragraph (``jnq_tasks``, the
  suggestions applied alike): nothing in what annotators see tells it apart. Its
  ``requests.jsonl`` line has ``"gold": true`` (for the operator and ``simulate
  --requests``; the import never reads requests), and ``annotation_next.json`` lists the
  round's gold requests under ``gold``.

Same seed, release and votes: same bytes. Without ``--gold`` nothing changes.
"""

from __future__ import annotations

import hashlib
import heapq
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from filters.annotation.gold import gold_questions
from filters.annotation.worker_models import SEPARATOR
from transforms.annotation.export import ExportError, item_ids, read_examples
from transforms.annotation.manifest import ReleaseRef, base_dataset
from transforms.annotation.read_votes import of_release
from transforms.annotation.round_request import Request

GOLD_FIELD = "gold"  # "gold": true on a gold request's requests.jsonl line (never in a task)
MANIFEST_KEY = "gold"  # annotation_next.json's record of the round's gold
GOLD_SHORT = "gold_short"  # the warning: a stage ran out of gold items this round


def check_gold_rate(rate: float) -> float:
    """``--gold-rate``: a share with ``0 <= rate < 1`` (``ValueError`` otherwise)."""
    if not (isinstance(rate, int | float) and math.isfinite(rate) and 0 <= rate < 1):
        raise ValueError(f"--gold-rate takes a share with 0 <= rate < 1, got {rate!r}")
    return float(rate)


def stable_uniform(*parts: object) -> float:
    """A uniform draw in [0, 1) from a SHA-256 of ``parts`` (never the salted ``hash``)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64


@dataclass(frozen=True)
class GoldRounds:
    """``--gold`` answers (``item_key -> answer``), ``--gold-rate`` and the seed."""

    answers: dict[str, str]
    rate: float
    seed: int = 0
    source: str = ""

    def __post_init__(self) -> None:
        check_gold_rate(self.rate)

    @property
    def questions(self) -> frozenset[str]:
        return gold_questions(self.answers)

    def slots(self) -> list[tuple[str, str, int | None]]:
        """The gold items as ``(question_id, stage, paragraph)``, sorted."""
        items = []
        for key in self.answers:
            question, stage, paragraph = key.split(SEPARATOR)
            items.append((question, stage, int(paragraph) if paragraph else None))
        return sorted(items, key=lambda s: (s[0], s[1], -1 if s[2] is None else s[2]))

    def check(self, release: ReleaseRef) -> None:
        """Refuse (``ExportError``) gold for an NQ release and gold questions the release
        does not hold."""
        if base_dataset(release) == "nq":
            raise ExportError("--gold applies to jnq and jboolq (NQ's gold is its 5-way "
                              "annotations)")
        missing = sorted(self.questions - item_ids(release, release.splits))
        if missing:
            shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
            raise ExportError(f"--gold {self.source}: {len(missing)} gold question(s) not in "
                              f"the release ({shown}); a gold task shows the release's "
                              "question")


@dataclass(frozen=True)
class GoldRequest(Request):
    """One gold item asked ``more`` times: a ``Request`` whose line carries the gold flag."""

    def record(self, base: str) -> dict[str, Any]:
        return self.fields("question_id", {GOLD_FIELD: True})


@dataclass
class GoldMix:
    """The gold items of one round: which are left per stage, what was asked, what fell
    short."""

    gold: GoldRounds
    salt: str
    queues: dict[str, list[tuple[int, float, str, int, str]]] = field(default_factory=dict)
    rows: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    asked: list[GoldRequest] = field(default_factory=list)
    short: dict[str, int] = field(default_factory=dict)

    def add_slot(self, question: str, stage: str, paragraph: int | None, judged: int) -> None:
        rank = stable_uniform(self.gold.seed, question, stage, paragraph)
        heapq.heappush(self.queues.setdefault(stage, []),
                       (judged, rank, question, -1 if paragraph is None else paragraph, stage))

    def draw(self, stage: str, more: int) -> tuple[GoldRequest, dict[str, Any]] | None:
        """The stage's least-judged gold item not asked yet this round, or None."""
        queue = self.queues.get(stage)
        if not queue:
            self.short[stage] = self.short.get(stage, 0) + 1
            return None
        _, _, question, paragraph, _ = heapq.heappop(queue)
        split, row = self.rows[question]
        request = GoldRequest(question, split, stage, None if paragraph < 0 else paragraph,
                              more)
        self.asked.append(request)
        return request, row

    def mix(self, requests: Iterable[tuple[Any, dict[str, Any]]]
            ) -> Iterator[tuple[Any, dict[str, Any]]]:
        """The ordinary requests (gold questions' left out), each followed by its gold."""
        odds = self.gold.rate / (1 - self.gold.rate)
        questions = self.gold.questions
        for request, example in requests:
            if request.item in questions:
                continue
            yield request, example
            u = stable_uniform(self.gold.seed, self.salt, request.item, request.stage,
                               request.paragraph)
            for _ in range(math.floor(odds + u)):
                drawn = self.draw(request.stage, request.more)
                if drawn is not None:
                    yield drawn

    def describe(self) -> dict[str, Any]:
        """The manifest's ``gold`` record."""
        per_stage: dict[str, int] = {}
        for request in self.asked:
            per_stage[request.stage] = per_stage.get(request.stage, 0) + 1
        return {"file": self.gold.source, "rate": self.gold.rate, "seed": self.gold.seed,
                "tasks": len(self.asked),
                "judgments": sum(r.more for r in self.asked),
                "tasks_per_stage": dict(sorted(per_stage.items())),
                "short": dict(sorted(self.short.items())),
                "requests": [r.record("jnq") for r in self.asked]}


def _judged(votes: list, stage: str, paragraph: int | None, fingerprint: str) -> int:
    return len({v.annotator_id for v in votes if v.stage == stage
                and v.paragraph == paragraph and of_release(v, fingerprint)})


def gold_mix(gold: GoldRounds, release: ReleaseRef, splits: Iterable[str],
             votes: dict[str, list]) -> GoldMix:
    """The round's gold items, after ``GoldRounds.check`` (before anything is written): those
    of the questions in ``splits`` (one pass over their rows), ordered by how many workers
    judged each in ``votes`` (the votes so far)."""
    gold.check(release)
    questions = gold.questions
    salt = sum(len(v) for v in votes.values())
    mix = GoldMix(gold, f"round-after-{salt}-votes")
    for split in splits:
        for example in read_examples(release, split):
            if str(example["id"]) in questions:
                mix.rows[str(example["id"])] = (split, example)
    for question, stage, paragraph in gold.slots():
        if question not in mix.rows:
            continue  # in another split: a task would show that split
        row = mix.rows[question][1]
        if paragraph is not None and paragraph not in {int(p["id"]) for p in row["paragraphs"]}:
            raise ExportError(f"--gold {gold.source}: question {question} has no paragraph "
                              f"{paragraph}")
        mix.add_slot(question, stage, paragraph,
                     _judged(votes.get(question, []), stage, paragraph, release.fingerprint))
    return mix


def mixed(mix: GoldMix | None, requests: Iterable[tuple[Any, dict[str, Any]]]
          ) -> Iterable[tuple[Any, dict[str, Any]]]:
    """The round's requests with its gold mixed in (unchanged without ``--gold``)."""
    return requests if mix is None else mix.mix(requests)


def finish_manifest(manifest: dict[str, Any], mix: GoldMix | None) -> dict[str, Any]:
    """``manifest`` with the round's ``gold`` record; ``open_items`` counts the undecided
    items only (gold questions are never open: they are known)."""
    if mix is None:
        return manifest
    manifest["open_items"] -= len({r.item for r in mix.asked})
    manifest[MANIFEST_KEY] = mix.describe()
    return manifest


def gold_summary_lines(manifest: dict[str, Any]) -> list[str]:
    """What ``next`` prints about gold: the tasks mixed in and any stage that ran out."""
    record = manifest.get(MANIFEST_KEY)
    if not record or not (record["tasks"] or record["short"]):
        return []
    total = manifest["judgments_requested"]
    share = 100 * record["judgments"] / total if total else 0.0
    lines = [f"gold: {record['tasks']} tasks, {record['judgments']} judgments "
             f"({share:.1f}% of the round's; --gold-rate {record['rate']})"]
    for stage, count in record["short"].items():
        lines.append(f"warning: {GOLD_SHORT}: {count} gold task(s) of stage {stage} not "
                     "mixed in: --gold has no item of that stage in the round's splits left "
                     "unasked this round (add more gold items of that stage)")
    return lines
