"""ReQA in the browser: each question with its correct sentence(s) marked in their paragraph
and where BM25 ranked them among all the release's candidate sentences.

The ranks are those of the card's untrained baselines (``transforms.reqa.baselines``): the
same tokenizer (``IndexTokenizer("en")``) and index (``filters.text.bm25``) over every
candidate sorted by id, once by its sentence and once by its paragraph (``context``), ties
to the lower candidate id; here every question is ranked, not only the card's sample. The
candidates are held in memory once (ids, offsets, the paragraphs deduplicated, the two
indexes); the questions are streamed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from transforms.browse import html as h
from transforms.browse.base import Entry, ReleaseView
from transforms.release.tables import Table
from transforms.reqa.schema import CANDIDATES_SCHEMA, QUESTIONS_SCHEMA

INDEX_CHARS = 80
# (key, label as the card's baselines table names it, candidate column indexed)
BM25_FIELDS = (("sentences", "BM25 over sentences", "sentence"),
               ("paragraphs", "BM25 over paragraphs (context)", "context"))
CANDIDATE_COLUMNS = ["candidate_id", "sentence", "context", "paragraph_id", "sentence_start",
                     "sentence_end"]


@dataclass
class Candidates:
    """Every candidate sentence, sorted by id: its paragraph (deduplicated) and offsets."""

    ids: list[str] = field(default_factory=list)
    paragraph: list[int] = field(default_factory=list)
    start: list[int] = field(default_factory=list)
    end: list[int] = field(default_factory=list)
    contexts: list[str] = field(default_factory=list)
    paragraph_ids: list[str] = field(default_factory=list)
    position: dict[str, int] = field(default_factory=dict)

    def sentence(self, i: int) -> str:
        return self.contexts[self.paragraph[i]][self.start[i]:self.end[i]]


class Bm25Ranks:
    """Where BM25 ranks each candidate for a question, per indexed field, as the card's
    baselines rank them (a stable sort of the scores over candidates sorted by id)."""

    def __init__(self, candidates: Candidates, sentences: list[str]):
        from filters.text.bm25 import bm25_retriever
        from transforms.clients.local_search import IndexTokenizer

        self.tokenize = IndexTokenizer("en")
        sentence_tokens = self.tokenize(sentences)
        paragraph_tokens = self.tokenize(candidates.contexts)
        tokens = {"sentence": sentence_tokens,
                  "context": [paragraph_tokens[p] for p in candidates.paragraph]}
        self.indexes = {key: bm25_retriever(tokens[column]) for key, _, column in BM25_FIELDS}
        self.size = len(candidates.ids)

    def scores(self, question: str) -> dict[str, Any]:
        """``{field key: numpy array of every candidate's score}`` for one question."""
        import numpy as np

        words = self.tokenize([question])[0]
        result = {}
        for key, (retriever, vocab) in self.indexes.items():
            query = [t for t in words if t in vocab]
            result[key] = np.asarray(retriever.get_scores(query) if query
                                     else np.zeros(self.size))
        return result

    @staticmethod
    def rank(scores: Any, i: int) -> int:
        """1-based rank of candidate ``i``: higher scores first, ties to the lower id."""
        score = scores[i]
        return 1 + int((scores > score).sum()) + int((scores[:i] == score).sum())


def read_candidates(release: ReleaseView) -> tuple[Candidates, list[str]]:
    """The release's candidates sorted by id and their sentences (for the index)."""
    table = release.table("candidates")
    rows: list[tuple[str, int, int, int, str]] = []
    contexts: dict[str, int] = {}
    store = Candidates()
    if table is not None:
        for row in release.rows(table, CANDIDATE_COLUMNS):
            paragraph = contexts.setdefault(row["context"], len(contexts))
            if paragraph == len(store.contexts):
                store.contexts.append(row["context"])
                store.paragraph_ids.append(row["paragraph_id"])
            rows.append((row["candidate_id"], paragraph, row["sentence_start"],
                         row["sentence_end"], row["sentence"]))
    rows.sort(key=lambda r: r[0])
    sentences = []
    for i, (candidate_id, paragraph, start, end, sentence) in enumerate(rows):
        store.ids.append(candidate_id)
        store.paragraph.append(paragraph)
        store.start.append(start)
        store.end.append(end)
        store.position[candidate_id] = i
        sentences.append(sentence)
    return store, sentences


def _marked(context: str, spans: list[tuple[int, int, str]]) -> str:
    """The paragraph with each ``(start, end, candidate id)`` in an answer-sentence mark;
    a span overlapping the previous one or outside the paragraph is left unmarked."""
    out, at = [], 0
    for start, end, candidate_id in sorted(spans):
        if not (h.is_number(start) and h.is_number(end)) or not at <= start < end <= len(
                context):
            continue
        out.append(h.text(context[at:start]))
        out.append(f'<mark class="answer-sentence" data-candidate-id="{h.attr(candidate_id)}" '
                   f'data-start="{h.attr(start)}" data-end="{h.attr(end)}">'
                   f"{h.text(context[start:end])}</mark>")
        at = end
    out.append(h.text(context[at:]))
    return "".join(out)


def rank_reason(rank: int | None) -> str:
    """The filter's reason of a question by its best sentence rank."""
    if rank is None:
        return "no candidate"
    if rank == 1:
        return "BM25 rank 1"
    return "BM25 rank 2-10" if rank <= 10 else "BM25 rank > 10"


class ReqaRenderer:
    """Renders ReQA questions; the candidates and BM25 indexes are built once."""

    columns = ("question", "document", "correct sentence", "BM25 rank")
    details_per_page = 50
    paper_means: dict[str, float] = {}

    def __init__(self, candidates: Candidates, sentences: list[str], title: str = "ReQA"):
        self.title = title
        self.candidates = candidates
        self.bm25 = Bm25Ranks(candidates, sentences) if candidates.ids else None

    def entries(self, release: ReleaseView, table: Table,
                rows: Iterator[dict[str, Any]]) -> Iterator[Entry]:
        split = table.directory.rsplit("/", 1)[-1]
        for row in rows:
            yield self.entry(row, split)

    def ranks(self, question: str, positions: list[int]) -> dict[str, Any]:
        """Per field: the rank and score of each position, and BM25's first candidate."""
        if self.bm25 is None:
            return {}
        result = {}
        for key, scores in self.bm25.scores(question).items():
            result[key] = {"ranks": [self.bm25.rank(scores, i) for i in positions],
                           "scores": [float(scores[i]) for i in positions],
                           "first": int(scores.argmax()), "any": bool(scores.any())}
        return result

    def entry(self, row: dict[str, Any], split: str) -> Entry:
        """The entry of one question row."""
        known = [c for c in row["correct_candidate_ids"] if c in self.candidates.position]
        positions = [self.candidates.position[c] for c in known]
        ranks = self.ranks(row["question"], positions)
        sentences = [self.candidates.sentence(i) for i in positions]
        best = min(ranks["sentences"]["ranks"]) if positions and ranks else None
        cells = (h.text(row["question"]), h.text(row["document"]),
                 " / ".join(h.text(h.shorten(s, INDEX_CHARS)) for s in sentences)
                 or '<span class="muted">no known candidate</span>',
                 f'<span class="rank">{best}</span>' if best is not None else "—")
        text = " ".join([row["question"], row["document"], *sentences])
        return Entry(key=str(row["qid"]), split=split, cells=cells, text=text,
                     reason=rank_reason(best),
                     detail=self.detail(row, known, positions, ranks))

    def detail(self, row: dict[str, Any], known: list[str], positions: list[int],
               ranks: dict[str, Any]) -> str:
        """The question, its paragraphs with the correct sentences marked, the BM25 ranks."""
        store = self.candidates
        missing = [c for c in row["correct_candidate_ids"] if c not in store.position]
        facts = [f"document {h.text(row['document'])}", f"source {h.text(row['source'])}",
                 f"qid {h.text(row['qid'])}",
                 f"{len(row['correct_candidate_ids'])} correct of {len(store.ids)} candidates"]
        parts = [f'<h2 class="question">{h.text(row["question"])}</h2>',
                 f'<p class="muted">{" · ".join(facts)}</p>']
        by_paragraph: dict[int, list[tuple[int, int, str]]] = {}
        for candidate_id, i in zip(known, positions, strict=True):
            by_paragraph.setdefault(store.paragraph[i], []).append(
                (store.start[i], store.end[i], candidate_id))
        for paragraph, spans in by_paragraph.items():
            parts.append(f'<div class="candidate" data-paragraph-id='
                         f'"{h.attr(store.paragraph_ids[paragraph])}"><p>'
                         f'{_marked(store.contexts[paragraph], spans)}</p></div>')
        if missing:
            parts.append(f'<p class="muted">not in the candidates table: '
                         f'{h.text(", ".join(missing))}</p>')
        if positions and ranks:
            parts.append(self._rank_table(known, positions, ranks))
        return "".join(parts)

    def _rank_table(self, known: list[str], positions: list[int],
                    ranks: dict[str, Any]) -> str:
        store = self.candidates
        head = "".join(f"<th>{h.text(label)}</th>" for _, label, _ in BM25_FIELDS)
        body = []
        for n, (candidate_id, i) in enumerate(zip(known, positions, strict=True)):
            cells = "".join(
                f'<td><span class="rank" data-field="{key}" data-rank="{ranks[key]["ranks"][n]}">'
                f'#{ranks[key]["ranks"][n]}</span> <span class="score">score '
                f'{ranks[key]["scores"][n]:.3f}</span></td>' for key, _, _ in BM25_FIELDS)
            body.append(f'<tr data-candidate-id="{h.attr(candidate_id)}">'
                        f"<td>{h.text(store.sentence(i))}</td>{cells}</tr>")
        notes = []
        for key, label, _ in BM25_FIELDS:
            if not ranks[key]["any"]:
                notes.append(f"{h.text(label)}: no word of the question is in the index.")
            elif min(ranks[key]["ranks"]) > 1:
                first = ranks[key]["first"]
                notes.append(f"{h.text(label)} ranked first: <q>{h.text(store.sentence(first))}"
                             f"</q>")
        return (f'<table class="ranks"><caption>Where BM25 ranked each correct sentence '
                f"among the {len(store.ids)} candidates</caption>"
                f"<thead><tr><th>correct sentence</th>{head}</tr></thead>"
                f'<tbody>{"".join(body)}</tbody></table>'
                + "".join(f'<p class="muted">{note}</p>' for note in notes))

    def measures(self, row: dict[str, Any]) -> dict[str, int]:
        """Question words and the mean words of its correct sentences."""
        result = {"question words": len(row["question"].split())}
        positions = [self.candidates.position[c] for c in row["correct_candidate_ids"]
                     if c in self.candidates.position]
        if positions:
            words = [len(self.candidates.sentence(i).split()) for i in positions]
            result["sentence words"] = round(sum(words) / len(words))
        return result


def expected_schemas(view: ReleaseView) -> list[tuple[Table, pa.Schema]]:
    """The questions (main tables) and the candidates have ReQA's columns and types."""
    candidates = view.table("candidates")
    return ([(table, QUESTIONS_SCHEMA) for table in view.main_tables()]
            + ([(candidates, CANDIDATES_SCHEMA)] if candidates is not None else []))


def make(view: ReleaseView) -> ReqaRenderer:
    """The renderer of a ReQA release: reads its candidates and builds the BM25 indexes."""
    candidates, sentences = read_candidates(view)
    source = view.dataset.removeprefix("reqa_")
    return ReqaRenderer(candidates, sentences,
                        f"ReQA ({source})" if source != view.dataset else "ReQA")
