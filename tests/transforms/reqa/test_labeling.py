"""ReQA labeling and merging (transforms.reqa.labeling): pure functions."""

from __future__ import annotations

from transforms.reqa.labeling import label_task, merge_question
from transforms.reqa.schema import candidate_id, paragraph_id, question_id
from transforms.reqa.tasks import ReqaTask, TaskParagraph, TaskQuestion


def _task(spans: tuple[tuple[int, int], ...], text: str = "One two. Three four.") -> ReqaTask:
    pid = paragraph_id("squad", "D", text)
    return ReqaTask("squad", "D", (TaskParagraph(pid, text),),
                    (TaskQuestion("x", "Q?", spans),))


def test_label_task_overlap_crossing_and_missing_answers():
    sentences = [[(0, 8), (9, 20)]]
    pid = paragraph_id("squad", "D", "One two. Three four.")
    first, second = candidate_id("squad", pid, 0, 8), candidate_id("squad", pid, 9, 20)
    labeled = label_task(_task(((4, 7),)), sentences)
    assert [c["sentence"] for c in labeled.candidates] == ["One two.", "Three four."]
    assert labeled.occurrences[0]["correct_candidate_ids"] == [first]
    crossing = label_task(_task(((4, 14),)), sentences)
    assert crossing.crossing_answers == 1
    assert crossing.occurrences[0]["correct_candidate_ids"] == sorted([first, second])
    between = label_task(_task(((8, 9),)), sentences)  # only the space between sentences
    assert between.occurrences == []
    assert [d.reason for d in between.drops] == ["answer_not_in_sentences"]


def test_merge_question_unions_answers_of_the_same_text():
    qid = question_id("squad", "When?")
    row = merge_question(qid, [
        {"question": "When?", "source": "squad", "document": "B", "example_id": "2",
         "correct_candidate_ids": ["c2", "c1"]},
        {"question": "When?", "source": "squad", "document": "A", "example_id": "1",
         "correct_candidate_ids": ["c3", "c1"]}])
    assert row == {"qid": qid, "question": "When?", "correct_candidate_ids": ["c1", "c2", "c3"],
                   "source": "squad", "document": "A", "example_ids": ["1", "2"]}
