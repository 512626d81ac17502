"""Label Studio JSON exports (``GET /api/projects/<id>/export?exportType=JSON``) into votes.

An export is a list of tasks, each with its ``data`` (as ``tasks.py`` wrote it) and its
``annotations``: ``{id, completed_by, result: [{from_name, to_name, type, value}],
was_cancelled, created_at, updated_at}``. Every annotation becomes one vote in the votes JSON
format (``filters/annotation/votes.py``) with ``release`` and ``submitted_at``, or an error
``{"error": reason, "message", "task", "annotation"}`` to dead-letter. ``votes_with_tasks`` also
gives each the digest of its task's map (``task_map.task_digest``), which the import checks
against the release row it names. Whether a vote fits its example (a short answer inside the
chosen long answer, ...) is the aggregator's check.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import pairwise
from typing import Any

from filters.annotation.votes import JNQ_STAGES, PARAGRAPH_STAGES, YES_NO
from transforms.annotation.label_studio.configs import (
    LONG_ANSWER_LABEL,
    LONG_ANSWER_MARKED,
    NO_ANSWER,
    NO_SPAN,
    SHORT_ANSWER_LABEL,
)
from transforms.annotation.label_studio.task_map import task_digest
from transforms.annotation.page import page_text, words_in
from transforms.annotation.render import tokens_in_chars

DATASETS = ("nq", "jnq", "jboolq")
_PLAIN_INTEGER = re.compile(r"-?[0-9]{1,18}")  # ASCII digits: int() also takes "²"'s kin
_SPACE = re.compile(r"\s+")
_JNQ_CHOICES = {
    "good_question": {"good": True, "bad": False},
    "yes_no_question": {"yes": True, "no": False},
    "long_answer": {"yes": True, "no": False},
    "yes_no_answer": {value: value for value in YES_NO},
}


class _Unusable(ValueError):
    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def _malformed(message: str) -> _Unusable:
    return _Unusable("malformed_annotation", message)


def _integer(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise _malformed(f"{name} must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _PLAIN_INTEGER.fullmatch(value.strip()):
        return int(value)
    raise _malformed(f"{name} must be an integer (ASCII digits)")


def _annotator(completed_by: Any) -> str:
    if isinstance(completed_by, dict):
        completed_by = completed_by.get("id", completed_by.get("email"))
    if isinstance(completed_by, bool) or not isinstance(completed_by, (int, str)) \
            or not str(completed_by).strip() or not _is_text(str(completed_by)):
        raise _malformed("completed_by names no annotator")
    return str(completed_by).strip()


def _is_text(value: Any) -> bool:
    """A string that is text: no lone surrogate (JSON's ``"\\ud800"``)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _results(annotation: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    result = annotation.get("result")
    if not isinstance(result, list):
        raise _malformed("an annotation's result must be a list")
    by_name: dict[str, list[dict[str, Any]]] = {}
    for region in result:
        if not isinstance(region, dict) or not isinstance(region.get("value"), dict):
            raise _malformed("a result must be an object with a value")
        by_name.setdefault(str(region.get("from_name")), []).append(region["value"])
    return by_name


def _choices(results: dict[str, list[dict[str, Any]]], name: str) -> list[Any]:
    """Every choice made in the Choices ``name`` (a region's ``choices`` is a list)."""
    chosen = []
    for value in results.get(name, []):
        choices = value.get("choices") or []
        if not isinstance(choices, list):
            raise _malformed(f"{name}: choices must be a list")
        chosen += choices
    return chosen


def _choice(results: dict[str, list[dict[str, Any]]], name: str) -> str | None:
    """The single choice made in the Choices ``name``, None when nothing was chosen."""
    chosen = _choices(results, name)
    if len(chosen) > 1:
        raise _malformed(f"{name}: one choice expected, got {len(chosen)}")
    if chosen and not isinstance(chosen[0], str):
        raise _malformed(f"{name}: a choice must be a string")
    return chosen[0] if chosen else None


def _candidate(data: dict[str, Any], index: int) -> dict[str, Any]:
    if not 0 <= index < len(data["candidates"]):
        raise _Unusable("span_outside_candidate", f"no candidate paragraph {index}")
    return {"text": data["candidates"][index]["text"],
            "tokens": data["candidate_tokens"][index], "starts": data["candidate_starts"][index]}


def _utf16_to_index(text: str, units: int) -> int:
    """The code-point index of a UTF-16 offset (JavaScript's, which Label Studio reports)."""
    count = 0
    for index, char in enumerate(text):
        if count >= units:
            return index
        count += 2 if ord(char) > 0xFFFF else 1
    return len(text)


def code_point_offset(text: str, offset: int) -> int:
    """A Label Studio character offset into ``text`` as a Python index: the same unless the
    text holds characters outside the BMP (a rare kanji, an emoji), which JavaScript counts
    as two."""
    if offset <= 0 or all(ord(c) <= 0xFFFF for c in text):
        return offset
    return _utf16_to_index(text, offset)


def _check_selected(text: str, start: int, end: int, selected: Any) -> None:
    if isinstance(selected, str) and selected and text[start:end] != selected:
        raise _Unusable("span_text_mismatch", f"the span's offsets give {text[start:end]!r}, "
                        f"not the selected {selected!r}")


def _nq_span(data: dict[str, Any], value: dict[str, Any]) -> tuple[int, int]:
    """The document-token span of a ParagraphLabels region (it may run across candidates)."""
    first_index = _integer(value.get("start"), "start")
    last_index = _integer(value.get("end"), "end")
    first, last = _candidate(data, first_index), _candidate(data, last_index)
    start = code_point_offset(first["text"],
                              _integer(value.get("startOffset"), "startOffset"))
    end = code_point_offset(last["text"], _integer(value.get("endOffset"), "endOffset"))
    outside = _Unusable("span_outside_candidate", "the span is outside the candidate text")
    if first_index == last_index:
        if not 0 <= start < end <= len(first["text"]):
            raise outside
        _check_selected(first["text"], start, end, value.get("text"))
        span = tokens_in_chars(first, start, end)
    else:
        if first_index > last_index or not (0 <= start < len(first["text"])
                                            and 0 < end <= len(last["text"])):
            raise outside
        head = tokens_in_chars(first, start, len(first["text"]))
        tail = tokens_in_chars(last, 0, end)
        span = (head[0], tail[1]) if head and tail and head[0] < tail[1] else None
    if span is None:
        raise _Unusable("span_outside_candidate", "the span covers no token of the candidate")
    return span


def _nq_question(data: dict[str, Any], results: dict[str, list[dict[str, Any]]]
                 ) -> dict[str, Any]:
    """An NQ vote with stage 1 (good or bad question) judged and no answer yet."""
    good = _choice(results, "question_good")
    if good not in ("good", "bad"):
        raise _malformed("question_good: choose good or bad")
    return {"example_id": data["example_id"], "question_good": good == "good",
            "long_answer_candidate": -1, "short_answers": [], "yes_no_answer": "NONE"}


def _nq_vote(data: dict[str, Any], results: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """One NQ vote (NQ §3.2): question good/bad, long answer, short answers or YES/NO."""
    vote = _nq_question(data, results)
    if not vote["question_good"]:  # the page was hidden: anything left below it is stale
        return vote
    options = {NO_ANSWER: -1, **{c["label"]: i for i, c in enumerate(data["candidates"])}}
    long_answer = _choice(results, "long_answer")
    if long_answer not in options:
        raise _malformed("long_answer: choose a candidate or 'No answer'")
    spans = sorted({_nq_span(data, value) for value in results.get("short_answer", [])})
    yes_no = _choice(results, "yes_no_answer") or "NONE"
    if yes_no not in YES_NO:
        raise _malformed(f"yes_no_answer must be one of {', '.join(YES_NO)}")
    vote.update(long_answer_candidate=options[long_answer], yes_no_answer=yes_no,
                short_answers=[{"start_token": s, "end_token": e} for s, e in spans])
    return vote


def _region_offsets(text: str, value: dict[str, Any]) -> tuple[int, int]:
    """A HyperText region's ``globalOffsets``: code points into the page's text nodes."""
    offsets = value.get("globalOffsets")
    if not isinstance(offsets, dict):
        raise _malformed("a page region must have globalOffsets")
    start = _integer(offsets.get("start"), "globalOffsets.start")
    end = _integer(offsets.get("end"), "globalOffsets.end")
    if not 0 <= start < end <= len(text):
        raise _Unusable("span_outside_candidate", "the region is outside the page text")
    selected = value.get("text")
    # The browser's selected text puts tabs and line breaks between table cells and blocks.
    if isinstance(selected, str) and selected.strip() \
            and _SPACE.sub("", text[start:end]) != _SPACE.sub("", selected):
        raise _Unusable("span_text_mismatch", f"the region's offsets give "
                        f"{text[start:end][:80]!r}, not the selected {selected[:80]!r}")
    return start, end


def _words(data: dict[str, Any], start: int, end: int) -> tuple[int, int] | None:
    return words_in(data["page_starts"], data["page_lengths"], start, end)


def _box(data: dict[str, Any], text: str, start: int, end: int) -> int:
    """The smallest box holding the marked words (or, for a bare ``#n`` tag, the mark)."""
    words = _words(data, start, end)
    if words:
        first, last = words
        start = data["page_starts"][first]
        end = data["page_starts"][last] + data["page_lengths"][last]
    else:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
    best, size = -1, len(text) + 1
    for index, (box_start, box_end) in enumerate(data["boxes"]):
        if box_start <= start and end <= box_end and box_end - box_start < size:
            best, size = index, box_end - box_start
    if best < 0:
        raise _Unusable("span_outside_candidate", "the long-answer mark is not inside one box")
    return best


def _page_marks(results: dict[str, list[dict[str, Any]]]
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The Long answer and Short answer regions marked on the page."""
    marks: dict[str, list[dict[str, Any]]] = {LONG_ANSWER_LABEL: [], SHORT_ANSWER_LABEL: []}
    for value in results.get("answer", []):
        labels = value.get("labels")
        if not isinstance(labels, list) or len(labels) != 1 or labels[0] not in marks:
            raise _malformed(f"answer: a region is labelled {LONG_ANSWER_LABEL!r} or "
                             f"{SHORT_ANSWER_LABEL!r}")
        marks[labels[0]].append(value)
    return marks[LONG_ANSWER_LABEL], marks[SHORT_ANSWER_LABEL]


def _nq_page_vote(data: dict[str, Any], results: dict[str, list[dict[str, Any]]]
                  ) -> dict[str, Any]:
    """One NQ vote from a task on the page (``nq_config``): the marked box is the long answer,
    the Short answer marks its spans (to document tokens), or YES/NO."""
    vote = _nq_question(data, results)
    if not vote["question_good"]:  # the page was hidden: anything left on it is stale
        return vote
    decision = _choice(results, "long_answer")
    if decision not in (LONG_ANSWER_MARKED, NO_ANSWER):
        raise _malformed(f"long_answer: choose {LONG_ANSWER_MARKED!r} or {NO_ANSWER!r}")
    longs, shorts = _page_marks(results)
    yes_no = _choice(results, "yes_no_answer") or "NONE"
    if yes_no not in YES_NO:
        raise _malformed(f"yes_no_answer must be one of {', '.join(YES_NO)}")
    if decision == NO_ANSWER:
        if longs or shorts or yes_no != "NONE":
            raise _malformed(f"{NO_ANSWER!r} was chosen with an answer marked")
        return vote
    if not longs:
        raise _malformed(f"{LONG_ANSWER_MARKED!r} needs a {LONG_ANSWER_LABEL} mark, found none")
    text = data["page_text"]
    # A worker who changes their mind marks the new box: the last mark made counts (Label
    # Studio lists regions in the order they were made, a draft's before the new ones).
    box = _box(data, text, *_region_offsets(text, longs[-1]))
    spans = set()
    for value in shorts:
        words = _words(data, *_region_offsets(text, value))
        if words is None:
            raise _Unusable("span_outside_candidate", "a short answer covers no word")
        spans.add((data["page_tokens"][words[0]], data["page_tokens"][words[1]] + 1))
    vote.update(long_answer_candidate=box, yes_no_answer=yes_no,
                short_answers=[{"start_token": s, "end_token": e} for s, e in sorted(spans)])
    return vote


def _jnq_span(data: dict[str, Any], results: dict[str, list[dict[str, Any]]]) -> Any:
    regions = results.get("span", [])
    no_span = NO_SPAN in _choices(results, "no_span")
    if no_span and not regions:
        return None
    if len(regions) != 1 or no_span:
        raise _malformed("span: mark one span or tick 'No span'")
    text = data.get("paragraph_text") or ""
    start = code_point_offset(text, _integer(regions[0].get("start"), "start"))
    end = code_point_offset(text, _integer(regions[0].get("end"), "end"))
    if not 0 <= start < end <= len(text):
        raise _Unusable("span_outside_candidate", "the span is outside the paragraph text")
    _check_selected(text, start, end, regions[0].get("text"))
    return {"start": start, "end": end}


def _jnq_vote(data: dict[str, Any], results: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """One JNQ / JBoolQ judgment at the task's stage (JNQ §3.2-3.5)."""
    stage = data["stage"]
    if stage == "span":
        value = _jnq_span(data, results)
    else:
        choice = _choice(results, stage)
        if choice not in _JNQ_CHOICES[stage]:
            raise _malformed(f"{stage}: choose one of {', '.join(_JNQ_CHOICES[stage])}")
        value = _JNQ_CHOICES[stage][choice]
    vote = {"question_id": data["question_id"], "stage": stage, "value": value}
    if stage in PARAGRAPH_STAGES:
        vote["paragraph"] = data["paragraph"]
    return vote


def _int_lists(value: Any, count: int) -> bool:
    return isinstance(value, list) and len(value) == count and all(
        isinstance(item, list) and all(type(n) is int for n in item) for item in value)


def _known_nq_task(data: dict[str, Any]) -> bool:
    """The shape of tasks made before the page layout (``Paragraphs`` of candidates), still
    read so that a campaign begun with them can be imported: candidates ``{label, text}``
    with a token and a start list each."""
    candidates = data.get("candidates")
    return isinstance(candidates, list) and all(
        isinstance(c, dict) and _is_text(c.get("label")) and _is_text(c.get("text"))
        for c in candidates) \
        and _int_lists(data.get("candidate_tokens"), len(candidates)) \
        and _int_lists(data.get("candidate_starts"), len(candidates)) \
        and isinstance(data.get("example_id"), str | int)


def _known_nq_page_task(data: dict[str, Any]) -> bool:
    """``nq_task``'s shape: the page, its word map (ascending, non-empty words) and boxes."""
    words = [data.get(key) for key in ("page_tokens", "page_starts", "page_lengths")]
    boxes = data.get("boxes")
    if not (_is_text(data.get("page")) and isinstance(data.get("example_id"), str | int)
            and all(isinstance(w, list) and len(w) == len(words[0])
                    and all(type(n) is int for n in w) for w in words)
            and isinstance(boxes, list)
            and all(isinstance(b, list) and len(b) == 2 and all(type(n) is int for n in b)
                    for b in boxes)):
        return False
    starts, lengths = words[1], words[2]
    return all(n > 0 for n in lengths) and all(a < b for a, b in pairwise(starts))


def _known_task(data: Any, dataset: str) -> bool:
    if not isinstance(data, dict):
        return False
    if dataset == "nq":
        return _known_nq_page_task(data) if "page" in data else _known_nq_task(data)
    if not isinstance(data.get("question_id"), str | int) or data.get("stage") not in JNQ_STAGES:
        return False
    if data.get("paragraph_text") is not None and not _is_text(data["paragraph_text"]):
        return False
    return data["stage"] not in PARAGRAPH_STAGES or type(data.get("paragraph")) is int


def votes_from_export(tasks: Any, dataset: str) -> Iterator[dict[str, Any]]:
    """Votes (or errors to dead-letter) from a parsed Label Studio JSON export.

    ``dataset`` is nq, jnq or jboolq. Cancelled (skipped) annotations, annotations that
    cannot be read and tasks this code did not write give errors: ``cancelled_annotation``,
    ``malformed_annotation``, ``span_outside_candidate``, ``unknown_task``."""
    return (record for record, _ in votes_with_tasks(tasks, dataset))


def votes_with_tasks(tasks: Any, dataset: str
                     ) -> Iterator[tuple[dict[str, Any], str | None]]:
    """``votes_from_export``'s records, each with the digest of its task's map
    (``task_map.task_digest``; None for a task that is not ours)."""
    if dataset not in DATASETS:
        raise ValueError(f"dataset must be one of {', '.join(DATASETS)}")
    if not isinstance(tasks, list):
        raise ValueError("a Label Studio JSON export is a list of tasks")
    for task in tasks:
        task_id = task.get("id") if isinstance(task, dict) else None
        data = task.get("data") if isinstance(task, dict) else None
        if not _known_task(data, dataset):
            yield {"error": "unknown_task", "task": task_id,
                   "message": f"task {task_id} is not a {dataset} task exported by this tool"
                   }, None
            continue
        digest = task_digest(dataset, data)
        to_vote = _jnq_vote
        if dataset == "nq" and "page" in data:
            data, to_vote = {**data, "page_text": page_text(data["page"])}, _nq_page_vote
        elif dataset == "nq":
            to_vote = _nq_vote
        annotations = task.get("annotations") or []
        if not isinstance(annotations, list):
            yield {"error": "malformed_annotation", "task": task_id, "annotation": None,
                   "message": f"task {task_id}: annotations must be a list"}, digest
            continue
        for annotation in annotations:
            annotation_id = annotation.get("id") if isinstance(annotation, dict) else None
            try:
                if not isinstance(annotation, dict):
                    raise _malformed("an annotation must be an object")
                if annotation.get("was_cancelled"):
                    raise _Unusable("cancelled_annotation", "the annotator skipped the task")
                vote = {**to_vote(data, _results(annotation)),
                        "annotator_id": _annotator(annotation.get("completed_by"))}
            except _Unusable as error:
                yield {"error": error.reason, "message": str(error), "task": task_id,
                       "annotation": annotation_id}, digest
                continue
            if data.get("release") is not None:
                vote["release"] = data["release"]
            submitted_at = annotation.get("updated_at") or annotation.get("created_at")
            if submitted_at:
                vote["submitted_at"] = submitted_at
            yield vote, digest
