"""A seeded synthetic crowd: votes for a release, so the annotation loop runs offline.

These are **simulated annotations**, never real data. Each item gets a hidden truth drawn
from the item itself; each worker of a :class:`WorkerPool` reports it with their own accuracy
or makes a plausible mistake, and spammers answer at random. Every vote is valid (a candidate
index in range, short answers inside the chosen long answer, spans inside the paragraph) and
parses with ``filters.annotation.votes``.

Every random choice comes from a ``random.Random`` seeded with the sha256 of (pool seed, item
id, purpose), so the same release and pool give the same votes, in the same order, on any
machine and in any process (never Python's salted ``hash``).

* NQ (NQ §3.2): one vote per worker per example, in NQ's own annotation fields; an honest
  worker's mistakes follow ``simulate_nq_errors`` (rates fitted to NQ §4's single-annotator
  precision and recall, ``simulate_calibration``).
* JNQ / JBoolQ (JNQ §3.2-3.5, JBoolQ §4): one vote per judgment, stage by stage in the
  order of the variant, as a platform would run it: a stage is only asked about what the
  previous stages' majorities let through (thresholds of JNQ's 10 workers, as fractions).
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from filters.annotation.nq import long_answer_type
from transforms.annotation.simulate_nq_errors import (
    FALSE_LONG_SHORT,
    NQ_ERRORS,
    SPAM_BAD,
    SPAM_NO_ANSWER,
    SPAM_SPAN,
    SPAM_YES_NO,
    NqErrorRates,
    draw_mistake,
)

ORDERS = ("jnq", "jboolq")

# The hidden truth of an NQ example (NQ §3.3: about half of the examples have a long answer,
# about a third a short one).
NQ_P_GOOD = 0.9
NQ_P_LONG = 0.5
NQ_P_PARAGRAPH = 0.8
NQ_P_YES_NO = 0.03
NQ_P_SHORT = 0.7
NQ_MAX_SHORT_TOKENS = 5
NQ_TRUTH_TYPES = ("table", "list", "list_item")

# The hidden truth of a JNQ / JBoolQ question.
JNQ_P_GOOD = 0.85
JNQ_P_YES_NO_QUESTION = {"jnq": 0.1, "jboolq": 0.8}
JNQ_P_EXIST_FIRST = 0.5
JNQ_P_EXIST_OTHER = 0.2
JNQ_P_SPAN = 0.8
JNQ_P_PARAGRAPH_YES_NO = 0.9
JNQ_SPAN_CHARS = (2, 12)

# JNQ §3.2-3.5 thresholds out of 10 workers, applied as fractions of the ways.
WORKERS = 10
GOOD_QUESTION = 6
EXIST = 7
YES_NO_QUESTION = 7
NOT_YES_NO_QUESTION = 3


@dataclass(frozen=True)
class Worker:
    """One synthetic worker: honest ones report the truth with ``accuracy``; spammers answer
    at random (their ``accuracy`` is 0.0)."""

    id: str
    accuracy: float
    spammer: bool = False


@dataclass(frozen=True)
class WorkerPool:
    """A seeded pool of ``size`` workers ``w000``.. with per-worker accuracy spread evenly over
    ``accuracy`` (the skill spread) and a ``spammer_share`` of workers answering
    at random; ``nq_errors`` are the NQ mistake rates (calibrated to NQ §4)."""

    size: int = 50
    accuracy: tuple[float, float] = (0.75, 0.95)
    spammer_share: float = 0.1
    seed: int = 0
    nq_errors: NqErrorRates = NQ_ERRORS

    def __post_init__(self) -> None:
        low, high = self.accuracy
        if self.size < 1:
            raise ValueError("a worker pool needs at least one worker")
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError("accuracy must be (low, high) with 0 <= low <= high <= 1")
        if not 0.0 <= self.spammer_share <= 1.0:
            raise ValueError("spammer_share must be between 0 and 1")

    def workers(self) -> list[Worker]:
        """The pool's workers, the same for the same parameters."""
        return list(_workers(self))


@functools.lru_cache(maxsize=16)
def _workers(pool: WorkerPool) -> tuple[Worker, ...]:
    """Honest workers' accuracies are spread evenly over the range, in a seeded order, so the
    pool's mean accuracy is the range's middle whatever the seed (the NQ calibration holds
    for every pool, not only on average)."""
    rng = _rng(pool.seed, "pool", "workers")
    spammers = set(rng.sample(range(pool.size), round(pool.size * pool.spammer_share)))
    honest = pool.size - len(spammers)
    places = [(rank + 0.5) / honest for rank in range(honest)]
    rng.shuffle(places)
    low, high = pool.accuracy
    width = max(3, len(str(pool.size - 1)))
    workers = []
    for number in range(pool.size):
        spammer = number in spammers
        accuracy = 0.0 if spammer else round(low + (high - low) * places.pop(), 4)
        workers.append(Worker(f"w{number:0{width}d}", accuracy, spammer))
    return tuple(workers)


def _rng(seed: int, item: str, purpose: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}\x1f{item}\x1f{purpose}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def pick_workers(pool: WorkerPool, item_id: str, ways: int) -> list[Worker]:
    """``ways`` distinct workers of the pool for one item (seeded), ordered by id."""
    if not 1 <= ways <= pool.size:
        raise ValueError(f"ways must be between 1 and the pool size {pool.size}, not {ways}")
    chosen = _rng(pool.seed, item_id, "workers").sample(_workers(pool), ways)
    return sorted(chosen, key=lambda worker: worker.id)


def _items(record: Mapping[str, Any], name: str) -> list[Any]:
    """A list column (a list, an array or None) as a list."""
    value = record.get(name)
    return [] if value is None else list(value)


def _with_release(vote: dict[str, Any], release: str | None) -> dict[str, Any]:
    if release is not None:
        vote["release"] = release
    return vote


# ---------------------------------------------------------------------------------------- NQ


@dataclass(frozen=True)
class NqAnswer:
    """One NQ judgment (NQ §3.2): question good, long-answer candidate (-1 none), short-answer
    token spans inside it, or YES/NO."""

    question_good: bool
    long_answer_candidate: int = -1
    short_answers: tuple[tuple[int, int], ...] = ()
    yes_no_answer: str = "NONE"


@dataclass(frozen=True)
class _NqDoc:
    example: Mapping[str, Any]
    tokens: Sequence[Mapping[str, Any]] = field(repr=False)
    candidates: Sequence[Mapping[str, Any]] = field(repr=False)

    def bounds(self, index: int) -> tuple[int, int]:
        candidate = self.candidates[index]
        return candidate["start_token"], candidate["end_token"]

    def text_runs(self, index: int) -> list[tuple[int, int]]:
        """Runs of consecutive non-HTML tokens inside a candidate, as [start, end)."""
        start, end = self.bounds(index)
        runs, run_start = [], None
        for position in range(start, min(end, len(self.tokens))):
            if _is_html(self.tokens[position]):
                if run_start is not None:
                    runs.append((run_start, position))
                run_start = None
            elif run_start is None:
                run_start = position
        if run_start is not None:
            runs.append((run_start, min(end, len(self.tokens))))
        return runs


def _is_html(token: Mapping[str, Any]) -> bool:
    return bool(token.get("html_token", token.get("is_html", False)))


def _nq_doc(example: Mapping[str, Any]) -> _NqDoc:
    return _NqDoc(example, _items(example, "document_tokens"),
                  _items(example, "long_answer_candidates"))


def _token_span(runs: list[tuple[int, int]], rng: random.Random) -> tuple[int, int] | None:
    """1-5 consecutive non-HTML tokens of one run (longer runs more likely)."""
    if not runs:
        return None
    start, end = rng.choices(runs, weights=[e - s for s, e in runs])[0]
    length = rng.randint(1, min(NQ_MAX_SHORT_TOKENS, end - start))
    first = rng.randint(start, end - length)
    return first, first + length


def _plausible_candidate(doc: _NqDoc, rng: random.Random) -> int:
    """A top-level paragraph mostly, sometimes a table or list; earlier ones more likely."""
    kinds = [long_answer_type(doc.example, index) for index in range(len(doc.candidates))]
    paragraphs = [i for i, kind in enumerate(kinds)
                  if kind == "paragraph" and doc.candidates[i].get("top_level", True)]
    others = [i for i, kind in enumerate(kinds) if kind in NQ_TRUTH_TYPES]
    wants_paragraph = rng.random() < NQ_P_PARAGRAPH
    choices = (paragraphs if paragraphs and (wants_paragraph or not others)
               else others or list(range(len(doc.candidates))))
    return rng.choices(choices, weights=[1 / (1 + rank) for rank in range(len(choices))])[0]


def nq_truth(example: Mapping[str, Any], pool: WorkerPool) -> NqAnswer:
    """The hidden truth of an NQ example: good ~90%, a long answer for ~half of the good
    questions, then a 1-5 token short answer (~70%) or YES/NO (~3%)."""
    doc = _nq_doc(example)
    rng = _rng(pool.seed, str(example["example_id"]), "truth")
    if rng.random() >= NQ_P_GOOD:
        return NqAnswer(False)
    if not doc.candidates or rng.random() >= NQ_P_LONG:
        return NqAnswer(True)
    index = _plausible_candidate(doc, rng)
    if rng.random() < NQ_P_YES_NO:
        return NqAnswer(True, index, (), rng.choice(("YES", "NO")))
    span = _token_span(doc.text_runs(index), rng) if rng.random() < NQ_P_SHORT else None
    return NqAnswer(True, index, (span,) if span else ())


def _shifted_span(span: tuple[int, int], low: int, high: int,
                  rng: random.Random) -> tuple[int, int] | None:
    """The span shifted or made longer, staying inside [low, high)."""
    start, end = span
    options = [(start + d, end + d) for d in (-2, -1, 1, 2) if low <= start + d and end + d <= high]
    options += [(start, end + d) for d in (1, 2, 3) if end + d <= high]
    options += [(start - d, end) for d in (1, 2) if start - d >= low]
    return rng.choice(options) if options else None


def _other_candidate(doc: _NqDoc, index: int, rng: random.Random) -> int | None:
    """A candidate nested with the true one (a list and its item), or a neighbour."""
    start, end = doc.bounds(index)
    nested = [i for i, c in enumerate(doc.candidates) if i != index
              and (start <= c["start_token"] < c["end_token"] <= end
                   or c["start_token"] <= start < end <= c["end_token"])]
    neighbours = [i for i in (index - 1, index + 1) if 0 <= i < len(doc.candidates)]
    if nested and (rng.random() < 0.5 or not neighbours):
        return rng.choice(nested)
    return rng.choice(neighbours) if neighbours else None


def _truth_kind(truth: NqAnswer) -> str:
    """The kind of an NQ truth whose mistakes ``simulate_nq_errors.MISTAKES`` lists."""
    if not truth.question_good:
        return "bad"
    if truth.long_answer_candidate < 0:
        return "no_long"
    return "long_short" if truth.short_answers or truth.yes_no_answer != "NONE" else "long_only"


def _with_span(doc: _NqDoc, index: int, rng: random.Random) -> tuple[tuple[int, int], ...]:
    span = _token_span(doc.text_runs(index), rng)
    return (span,) if span else ()


def _wrong_short(truth: NqAnswer, doc: _NqDoc, rng: random.Random) -> NqAnswer:
    """The other YES/NO, or the span shifted or made longer (inside its run of text, else
    inside the long answer)."""
    if truth.yes_no_answer != "NONE":
        return replace(truth, yes_no_answer="NO" if truth.yes_no_answer == "YES" else "YES")
    span = truth.short_answers[0]
    bounds = doc.bounds(truth.long_answer_candidate)
    low, high = next(((s, e) for s, e in doc.text_runs(truth.long_answer_candidate)
                      if s <= span[0] and span[1] <= e), bounds)
    wrong = _shifted_span(span, low, high, rng) or _shifted_span(span, *bounds, rng)
    return replace(truth, short_answers=(wrong,) if wrong else ())


def _nq_mistake(truth: NqAnswer, doc: _NqDoc, mistake: str, rng: random.Random) -> NqAnswer:
    """One kind of mistake (``simulate_nq_errors``) on the truth."""
    if mistake == "flip_good":
        return NqAnswer(not truth.question_good)
    if mistake == "false_long":
        if not doc.candidates:
            return NqAnswer(True)
        index = _plausible_candidate(doc, rng)
        return NqAnswer(True, index,
                        _with_span(doc, index, rng) if rng.random() < FALSE_LONG_SHORT else ())
    if mistake == "other":
        other = _other_candidate(doc, truth.long_answer_candidate, rng)
        if other is None:
            return NqAnswer(True)
        return NqAnswer(True, other, _with_span(doc, other, rng) if truth.short_answers else ())
    if mistake == "drop_short":
        return NqAnswer(True, truth.long_answer_candidate)
    if mistake == "add_short":
        return replace(truth, short_answers=_with_span(doc, truth.long_answer_candidate, rng))
    if mistake == "wrong_short":
        return _wrong_short(truth, doc, rng)
    return NqAnswer(True)  # miss: no answer


def _nq_spam(doc: _NqDoc, rng: random.Random) -> NqAnswer:
    draw = rng.random()
    if draw < SPAM_BAD:
        return NqAnswer(False)
    if draw < SPAM_BAD + SPAM_NO_ANSWER or not doc.candidates:
        return NqAnswer(True)
    index = rng.randrange(len(doc.candidates))
    draw = rng.random()
    if draw < SPAM_SPAN:
        return NqAnswer(True, index, _with_span(doc, index, rng))
    if draw < SPAM_SPAN + SPAM_YES_NO:
        return NqAnswer(True, index, (), rng.choice(("YES", "NO")))
    return NqAnswer(True, index)


def nq_judgment(example: Mapping[str, Any], worker: Worker, pool: WorkerPool) -> NqAnswer:
    """One worker's judgment of one example: the truth, or one of the mistakes of
    ``simulate_nq_errors`` with probability ``rate * (1 - accuracy)`` each (another
    candidate, no answer, a dropped, spurious, shifted or longer span); spammers answer at
    random, mostly "no answer"."""
    doc = _nq_doc(example)
    rng = _rng(pool.seed, str(example["example_id"]), f"vote:{worker.id}")
    if worker.spammer:
        return _nq_spam(doc, rng)
    truth = nq_truth(example, pool)
    mistake = draw_mistake(pool.nq_errors, _truth_kind(truth), 1.0 - worker.accuracy, rng)
    return truth if mistake is None else _nq_mistake(truth, doc, mistake, rng)


def simulate_nq_votes(example: Mapping[str, Any], ways: int, pool: WorkerPool,
                      release: str | None = None) -> list[dict[str, Any]]:
    """``ways`` NQ votes (NQ §3.2 fields) for one NQ original-format example."""
    example_id = str(example["example_id"])
    votes = []
    for worker in pick_workers(pool, example_id, ways):
        answer = nq_judgment(example, worker, pool)
        votes.append(_with_release({
            "example_id": example_id,
            "annotator_id": worker.id,
            "question_good": answer.question_good,
            "long_answer_candidate": answer.long_answer_candidate,
            "short_answers": [{"start_token": s, "end_token": e}
                              for s, e in answer.short_answers],
            "yes_no_answer": answer.yes_no_answer,
        }, release))
    return votes


# ------------------------------------------------------------------------------ JNQ / JBoolQ


@dataclass(frozen=True)
class JnqTruth:
    """The hidden truth of a JNQ / JBoolQ question: good, yes/no question, the candidate
    paragraphs with enough information (EXIST), and per EXIST paragraph a span or a yes/no
    answer (YES/NO/NONE)."""

    good: bool
    yes_no_question: bool
    exist: tuple[int, ...]
    spans: Mapping[int, tuple[int, int] | None]
    yes_no_answers: Mapping[int, str]


def _texts(row: Mapping[str, Any]) -> dict[int, str]:
    return {int(p["id"]): p["text"] or "" for p in _items(row, "paragraphs")}


def _candidates(row: Mapping[str, Any]) -> list[int]:
    """The candidate paragraph ids shown to workers that exist in the row, in order."""
    texts = _texts(row)
    ids: list[int] = []
    for pid in _items(row, "candidate_paragraph_ids"):
        if int(pid) in texts and int(pid) not in ids:
            ids.append(int(pid))
    return ids


def _char_span(text: str, rng: random.Random) -> tuple[int, int] | None:
    """A few characters of the text, not starting or ending on a space."""
    if not text.strip():
        return None
    for _ in range(20):
        length = min(rng.randint(*JNQ_SPAN_CHARS), len(text))
        start = rng.randint(0, len(text) - length)
        if not text[start].isspace() and not text[start + length - 1].isspace():
            return start, start + length
    first = len(text) - len(text.lstrip())
    return first, first + 1


def jnq_truth(row: Mapping[str, Any], pool: WorkerPool, order: str) -> JnqTruth:
    """Good ~85%; a yes/no question mostly for JBoolQ, rarely for JNQ; each candidate EXIST
    (the first paragraph more often); a span (~80%) or the question's YES/NO (~90%) per EXIST
    paragraph."""
    _check_order(order)
    rng = _rng(pool.seed, str(row["id"]), "truth")
    texts = _texts(row)
    good = rng.random() < JNQ_P_GOOD
    yes_no = rng.random() < JNQ_P_YES_NO_QUESTION[order]
    shown = [int(pid) for pid in _items(row, "candidate_paragraph_ids")]
    ranks = dict(zip(shown, _items(row, "candidate_ranks") or range(len(shown)), strict=False))
    exist = tuple(pid for pid in _candidates(row)
                  if rng.random() < (JNQ_P_EXIST_FIRST if ranks.get(pid) == 0
                                     else JNQ_P_EXIST_OTHER))
    answer = rng.choice(("YES", "NO"))
    spans: dict[int, tuple[int, int] | None] = {}
    answers: dict[int, str] = {}
    for pid in exist:
        if yes_no:
            answers[pid] = answer if rng.random() < JNQ_P_PARAGRAPH_YES_NO else "NONE"
        else:
            spans[pid] = _char_span(texts[pid], rng) if rng.random() < JNQ_P_SPAN else None
    return JnqTruth(good, yes_no, exist, spans, answers)


def _check_order(order: str) -> None:
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")


def _wrong_span(span: tuple[int, int] | None, text: str,
                rng: random.Random) -> tuple[int, int] | None:
    if span is None:
        return _char_span(text, rng)
    if rng.random() < 1 / 3:
        return None
    return _shifted_span(span, 0, len(text), rng)


def _jnq_value(stage: str, truth: Any, text: str, worker: Worker, rng: random.Random) -> Any:
    """One worker's value for one judgment: the truth with the worker's accuracy, else a
    plausible mistake; spammers at random."""
    if stage == "span":
        if worker.spammer:
            return None if rng.random() < 0.2 else _char_span(text, rng)
        return truth if rng.random() < worker.accuracy else _wrong_span(truth, text, rng)
    if stage == "yes_no_answer":
        if worker.spammer:
            return rng.choice(("YES", "NO", "NONE"))
        if rng.random() < worker.accuracy:
            return truth
        return rng.choice([a for a in ("YES", "NO", "NONE") if a != truth])
    if worker.spammer:
        return rng.random() < 0.5
    return truth if rng.random() < worker.accuracy else not truth


def _reaches(count: int, ways: int, threshold: int) -> bool:
    """``count`` of ``ways`` reaches ``threshold`` of 10 workers (as a fraction)."""
    return count * WORKERS >= threshold * ways


def simulate_jnq_votes(row: Mapping[str, Any], ways: int, pool: WorkerPool, order: str,
                       release: str | None = None) -> list[dict[str, Any]]:
    """The votes of ``ways`` workers on one JNQ / JBoolQ row, stage by stage.

    All workers judge ``good_question``; a question the majority finds good (>= 6 of 10) goes
    on. JNQ order (§3.2-3.5): ``long_answer`` on each candidate paragraph, ``yes_no_question``,
    then on EXIST paragraphs (>= 7 of 10) ``yes_no_answer`` for a yes/no question (>= 7 of
    10) or ``span`` for a question that is not (<= 3 of 10); an ambiguous one stops. JBoolQ
    order (§4): ``yes_no_question`` (only yes/no questions go on), ``long_answer``, then
    ``yes_no_answer`` on EXIST paragraphs."""
    _check_order(order)
    question_id = str(row["id"])
    workers = pick_workers(pool, question_id, ways)
    truth = jnq_truth(row, pool, order)
    texts = _texts(row)
    votes: list[dict[str, Any]] = []

    def judge(stage: str, paragraph: int | None, true_value: Any) -> list[Any]:
        values = []
        for worker in workers:
            rng = _rng(pool.seed, question_id, f"{stage}:{paragraph}:{worker.id}")
            value = _jnq_value(stage, true_value, texts.get(paragraph, ""), worker, rng)
            vote: dict[str, Any] = {"question_id": question_id, "annotator_id": worker.id,
                                    "stage": stage}
            if paragraph is not None:
                vote["paragraph"] = paragraph
            vote["value"] = ({"start": value[0], "end": value[1]}
                             if stage == "span" and value is not None else value)
            votes.append(_with_release(vote, release))
            values.append(value)
        return values

    def long_answers() -> list[int]:
        return [pid for pid in _candidates(row)
                if _reaches(sum(judge("long_answer", pid, pid in truth.exist)), ways, EXIST)]

    def question_kind() -> str:
        yes = sum(judge("yes_no_question", None, truth.yes_no_question))
        if _reaches(yes, ways, YES_NO_QUESTION):
            return "yes_no"
        return "other" if yes * WORKERS <= NOT_YES_NO_QUESTION * ways else "ambiguous"

    if not _reaches(sum(judge("good_question", None, truth.good)), ways, GOOD_QUESTION):
        return votes
    if order == "jnq":
        exist = long_answers()
        kind = question_kind()
    else:
        kind = question_kind()
        if kind != "yes_no":
            return votes
        exist = long_answers()
    for pid in exist:
        if kind == "yes_no":
            judge("yes_no_answer", pid, truth.yes_no_answers.get(pid, "NONE"))
        elif kind == "other":
            judge("span", pid, truth.spans.get(pid))
    return votes
