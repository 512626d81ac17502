"""ReQA Table 6 baselines (transforms.reqa.baselines): the batched sparse ranks equal a
brute-force ranking of bm25s ``get_scores`` at both levels, for both indexes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from filters.text.bm25 import bm25_retriever
from transforms.clients.local_search import IndexTokenizer
from transforms.reqa.baselines import METRICS, PARAGRAPH_ROW, SENTENCE_ROW, baseline_table

WORDS = ("castle tower river king queen bridge built century stone wall city army river "
         "north south music song band album church bishop school student war peace").split()


def _corpus(seed: int = 7):
    rng = random.Random(seed)
    candidates, questions = [], []
    for p in range(12):
        sentences = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9))) + "."
                     for _ in range(rng.randint(1, 5))]
        context = " ".join(sentences)
        at = 0
        for s in sentences:
            start = context.index(s, at)
            at = start + len(s)
            candidates.append({"candidate_id": f"c{rng.random():.12f}", "sentence": s,
                               "context": context, "paragraph_id": f"p{p:02d}"})
    for q in range(40):
        words = [rng.choice(WORDS) for _ in range(rng.randint(0, 4))]
        if q % 9 == 0:
            words = ["zebra"]  # no word in the index: ranked by id
        correct = rng.sample([c["candidate_id"] for c in candidates], rng.randint(1, 2))
        questions.append({"qid": f"q{q:02d}", "question": " ".join(words) + "?",
                          "correct_candidate_ids": correct})
    return questions, candidates


def _full_rank(scores: np.ndarray, i: int) -> int:
    return 1 + int((scores > scores[i]).sum()) + int((scores[:i] == scores[i]).sum())


def _reference(questions, candidates):
    tokenize = IndexTokenizer("en")
    candidates = sorted(candidates, key=lambda c: c["candidate_id"])
    pos = {c["candidate_id"]: i for i, c in enumerate(candidates)}
    pids = sorted({c["paragraph_id"] for c in candidates})
    para_of = np.array([pids.index(c["paragraph_id"]) for c in candidates])
    text = {c["paragraph_id"]: c["context"] for c in candidates}
    sent_index = bm25_retriever(tokenize([c["sentence"] for c in candidates]))
    para_index = bm25_retriever(tokenize([text[p] for p in pids]))

    def scores(index, question, size):
        retriever, vocab = index
        query = [t for t in tokenize([question])[0] if t in vocab]
        return np.asarray(retriever.get_scores(query) if query else np.zeros(size),
                          dtype=np.float64)

    rows = {SENTENCE_ROW: [], PARAGRAPH_ROW: []}
    for q in questions:
        correct = sorted(pos[c] for c in q["correct_candidate_ids"])
        paras = sorted({int(para_of[i]) for i in correct})
        s = scores(sent_index, q["question"], len(candidates))
        best = np.array([s[para_of == p].max() for p in range(len(pids))])
        rows[SENTENCE_ROW].append(([_full_rank(s, i) for i in correct],
                                   [_full_rank(best, p) for p in paras]))
        p = scores(para_index, q["question"], len(pids))
        spread = p[para_of]
        rows[PARAGRAPH_ROW].append(([_full_rank(spread, i) for i in correct],
                                    [_full_rank(p, j) for j in paras]))
    out = {}
    for name, ranks in rows.items():
        metrics = {}
        for level, col in (("sentence", 0), ("paragraph", 1)):
            metrics[f"{level}_mrr"] = np.mean([1 / min(r[col]) for r in ranks])
            for k in (1, 5, 10):
                metrics[f"{level}_r@{k}"] = np.mean([np.mean([x <= k for x in r[col]])
                                                     for r in ranks])
        out[name] = metrics
    return out


@pytest.mark.parametrize("seed", [7, 11])
def test_batched_ranks_equal_brute_force(seed):
    questions, candidates = _corpus(seed)
    table = baseline_table(questions, candidates)
    assert table["metrics"] == METRICS
    assert table["n"] == len(questions)
    reference = _reference(questions, candidates)
    for row in table["rows"]:
        for metric in METRICS:
            assert row[metric] == pytest.approx(reference[row["name"]][metric], abs=1e-9), \
                (row["name"], metric)


def test_empty_and_unknown_correct_ids():
    assert baseline_table([], [])["rows"] == []
    questions, candidates = _corpus()
    questions.append({"qid": "zz", "question": "castle?", "correct_candidate_ids": ["gone"]})
    table = baseline_table(questions, candidates)
    assert table["n"] == len(questions) - 1
    assert "1 without a correct candidate skipped" in table["note"]
