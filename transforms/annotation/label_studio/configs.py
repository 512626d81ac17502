"""Label Studio labeling configs (XML) for NQ's one-task flow and JNQ's separate stages.

Choice values are the stable strings ``exports.py`` reads back; the headers carry the
instructions. Task data keys are the ones ``tasks.py`` writes.
"""

from __future__ import annotations

from typing import Any

from filters.annotation.votes import JNQ_STAGES
from transforms.annotation.page import PAGE_STYLE

NQ_STAGES = ("nq",)
NO_ANSWER = "No answer"
LONG_ANSWER_MARKED = "The box I marked"
LONG_ANSWER_SHOWN = "Marked box"  # how the pinned bar shows LONG_ANSWER_MARKED (its value)
LONG_ANSWER_LABEL = "Long answer"
SHORT_ANSWER_LABEL = "Short answer"
SPAN_LABEL = "Answer"
NO_SPAN = "No span"

# Only the question and one line of choices stay pinned above the page while the worker
# scrolls it (the page gets most of the window: measured in the real browser by the tests).
_STICKY = "position: sticky; top: 0; z-index: 5; background: #fff; padding: 2px 0 3px; " \
    "border-bottom: 1px solid #ddd"
_ROW = "display: flex; flex-wrap: wrap; align-items: center; column-gap: 6px"
_BAR = "nq-bar"
#: Label Studio's own margins and paddings, made compact inside the pinned bar (its class
#: names as Label Studio 1.23 renders them); groups of choices parted by a thin rule.
BAR_STYLE = f"""
.{_BAR} .lsf-choices, .{_BAR} .lsf-labels, .{_BAR} .lsf-richtext {{ margin: 0; padding: 0; }}
.{_BAR} .ant-radio-wrapper, .{_BAR} .lsf-label {{ font-size: 13px; margin: 0 3px 0 0; }}
.{_BAR} .ant-radio-wrapper span + span {{ padding: 0 3px; }}
.{_BAR} .lsf-label {{ padding: 1px 5px; }}
.{_BAR} .lsf-label__hotkey {{ margin-left: 6px; }}
.{_BAR} .lsf-choices + .lsf-labels, .{_BAR} .lsf-labels + .lsf-choices,
.{_BAR} .lsf-choices + .lsf-choices {{ border-left: 1px solid #ddd; padding-left: 6px; }}
"""

_LONG_REQUIRED = (f"Mark the long answer on the page and choose '{LONG_ANSWER_SHOWN}', "
                  f"or choose '{NO_ANSWER}'.")
_GOOD_HINT = "1. Good question: a clear question that seeks a fact"
_LONG_HINT = ("2. Long answer: choose this label, click the #tag of the first box that "
              f"answers, then choose '{LONG_ANSWER_SHOWN}' (or '{NO_ANSWER}')")
_SHORT_HINT = "3. Short answer: mark the span(s) inside that box, or answer YES/NO"


def nq_config() -> str:
    """NQ §3.2's three stages in one task, on the page itself.

    1. Is the question good (a clear request for a fact) or bad? The page stays hidden until
       "good" is chosen.
    2. The long answer: the earliest box (paragraph, table, table row, list, list item) that
       contains enough information to answer. The worker marks it in place, by clicking the
       box's ``#n`` tag (or selecting text in it) with the "Long answer" label, and must
       answer "The box I marked" (shown as "Marked box") or "No answer" before Label Studio
       lets them submit. Marking another box changes the answer: the last mark counts.
    3. Short answer span(s) marked inside that box with the "Short answer" label, or YES/NO,
       or neither (NONE).

    Only the question and one line of choices are pinned above the page (``BAR_STYLE``
    makes Label Studio's controls compact; the steps are the choices' hints and the
    instructions), so the page gets most of the window. The page is ``HyperText``
    (``render_page``): each candidate shown once, nested candidates inside their box."""
    return f"""<View>
  <Style>{PAGE_STYLE}{BAR_STYLE}</Style>
  <View className="{_BAR}" style="{_STICKY}">
    <View style="font-weight: 600">
      <Text name="question" value="$question"/>
    </View>
    <View style="{_ROW}">
      <Choices name="question_good" toName="question" choice="single-radio" required="true"
               showInline="true">
        <Choice value="good" hint="{_GOOD_HINT}"/>
        <Choice value="bad" hint="Ambiguous, incomprehensible, opinion-seeking or a false premise"/>
      </Choices>
      <View visibleWhen="choice-selected" whenTagName="question_good" whenChoiceValue="good"
            style="display: contents">
        <Labels name="answer" toName="page" showInline="true">
          <Label value="{LONG_ANSWER_LABEL}" background="#2f6fb5" hotkey="l"
                 hint="{_LONG_HINT}"/>
          <Label value="{SHORT_ANSWER_LABEL}" background="#e8871e" hotkey="s" granularity="word"
                 hint="{_SHORT_HINT}"/>
        </Labels>
        <Choices name="long_answer" toName="page" choice="single-radio" required="true"
                 showInline="true" requiredMessage="{_LONG_REQUIRED}">
          <Choice value="{LONG_ANSWER_MARKED}" html="{LONG_ANSWER_SHOWN}"
                  hint="The box marked Long answer answers"/>
          <Choice value="{NO_ANSWER}" hint="No box on the page answers the question"/>
        </Choices>
        <Choices name="yes_no_answer" toName="page" choice="single-radio" showInline="true">
          <Choice value="NONE" hint="The answer is a span, or there is no short answer"/>
          <Choice value="YES"/>
          <Choice value="NO"/>
        </Choices>
      </View>
    </View>
  </View>
  <View visibleWhen="choice-selected" whenTagName="question_good" whenChoiceValue="good">
    <Header value="$document_title"/>
    <HyperText name="page" value="$page" inline="true" saveTextResult="yes"/>
  </View>
</View>
"""


def nq_instructions() -> str:
    """The instructions Label Studio shows NQ workers (NQ §3.2's guidelines, and how to mark
    them on this page)."""
    return f"""<p><b>1. Question.</b> Good: a clear question that seeks a fact. Bad: ambiguous,
incomprehensible, depending on a clear false presupposition, opinion-seeking, or not a request
for facts. The page appears once you choose good.</p>
<p><b>2. Long answer.</b> The <i>earliest</i> box on the page (paragraph, table, table row,
list or list item) that holds enough information to infer the answer completely. Choose the
<b>{LONG_ANSWER_LABEL}</b> label (key L) and click the box's <code>#n</code> tag (selecting
text inside the box works too: the smallest box holding your selection counts). Then choose
<b>{LONG_ANSWER_SHOWN}</b>, or <b>{NO_ANSWER}</b> when no box answers.</p>
<p><b>Changed your mind?</b> Choose the <b>{LONG_ANSWER_LABEL}</b> label again and click the
new box's tag: the <i>last</i> box you marked is your long answer, earlier marks are ignored.
Marks you made before leaving a task come back when you return to it (Label Studio keeps a
draft); the same rule applies. To remove a mark, click it and press Backspace. Short answers
are not moved with the long answer: remove those in the old box and mark the new ones. Before
choosing <b>{NO_ANSWER}</b>, remove every mark (an answer of {NO_ANSWER} with marks left on
the page is not counted).</p>
<p><b>3. Short answer.</b> Inside that box, mark the entity or entities that answer with the
<b>{SHORT_ANSWER_LABEL}</b> label (key S); or choose YES or NO for a yes/no question; or leave
NONE when there is no short answer.</p>"""


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
