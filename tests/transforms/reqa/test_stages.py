"""ReQA readers, labeling and merging (transforms.reqa.stages): pure functions and TestPipeline."""

from __future__ import annotations

import gzip
import json

import apache_beam as beam
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from filters.nq.candidates import nq_document
from tests.conftest import TEST_RUNNER
from transforms.core.accounting import DEAD_LETTER, REJECTED, SIDE_OUTPUTS, TALLY
from transforms.reqa.stages import (
    BuildNlquadTasks,
    BuildReqa,
    Drop,
    ParseNlquadFiles,
    ParseNqFiles,
    ParseSquadFiles,
    ReqaTask,
    TaskParagraph,
    TaskQuestion,
    candidate_id,
    label_task,
    merge_question,
    nlquad_key,
    nlquad_task,
    nq_task,
    nq_token_text,
    paragraph_id,
    question_id,
    split_paragraphs,
    squad_task,
)


def _pipeline():
    return test_pipeline.TestPipeline(options=PipelineOptions([TEST_RUNNER]))


def _tallies(pcoll, label: str):
    return pcoll | f"Sum{label}" >> beam.CombinePerKey(sum)


# ------------------------------------------------------------------------------ NQ examples

HTML = ("<html><head><title>Tower</title></head><body><div id=\"mw-content-text\">"
        "<p>The tower is <b>35 m</b> tall. It was built in 1810 by <a href=\"/m\">masons</a>."
        "</p><table><tr><td>Height</td><td>35 m tall</td></tr></table></div></body></html>")


def _tokens_and_candidates():
    tokens, candidates = nq_document(HTML)
    return [t.to_dict() for t in tokens], candidates


def _find(tokens, words: str) -> tuple[int, int]:
    words_list = words.split()
    for i, token in enumerate(tokens):
        if token["html_token"]:
            continue
        got = [t["token"] for t in tokens[i:] if not t["html_token"]][:len(words_list)]
        if got == words_list:
            j, seen = i, 0
            while seen < len(words_list):
                seen += not tokens[j]["html_token"]
                j += 1
            return i, j
    raise ValueError(words)


def nq_example(example_id: int, long_tag: str | None = "p", shorts: tuple[str, ...] = ("35 m",),
               annotations: bool = True) -> dict:
    tokens, candidates = _tokens_and_candidates()
    long_answer = {"start_token": -1, "end_token": -1, "start_byte": -1, "end_byte": -1,
                   "candidate_index": -1}
    if long_tag:
        index = next(i for i, c in enumerate(candidates) if c.tag == long_tag)
        c = candidates[index]
        long_answer = {**c.to_dict(), "candidate_index": index}
        long_answer.pop("top_level")
    short_answers = []
    for words in shorts:
        start, end = _find(tokens, words)
        short_answers.append({"start_token": start, "end_token": end, "start_byte": 0,
                              "end_byte": 0})
    return {"example_id": example_id, "question_text": f"question {example_id}",
            "document_title": "Tower", "document_url": "https://en.wikipedia.org/wiki/Tower",
            "document_html": HTML, "document_tokens": tokens,
            "long_answer_candidates": [c.to_dict() for c in candidates],
            "annotations": [{"annotation_id": 1, "long_answer": long_answer,
                             "short_answers": short_answers, "yes_no_answer": "NONE"}]
            if annotations else []}


def test_nq_token_text_joins_words_and_keeps_offsets():
    tokens = [{"token": "<P>", "html_token": True}, {"token": "The", "html_token": False},
              {"token": "<B>", "html_token": True}, {"token": "tower", "html_token": False},
              {"token": ".", "html_token": False}, {"token": "</P>", "html_token": True}]
    text, spans = nq_token_text(tokens, 0, 6)
    assert text == "The tower ."
    assert spans == {1: (0, 3), 3: (4, 9), 4: (10, 11)}


def test_nq_task_keeps_a_paragraph_with_one_short_answer():
    task = nq_task(nq_example(7))
    assert isinstance(task, ReqaTask)
    (paragraph,) = task.paragraphs
    assert paragraph.text == "The tower is 35 m tall . It was built in 1810 by masons ."
    (question,) = task.questions
    (start, end), = question.spans
    assert paragraph.text[start:end] == "35 m"
    assert (question.example_id, task.document) == ("7", "Tower")
    assert paragraph.paragraph_id == paragraph_id("nq", "Tower", paragraph.text)


def test_nq_answer_span_comes_from_token_offsets_not_string_search():
    example = nq_example(8, shorts=("masons",))
    tokens = example["document_tokens"]
    # the same word twice: the second occurrence is the annotated one
    for token in tokens:
        if token["token"] == "tower":
            token["token"] = "masons"
    task = nq_task(example)
    (start, end), = task.questions[0].spans
    text = task.paragraphs[0].text
    assert text.count("masons") == 2 and text[start:end] == "masons"
    assert start == text.rindex("masons")


@pytest.mark.parametrize("example, reason", [
    (nq_example(1, annotations=False), "no_annotation"),
    (nq_example(2, long_tag=None, shorts=()), "null_long_answer"),
    (nq_example(3, long_tag="table", shorts=("35 m tall",)), "long_answer_not_paragraph"),
    (nq_example(4, shorts=()), "not_one_short_answer"),
    (nq_example(5, shorts=("35 m", "1810")), "not_one_short_answer"),
    (nq_example(6, shorts=("Height",)), "short_answer_outside_long_answer"),
])
def test_nq_task_drop_reasons(example, reason):
    outcome = nq_task(example)
    assert isinstance(outcome, Drop) and outcome.reason == reason


def test_parse_nq_files_accounts_for_every_line():
    lines = [json.dumps(nq_example(1)), "{not json", "", json.dumps(nq_example(2, None, ())),
             json.dumps({"example_id": 3, "question_text": "q"})]
    with _pipeline() as p:
        out = (p | beam.Create([("nq.jsonl", "\n".join(lines))])
               | beam.ParDo(ParseNqFiles()).with_outputs(*SIDE_OUTPUTS, main="main"))
        assert_that(out.main | beam.Map(lambda t: (t.questions[0].example_id,
                                                   t.paragraphs[0].text[:9])),
                    equal_to([("1", "The tower")]), label="tasks")
        assert_that(_tallies(out[TALLY], "T"), equal_to([
            ("input.files", 1), ("input.lines", 4), ("examples.read", 4),
            ("examples.malformed", 2), ("examples.dropped.null_long_answer", 1),
            ("paragraphs.read", 1)]), label="tallies")
        assert_that(out[DEAD_LETTER] | beam.Map(lambda d: (d["line"], d["error_type"])),
                    equal_to([(2, "JSONDecodeError"), (5, "KeyError")]), label="dead")
        assert_that(out[REJECTED] | beam.Map(lambda kv: (kv[0], kv[1]["reason"])),
                    equal_to([("dropped_examples", "null_long_answer")]), label="rejected")


# -------------------------------------------------------------------------------- SQuAD

SQUAD_CONTEXT = "The tower is tall. It was built in 1810. Masons built it."


def squad_json() -> str:
    return json.dumps({"version": "1.1", "data": [{"title": "Tower", "paragraphs": [
        {"context": SQUAD_CONTEXT, "qas": [
            {"id": "a", "question": "When was it built?",
             "answers": [{"text": "1810", "answer_start": SQUAD_CONTEXT.index("1810")},
                         {"text": "in 1810", "answer_start": SQUAD_CONTEXT.index("in 1810")}]},
            {"id": "b", "question": "Who built it?",
             "answers": [{"text": "Masons", "answer_start": 0}]},
            {"id": "c", "question": "Is it tall?", "answers": []},
            {"id": "d", "question": "How tall?",
             "answers": [{"text": "tall", "answer_start": 1},
                         {"text": "tall", "answer_start": SQUAD_CONTEXT.index("tall")}]},
        ]},
        {"context": "No questions here.", "qas": []},
        {"context": 42, "qas": [{"id": "e", "question": "?", "answers": []}]},
    ]}]})


def test_squad_task_checks_answer_offsets():
    data = json.loads(squad_json())["data"][0]
    task, drops, mismatched = squad_task("Tower", data["paragraphs"][0])
    assert [q.example_id for q in task.questions] == ["a", "d"]
    start = SQUAD_CONTEXT.index("in 1810")
    assert task.questions[0].spans == ((start, start + 7), (start + 3, start + 7))
    assert [(d.example_id, d.reason) for d in drops] == [
        ("b", "answer_offset_mismatch"), ("c", "no_answer")]
    assert mismatched == 2  # b's only answer and d's first answer


def test_parse_squad_files_tasks_drops_and_dead_letters():
    with _pipeline() as p:
        out = (p | beam.Create([("squad.json", squad_json()), ("bad.json", "{]")])
               | beam.ParDo(ParseSquadFiles()).with_outputs(*SIDE_OUTPUTS, main="main"))
        assert_that(out.main | beam.Map(lambda t: (t.document, t.paragraphs[0].text[:12],
                                                   len(t.questions))),
                    equal_to([("Tower", "The tower is", 2), ("Tower", "No questions", 0)]),
                    label="tasks")
        assert_that(_tallies(out[TALLY], "T"), equal_to([
            ("input.files", 2), ("input.unreadable_files", 1), ("examples.read", 5),
            ("examples.malformed", 1), ("paragraphs.read", 2),
            ("paragraphs.without_questions", 1), ("answers.dropped.answer_offset_mismatch", 2),
            ("examples.dropped.answer_offset_mismatch", 1), ("examples.dropped.no_answer", 1),
        ]), label="tallies")
        assert_that(out[DEAD_LETTER] | beam.Map(lambda d: (d["stage"], d["error_type"])),
                    equal_to([("input", "JSONDecodeError"), ("examples", "TypeError")]),
                    label="dead")


# ------------------------------------------------------------------------------- NLQuAD

NLQUAD_CONTEXT = "First paragraph here. Still first.\nSecond one. It has two.\n\nThird."


def nlquad_rows() -> list[dict]:
    second = NLQUAD_CONTEXT.index("Second")
    third = NLQUAD_CONTEXT.index("Third")
    base = {"context": NLQUAD_CONTEXT, "document_id": "bbc-1", "title": "T", "url": "u"}
    return [
        {**base, "id": "bbc-1-q1", "question": "What is second?", "answer_start": second,
         "answer_end": third - 2},
        {**base, "id": "bbc-1-q2", "question": "What is third?", "answer_start": third,
         "answer_end": len(NLQUAD_CONTEXT)},
        {**base, "id": "bbc-1-q3", "question": "Broken?", "answer_start": 5, "answer_end": 500},
        {"id": "bbc-2-q1", "question": "No context?"},
    ]


def test_split_paragraphs_skips_blank_lines_and_whitespace():
    spans = split_paragraphs(" a b \n\n  c\n ")
    assert [" a b \n\n  c\n "[s:e] for s, e in spans] == ["a b", "c"]


def test_nlquad_task_paragraph_offsets_and_invalid_spans():
    rows = [nlquad_key(r)[1] for r in nlquad_rows()[:3]]
    task, drops = nlquad_task(rows)
    assert [p.text for p in task.paragraphs] == [
        "First paragraph here. Still first.", "Second one. It has two.", "Third."]
    assert all(NLQUAD_CONTEXT[p.offset:p.offset + len(p.text)] == p.text
               for p in task.paragraphs)
    assert [q.example_id for q in task.questions] == ["bbc-1-q1", "bbc-1-q2"]
    assert [(d.example_id, d.reason) for d in drops] == [("bbc-1-q3", "invalid_answer_span")]
    with pytest.raises(KeyError):
        nlquad_key(nlquad_rows()[3])


def test_parse_nlquad_files_groups_articles():
    with _pipeline() as p:
        rows = (p | beam.Create([("part.parquet", nlquad_rows())])
                | beam.ParDo(ParseNlquadFiles()).with_outputs(*SIDE_OUTPUTS, main="main"))
        tasks = (rows.main | beam.GroupByKey()
                 | beam.ParDo(BuildNlquadTasks()).with_outputs(*SIDE_OUTPUTS, main="main"))
        assert_that(tasks.main | beam.Map(lambda t: (t.document, len(t.paragraphs),
                                                     len(t.questions))),
                    equal_to([("bbc-1", 3, 2)]), label="tasks")
        assert_that(_tallies(rows[TALLY], "Rows"), equal_to([
            ("input.files", 1), ("input.rows", 4), ("examples.read", 4),
            ("examples.malformed", 1)]), label="row_tallies")
        assert_that(_tallies(tasks[TALLY], "Tasks"), equal_to([
            ("paragraphs.read", 3), ("examples.dropped.invalid_answer_span", 1)]),
            label="task_tallies")


# ------------------------------------------------------------------ labels, merge, dedup

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


def test_ids_are_stable_and_distinct():
    assert question_id("squad", "Q") == question_id("squad", "Q") != question_id("nq", "Q")
    pid = paragraph_id("nq", "D", "text")
    assert len(pid) == 24 and pid != paragraph_id("nq", "E", "text")
    assert candidate_id("nq", pid, 0, 4) != candidate_id("nq", pid, 0, 5)


# ------------------------------------------------------------------- whole transform


def test_build_reqa_squad_dedups_paragraphs_and_merges_questions(tmp_path):
    context = "Alpha is first. Beta is second."
    data = {"data": [
        {"title": "A", "paragraphs": [{"context": context, "qas": [
            {"id": "1", "question": "Which is first?",
             "answers": [{"text": "Alpha", "answer_start": 0}]},
            {"id": "2", "question": "Which is second?",
             "answers": [{"text": "Beta", "answer_start": 16}]}]}]},
        {"title": "A", "paragraphs": [{"context": context, "qas": [
            {"id": "3", "question": "Which is first?",
             "answers": [{"text": "first", "answer_start": 9}]}]}]},
    ]}
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(data))
    pid = paragraph_id("squad", "A", context)
    alpha, beta = candidate_id("squad", pid, 0, 15), candidate_id("squad", pid, 16, 31)
    with _pipeline() as p:
        questions, candidates, stats, results = p | BuildReqa("squad", str(path), 2)
        assert_that(questions | beam.Map(lambda r: (r["question"], r["correct_candidate_ids"],
                                                    r["example_ids"])),
                    equal_to([("Which is first?", [alpha], ["1", "3"]),
                              ("Which is second?", [beta], ["2"])]), label="questions")
        assert_that(candidates | beam.Map(lambda r: (r["candidate_id"], r["sentence"],
                                                     r["sentence_start"], r["sentence_end"])),
                    equal_to([(alpha, "Alpha is first.", 0, 15),
                              (beta, "Beta is second.", 16, 31)]), label="candidates")
        assert_that(stats | beam.combiners.Count.PerElement(), equal_to([
            (("all/correct_per_question", 1), 2), (("all/sentences_per_paragraph", 2), 1),
            (("all/sentence_words", 3), 2)]), label="stats")
        tallies = [r[TALLY] for r in results]
        assert_that(_tallies(tallies | beam.Flatten(), "All")
                    | beam.Filter(lambda kv: kv[0].split(".")[0] in ("examples", "questions",
                                                                     "candidates")),
                    equal_to([("examples.read", 3), ("examples.kept", 3),
                              ("questions.unique", 2), ("questions.merged_occurrences", 1),
                              ("candidates.emitted", 4), ("candidates.unique", 2),
                              ("candidates.duplicates", 2)]), label="tallies")


def test_build_reqa_reads_gzipped_nq_and_parquet_nlquad(tmp_path):
    nq_path = tmp_path / "nq-dev-00.jsonl.gz"
    with gzip.open(nq_path, "wt", encoding="utf-8") as handle:
        for example in (nq_example(1), nq_example(2, shorts=("1810",)),
                        nq_example(3, long_tag="table", shorts=("35 m tall",))):
            handle.write(json.dumps(example) + "\n")
    nlquad_dir = tmp_path / "nlquad" / "train"
    nlquad_dir.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(nlquad_rows()[:2]), nlquad_dir / "train-0.parquet")
    with _pipeline() as p:
        nq_questions, nq_candidates, _, _ = p | "Nq" >> BuildReqa("nq", str(nq_path), 2)
        assert_that(nq_questions | beam.Map(lambda r: (r["example_ids"],
                                                       len(r["correct_candidate_ids"]))),
                    equal_to([(["1"], 1), (["2"], 1)]), label="nq_questions")
        # examples 1 and 2 share the paragraph: its two sentences are indexed once
        assert_that(nq_candidates | beam.Map(lambda r: r["sentence"]), equal_to([
            "The tower is 35 m tall .", "It was built in 1810 by masons ."]),
            label="nq_candidates")
        nl_questions, nl_candidates, _, _ = p | "Nlquad" >> BuildReqa(
            "nlquad", str(tmp_path / "nlquad" / "*" / "*.parquet"), 2)
        assert_that(nl_questions | beam.Map(lambda r: (r["question"],
                                                       len(r["correct_candidate_ids"]))),
                    equal_to([("What is second?", 2), ("What is third?", 1)]),
                    label="nl_questions")
        assert_that(nl_candidates | beam.Map(lambda r: (r["context"][:6], r["sentence"])),
                    equal_to([("First ", "First paragraph here."),
                              ("First ", "Still first."), ("Second", "Second one."),
                              ("Second", "It has two."), ("Third.", "Third.")]),
                    label="nl_candidates")
