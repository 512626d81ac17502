"""Label Studio labeling configs (XML) for NQ's one-task flow and JNQ's separate stages.

Choice values are the stable strings ``exports.py`` reads back; the headers carry the
instructions. Task data keys are the ones ``tasks.py`` writes.
"""

from __future__ import annotations

from typing import Any

from filters.annotation.votes import JNQ_STAGES

NQ_STAGES = ("nq",)
NO_ANSWER = "No answer"
SHORT_ANSWER_LABEL = "Short answer"
SPAN_LABEL = "Answer"
NO_SPAN = "No span"

# Rendered candidates keep table rows and list items on their own lines (render.py).
_KEEP_LINES = '<Style>[class*="phrase--"] { white-space: pre-wrap; }</Style>'


def nq_config() -> str:
    """NQ §3.2's three stages in one task.

    1. Is the question good (a clear request for a fact) or bad? The page stays hidden until
       "good" is chosen.
    2. The long answer: the earliest candidate (paragraph, table, table row, list, list item)
       that contains enough information to answer, or "No answer".
    3. Short answer span(s) marked inside that candidate, or YES/NO, or neither (NONE)."""
    return f"""<View>
  {_KEEP_LINES}
  <Header value="1. Is this a good question? (NQ §3.2)"/>
  <Text name="question" value="$question"/>
  <Choices name="question_good" toName="question" choice="single-radio" required="true"
           showInline="true">
    <Choice value="good" hint="A clear question that seeks a fact"/>
    <Choice value="bad" hint="Ambiguous, incomprehensible, opinion-seeking or a false premise"/>
  </Choices>
  <View visibleWhen="choice-selected" whenTagName="question_good" whenChoiceValue="good">
    <Header value="$document_title"/>
    <Paragraphs name="candidates" value="$candidates" nameKey="label" textKey="text"/>
    <Header value="2. Long answer: the earliest box above that answers the question"/>
    <Choices name="long_answer" toName="candidates" value="$long_answer_options"
             choice="single-radio"/>
    <Header value="3. Short answer: mark the span(s) inside that box, or answer YES/NO"/>
    <ParagraphLabels name="short_answer" toName="candidates">
      <Label value="{SHORT_ANSWER_LABEL}"/>
    </ParagraphLabels>
    <Choices name="yes_no_answer" toName="candidates" choice="single-radio" showInline="true">
      <Choice value="NONE" hint="The answer is a span, or there is no short answer"/>
      <Choice value="YES"/>
      <Choice value="NO"/>
    </Choices>
  </View>
</View>
"""


def _question_view(extra: str = "") -> str:
    return f"""  <Header value="$document_title"/>
  <Header value="質問 / Question" size="6"/>
  <Text name="question" value="$question"/>{extra}"""


def _paragraph_view() -> str:
    return """
  <Header value="段落 / Paragraph" size="6"/>
  <Text name="paragraph" value="$paragraph_text"/>"""


def _choices(name: str, to_name: str, header: str, values: tuple[str, ...]) -> str:
    choices = "\n".join(f'    <Choice value="{value}"/>' for value in values)
    return f"""
  <Header value="{header}"/>
  <Choices name="{name}" toName="{to_name}" choice="single-radio" required="true"
           showInline="true">
{choices}
  </Choices>"""


def jnq_config(stage: str) -> str:
    """The config of one JNQ / JBoolQ stage (JNQ §3.2-3.5, JBoolQ §4).

    ``good_question`` and ``yes_no_question`` show the question; ``long_answer``,
    ``yes_no_answer`` and ``span`` show one of the five candidate paragraphs with it (one task
    per question and paragraph)."""
    if stage == "good_question":
        body = _question_view() + _choices(
            "good_question", "question",
            "良い質問ですか？ / Is this a good question (a clear question seeking a fact)?",
            ("good", "bad"))
    elif stage == "yes_no_question":
        body = _question_view() + _choices(
            "yes_no_question", "question",
            "はい・いいえで答えられる質問ですか？ / Can it be answered with yes or no?",
            ("yes", "no"))
    elif stage == "long_answer":
        body = _question_view(_paragraph_view()) + _choices(
            "long_answer", "paragraph",
            "この段落に質問に答えるのに十分な情報がありますか？ / Does this paragraph contain "
            "enough information to answer the question?", ("yes", "no"))
    elif stage == "yes_no_answer":
        body = _question_view(_paragraph_view()) + _choices(
            "yes_no_answer", "paragraph",
            "この段落によると答えは？ / According to this paragraph, the answer is",
            ("YES", "NO", "NONE"))
    elif stage == "span":
        body = _question_view(_paragraph_view()) + f"""
  <Header value="答えの部分を選択してください / Mark the short answer in the paragraph"/>
  <Labels name="span" toName="paragraph">
    <Label value="{SPAN_LABEL}" maxUsages="1"/>
  </Labels>
  <Choices name="no_span" toName="paragraph" choice="multiple">
    <Choice value="{NO_SPAN}" hint="The paragraph has no short span that answers"/>
  </Choices>"""
    else:
        raise ValueError(f"unknown JNQ stage {stage!r}; one of {', '.join(JNQ_STAGES)}")
    return f"<View>\n{body}\n</View>\n"


def project_settings(title: str, config: str, ways: int, instructions: str = "") -> dict[str, Any]:
    """The body of ``POST /api/projects``: ``ways`` annotations of every task by different
    workers (overlap on all tasks, overlapping tasks first; a skipped task goes to others)."""
    if ways < 1:
        raise ValueError("ways must be at least 1")
    return {
        "title": title,
        "label_config": config,
        "maximum_annotations": ways,
        "overlap_cohort_percentage": 100,
        "show_overlap_first": True,
        "sampling": "Sequential sampling",
        "skip_queue": "REQUEUE_FOR_OTHERS",
        "show_skip_button": True,
        "enable_empty_annotation": False,
        "show_annotation_history": False,
        "show_collab_predictions": False,
        "expert_instruction": instructions,
        "show_instruction": bool(instructions),
    }
