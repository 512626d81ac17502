import apache_beam as beam
from apache_beam.testing import test_pipeline
from apache_beam.testing.util import assert_that, equal_to

from filters.annotation.jnq import JnqResult, JnqThresholds
from filters.annotation.votes import parse_jnq_vote
from transforms.annotation.jnq_import import JUDGMENTS, AnnotateJnqRows, import_outcome
from transforms.core.accounting import SIDE_OUTPUTS, TALLY

RUNNER = ["--runner=FnApiRunner"]
ROW = {"id": "q1", "question": "富士山の高さは何メートルですか",
       "paragraphs": [{"id": 0, "text": "富士山は日本一高い山で、標高は3776メートルである。"},
                      {"id": 1, "text": "静岡県と山梨県にまたがる。"}],
       "candidate_paragraph_ids": [0, 1]}


def _votes(ways=10, good=10, exist=(10, 0), yes_no=0, span=(15, 23), release="r"):
    votes = []
    for w in range(ways):
        def vote(stage, value, paragraph=None, w=w):
            record = {"question_id": "q1", "annotator_id": f"w{w}", "stage": stage,
                      "value": value, "release": release}
            if paragraph is not None:
                record["paragraph"] = paragraph
            votes.append(parse_jnq_vote(record))
        vote("good_question", w < good)
        vote("yes_no_question", w < yes_no)
        for paragraph, yes in enumerate(exist):
            vote("long_answer", w < yes, paragraph)
        vote("span", {"start": span[0], "end": span[1]}, 0)
        if yes_no:
            vote("yes_no_answer", "YES", 0)
    return votes


def _run(votes, dataset="jnq", order="jnq", fingerprint="r", ways=None):
    element = ("q1", {"examples": [("dev", ROW, order, fingerprint)], "votes": votes})
    pipeline = test_pipeline.TestPipeline(argv=RUNNER)
    out = (pipeline | beam.Create([element])
           | beam.ParDo(AnnotateJnqRows(dataset, ways or {"dev": 10, "train": 1},
                                        JnqThresholds())).with_outputs(
               *SIDE_OUTPUTS, JUDGMENTS, main="main"))
    return pipeline, out


def test_a_good_question_with_an_exist_paragraph_and_a_majority_span():
    pipeline, out = _run(_votes())
    assert_that(out.main | beam.MapTuple(lambda split, row: (
        split, row["gold_paragraph_ids"], [(a["label"], a["short_answer_type"], a["span_text"])
                                          for a in row["annotations"]])),
        equal_to([("dev", [0], [("EXIST", "span", "3776メートル"), ("NONE", "none", "")])]))
    pipeline.run()


def test_a_bad_question_is_dropped_with_its_reason():
    pipeline, out = _run(_votes(good=5))
    assert_that(out.main, equal_to([]), label="none kept")
    assert_that(out["rejected"] | beam.MapTuple(lambda kind, r: (kind, r["reason"])),
                equal_to([("dropped_questions", "bad_question")]), label="rejected")
    pipeline.run()


def test_votes_from_another_release_are_refused_and_leave_the_question_pending():
    pipeline, out = _run(_votes(release="other"))
    assert_that(out["dead_letter"] | beam.Map(lambda r: r["reason"]) |
                beam.combiners.Count.PerElement(), equal_to([("other_release", 50)]))
    assert_that(out["rejected"] | beam.MapTuple(lambda kind, r: (kind, r["stage"])),
                equal_to([("pending_examples", "good_question")]), label="pending")
    pipeline.run()


def _yes_no_view(split, row):
    return (split, row["is_yes_no_question"], row["gold_paragraph_ids"],
            [(a["label"], a["short_answer_type"], a["yes_no_answer"], a["span_text"])
             for a in row["annotations"]])


YES_NO_ROW = ("dev", True, [0], [("EXIST", "yes_no", "YES", ""),
                                 ("NONE", "none", "NONE", "")])


def test_a_jnq_yes_no_question_is_kept_in_jnq_with_its_yes_no_answer():
    """JNQ §3.5 / Table 2: JNQ keeps its yes/no questions, with YES/NO short answers."""
    pipeline, out = _run(_votes(yes_no=8))
    assert_that(out.main | beam.MapTuple(_yes_no_view), equal_to([YES_NO_ROW]), label="kept")
    assert_that(out["rejected"], equal_to([]), label="not dropped")
    assert_that(out[TALLY] | beam.Filter(lambda kv: kv[0].startswith("examples.")),
                equal_to([("examples.kept", 1)]), label="tally")
    pipeline.run()


def test_a_jboolq_import_merges_jnq_yes_no_questions_only():
    """JBoolQ §4: a JNQ question (annotated in JNQ's order) judged yes/no is merged into
    JBoolQ with its answers; any other kept JNQ question is ``not_yes_no_question``."""
    pipeline, out = _run(_votes(yes_no=8), dataset="jboolq")
    assert_that(out.main | beam.MapTuple(_yes_no_view), equal_to([YES_NO_ROW]), label="merged")
    pipeline.run()
    pipeline, out = _run(_votes(), dataset="jboolq")
    assert_that(out.main, equal_to([]), label="not merged")
    assert_that(out["rejected"] | beam.MapTuple(lambda kind, r: (kind, r["reason"])),
                equal_to([("dropped_questions", "not_yes_no_question")]), label="dropped")
    pipeline.run()


def test_import_outcome_per_dataset_and_order():
    def result(outcome, is_yes_no):
        return JnqResult("q1", outcome, None, is_yes_no, (), 10)

    assert import_outcome("jnq", "jnq", result("kept", True)) == "kept"
    assert import_outcome("jnq", "jnq", result("kept", False)) == "kept"
    assert import_outcome("jboolq", "jnq", result("kept", True)) == "kept"
    assert import_outcome("jboolq", "jnq", result("kept", False)) == "not_yes_no_question"
    assert import_outcome("jboolq", "jboolq", result("kept", True)) == "kept"
    assert import_outcome("jboolq", "jnq", result("bad_question", None)) == "bad_question"


def test_votes_the_rules_never_read_are_counted_not_needed():
    pipeline, out = _run(_votes(good=5))
    assert_that(out[TALLY] | beam.Filter(lambda kv: kv[0].startswith("votes.")),
                equal_to([("votes.used", 10), ("votes.not_needed", 40)]))
    pipeline.run()


def test_each_split_needs_its_own_ways():
    pipeline, out = _run(_votes(), ways={"dev": 20})
    assert_that(out["rejected"] | beam.MapTuple(lambda kind, r: (kind, r["required"])),
                equal_to([("pending_examples", 20)]))
    pipeline.run()
