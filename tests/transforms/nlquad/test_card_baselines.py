"""The card's untrained baselines: the figures of the plain computation (bm25s's index and
``precision_recall_f1`` per window), without a bm25s index or a gold answer normalized per
window."""

import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from filters.text.bm25 import bm25_retriever
from transforms.clients.local_search import IndexTokenizer
from transforms.metrics.baselines import nlquad as windows
from transforms.metrics.nlquad import interval_iou, precision_recall_f1
from transforms.nlquad.card import nlquad_baselines

WORDS = ("the harbour bridge opened in march after repairs while the ferry service stopped "
         "for two weeks because of storm damage to a pier, ferry, bridge; An old-town "
         "council said repairs would cost more than expected").split()


def _reference(rows: list[dict]) -> list[dict]:
    """The baselines as the card computed them before (one bm25s index per question)."""
    length = max(1, round(sum(r["answer_word_end"] - r["answer_word_start"] for r in rows)
                          / len(rows)))
    tokenize = IndexTokenizer("en")

    def bm25(row, words):
        starts = windows.window_starts(len(words), length)
        texts = tokenize([" ".join(words[s:s + length]) for s in starts])
        vocab = {token for tokens in texts for token in tokens}
        query = [t for t in tokenize([row["question"]])[0] if t in vocab]
        if not query:
            return windows.first_window(len(words), length)
        scores = bm25_retriever(texts)[0].get_scores(query)
        start = starts[max(range(len(starts)), key=lambda i: (float(scores[i]), -i))]
        return start, min(start + length, len(words))

    choosers = {
        "first window": lambda r, w: windows.first_window(len(w), length),
        "last window": lambda r, w: windows.last_window(len(w), length),
        "random window": lambda r, w: windows.random_window(len(w), length, r["id"]),
        "BM25 window": bm25,
    }
    table = []
    for name, choose in choosers.items():
        ious, f1s = [], []
        for row in rows:
            words = row["context"].split()
            start, end = choose(row, words)
            ious.append(interval_iou((start, end),
                                     (row["answer_word_start"], row["answer_word_end"])))
            f1s.append(precision_recall_f1(row["answer_text"], " ".join(words[start:end]))[2])
        table.append({"name": name, "iou": sum(ious) / len(ious), "f1": sum(f1s) / len(f1s)})
    return table


def _rows(rng: random.Random, count: int) -> list[dict]:
    rows = []
    for number in range(count):
        context = [rng.choice(WORDS) for _ in range(rng.randint(1, 120))]
        start = rng.randrange(len(context))
        end = rng.randint(start, min(len(context), start + 40))
        rows.append({"id": f"q{number}", "question": " ".join(rng.sample(WORDS, 5)),
                     "context": " ".join(context), "answer_word_start": start,
                     "answer_word_end": end, "answer_text": " ".join(context[start:end])})
    return rows


def _stage(tmp_path, rows: list[dict]) -> str:
    (tmp_path / "dev").mkdir()
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "dev" / "dev-00000-of-00001.parquet")
    return str(tmp_path)


@pytest.mark.parametrize("seed", range(3))
def test_the_figures_of_the_plain_computation(tmp_path, seed):
    rows = _rows(random.Random(seed), 150)
    assert nlquad_baselines(_stage(tmp_path, rows))["rows"] == _reference(rows)


def test_no_bm25s_index_and_each_gold_answer_normalized_once(tmp_path, monkeypatch):
    import bm25s

    from transforms.metrics import nlquad as metrics

    rows = _rows(random.Random(7), 40)
    staged = _stage(tmp_path, rows)
    normalized = []
    monkeypatch.setattr(bm25s.BM25, "index", lambda *a, **k: pytest.fail("a bm25s index"))
    original = metrics.answer_tokens
    monkeypatch.setattr(metrics, "answer_tokens",
                        lambda text: normalized.append(text) or original(text))
    result = nlquad_baselines(staged)
    assert result["n"] == 40 and len(result["rows"]) == 4
    # a row's gold answer once, then each distinct window of the row once (8 per row before:
    # the gold answer and the window for each of the 4 baselines)
    assert normalized[0] == rows[0]["answer_text"]
    assert all(row["answer_text"] in normalized for row in rows)
    assert len(normalized) <= len(rows) * 5
