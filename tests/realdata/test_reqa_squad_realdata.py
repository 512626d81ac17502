"""ReQA on the real SQuAD v1.1 dev file (../shared/data/squad; skipped when absent) with
``--splitter reqa``, against the figures of the authors' evaluation tool.

``squad_eval.py`` (google/retrieval-qa-eval) prints ``index size=10250 questions=11426`` on the
official dev file: 10,250 distinct (sentence, paragraph) candidates and 11,426 (question,
answer sentence) pairs, the sentence being the one holding each answer's ``answer_start``.

* The index depends on the contexts only: our rules give **10,250** exactly, and so does the
  release (``candidates``: no paragraph repeats a sentence, so our per-offset candidates and
  the tool's per-text ones coincide).
* The shared file's ``answer_start`` is the first occurrence of the answer text (its
  provenance: the explorer pages carry no offsets), so an answer whose text occurs earlier
  in its paragraph points at that earlier sentence: **11,395** pairs with the tool's own
  counting, 31 fewer than 11,426. It is not a splitter difference.
* Our release counts questions differently: one row per distinct question text (10,539 of
  10,570 questions; 31 texts repeat), correct sentences = every sentence an answer span
  overlaps (23 answers cross a boundary).
"""

from __future__ import annotations

import json

import pytest

from tests.conftest import TEST_RUNNER

pytestmark = pytest.mark.realdata

FILE = "squad/dev-v1.1.json"


@pytest.fixture(scope="module")
def dev(shared_data) -> dict:
    return json.loads((shared_data / FILE).read_text(encoding="utf-8"))


def _squad_eval_counts(data: dict) -> tuple[int, int]:
    """``squad_eval.py``'s index size and question count (its ``generate_examples`` and
    ``_load_data`` loops), with our splitter in place of ``sb_sed``."""
    from filters.text.reqa_sentences import reqa_sentence_spans

    index, pairs = set(), 0
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            text = paragraph["context"]
            spans = reqa_sentence_spans(text)
            index.update((text[s:e], text) for s, e in spans)
            for qa in paragraph["qas"]:
                seen: set[str] = set()
                for answer in qa["answers"]:
                    start = answer["answer_start"]
                    sentence = next((text[s:e] for s, e in spans if s <= start < e), None)
                    if sentence not in seen:
                        seen.add(str(sentence))
                        pairs += 1
    return len(index), pairs


def test_squad_eval_figures(dev):
    index, pairs = _squad_eval_counts(dev)
    assert index == 10_250  # the tool's "index size", exactly
    assert pairs == 11_395  # 11,426 with the official answer_start (module doc)


def test_build_reqa_splitter_reqa(dev, shared_data, tmp_path):
    from pipelines.build_reqa import run

    result = run([TEST_RUNNER, "--source", "squad", "--input", str(shared_data / FILE),
                  "--splitter", "reqa", "--output", str(tmp_path)])
    stats = result["stats"]
    assert stats["examples"]["read"] == stats["examples"]["kept"] == 10_570
    assert stats["candidates"] == 10_250
    assert stats["paragraphs"] == 2_067
    assert stats["questions"] == 10_539
    assert stats["counts"]["questions"]["merged_occurrences"] == 31
    assert stats["counts"]["answers"]["cross_sentence_boundary"] == 23
    baselines = stats["baselines"]
    assert baselines["n"] == 10_539  # every question, both levels
    rows = {row["name"]: row for row in baselines["rows"]}
    assert set(rows) == {"BM25 over sentences", "BM25 over paragraphs (context)"}
    paragraph_index = rows["BM25 over paragraphs (context)"]
    assert paragraph_index["paragraph_mrr"] == pytest.approx(0.821, abs=0.001)
    assert paragraph_index["paragraph_r@1"] == pytest.approx(0.750, abs=0.001)
    assert rows["BM25 over sentences"]["sentence_mrr"] == pytest.approx(0.671, abs=0.001)
