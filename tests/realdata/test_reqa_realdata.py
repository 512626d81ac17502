"""ReQA on real NQ dev examples (../shared/data/nq; skipped when absent).

The first 3 official dev examples have 5 annotations each. ReQA reads the first annotation
only (NQ train has one): two have a null first long answer and the third a ``<Table>``, so
all three are dropped. To exercise kept examples on the real pages too, every annotation is
also promoted to first place in turn (15 examples): 5 are kept, and each of their correct
sentences contains the short answer.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import TEST_RUNNER

pytestmark = pytest.mark.realdata

FILE = "nq/nq_dev_original_first3.jsonl.gz"
FIRST_ANNOTATION = {
    "what purpose did seasonal monsoon winds have on trade": "null_long_answer",
    "where did they film high school musical two": "null_long_answer",
    "who got the first nobel prize in physics": "long_answer_not_paragraph",
}
# (question, annotation index) -> outcome when that annotation comes first
PROMOTED = {
    **{("what purpose did seasonal monsoon winds have on trade", i): "null_long_answer"
       for i in range(3)},
    ("what purpose did seasonal monsoon winds have on trade", 3): "kept",
    ("what purpose did seasonal monsoon winds have on trade", 4): "not_one_short_answer",
    **{("where did they film high school musical two", i): "null_long_answer"
       for i in range(5)},
    ("who got the first nobel prize in physics", 0): "long_answer_not_paragraph",
    **{("who got the first nobel prize in physics", i): "kept" for i in range(1, 5)},
}


@pytest.fixture(scope="module")
def examples(shared_data) -> list[dict]:
    with gzip.open(shared_data / FILE, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _short_answer_text(example: dict) -> str:
    short = example["annotations"][0]["short_answers"][0]
    return " ".join(t["token"] for t in example["document_tokens"][
        short["start_token"]:short["end_token"]] if not t["html_token"])


def _promoted(examples: list[dict]) -> list[dict]:
    out = []
    for example in examples:
        for index, annotation in enumerate(example["annotations"]):
            rest = [a for i, a in enumerate(example["annotations"]) if i != index]
            out.append({**example, "example_id": f"{example['example_id']}-a{index}",
                        "question_text": example["question_text"],
                        "annotations": [annotation, *rest]})
    return out


def test_first_annotation_outcomes(examples):
    from transforms.reqa.nq_source import nq_task
    from transforms.reqa.tasks import Drop

    outcomes = {e["question_text"]: nq_task(e) for e in examples}
    assert {q: o.reason for q, o in outcomes.items() if isinstance(o, Drop)} == \
        FIRST_ANNOTATION
    table = outcomes["who got the first nobel prize in physics"]
    assert table.detail == "<Table>"


def test_promoted_annotations_and_answer_sentences(examples):
    from filters.text.sentences import load_sentence_pipeline, split_sentences
    from transforms.reqa.labeling import label_task
    from transforms.reqa.nq_source import nq_task
    from transforms.reqa.tasks import Drop

    nlp = load_sentence_pipeline()
    seen = {}
    for example in _promoted(examples):
        key = (example["question_text"], int(example["example_id"].rsplit("-a", 1)[1]))
        task = nq_task(example)
        if isinstance(task, Drop):
            seen[key] = task.reason
            continue
        labeled = label_task(task, [split_sentences(nlp, p.text) for p in task.paragraphs])
        (occurrence,) = labeled.occurrences
        sentences = {c["candidate_id"]: c["sentence"] for c in labeled.candidates}
        answer = _short_answer_text(example)
        (start, end), = task.questions[0].spans
        assert task.paragraphs[0].text[start:end] == answer
        correct = [sentences[c] for c in occurrence["correct_candidate_ids"]]
        assert correct and all(answer in s for s in correct), (answer, correct)
        assert len(labeled.candidates) >= 2  # real paragraphs of several sentences
        seen[key] = "kept"
    assert seen == PROMOTED


def test_pipeline_on_the_real_file_and_promoted_copies(shared_data, examples, tmp_path):
    from pipelines.build_reqa import run

    real = run([TEST_RUNNER, "--source", "nq", "--input", str(shared_data / FILE),
                "--output", str(tmp_path / "first"), "--allow-empty"])  # every example drops
    assert real["stats"]["examples"] == {"read": 3, "kept": 0, "dropped": 3, "malformed": 0}
    assert real["stats"]["drop_reasons"] == {"long_answer_not_paragraph": 1,
                                             "null_long_answer": 2}
    promoted = tmp_path / "promoted.jsonl.gz"
    with gzip.open(promoted, "wt", encoding="utf-8") as handle:
        for example in _promoted(examples):
            handle.write(json.dumps(example) + "\n")
    result = run([TEST_RUNNER, "--source", "nq", "--input", str(promoted),
                  "--output", str(tmp_path / "promoted")])
    stats = result["stats"]
    assert stats["examples"] == {"read": 15, "kept": 5, "dropped": 10, "malformed": 0}
    # the four kept Nobel annotations share one paragraph and one question: merged, indexed once
    assert stats["questions"] == 2
    path = Path(result["path"])
    questions = pq.read_table(path / "questions").to_pylist()
    candidates = {c["candidate_id"]: c for c in pq.read_table(path / "candidates").to_pylist()}
    assert len({c["paragraph_id"] for c in candidates.values()}) == 2
    nobel = next(q for q in questions if "nobel" in q["question"])
    assert len(nobel["example_ids"]) == 4
    assert [candidates[c]["sentence"] for c in nobel["correct_candidate_ids"]] == [
        "The first Nobel Prize in Physics was awarded in 1901 to Wilhelm Conrad Röntgen , of "
        "Germany , who received 150,782 SEK , which is equal to 7,731,004 SEK in December "
        "2007 ."]
