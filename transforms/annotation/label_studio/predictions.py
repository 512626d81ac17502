"""Label Studio pre-annotations (a task's ``predictions``) that mark what a human would mark.

A suggestion is shown as the result an annotator's own marks would give, so that accepting it
unchanged exports the suggested vote (``exports.votes_from_export``):

* NQ (``configs.nq_config``): ``long_answer`` "The box I marked" with a "Long answer" region
  over the suggested box's ``#n`` tag (as a click on the tag marks it), a "Short answer"
  region over the words of each suggested span, and ``yes_no_answer`` YES or NO; or "No
  answer". ``question_good`` is left to the annotator: the page (and the suggestion on it)
  appears once they choose "good".
* JNQ / JBoolQ ``long_answer`` stage: the ``yes`` or ``no`` choice.

Page regions carry what Label Studio 1.23 stores for a ``Labels`` region on ``HyperText``: the
XPath of the text node where it starts and ends (from the page's root element, as
``/div[1]/div[2]/span[1]/text()[1]``) with UTF-16 offsets into it, and ``globalOffsets`` in
code points of the page's text.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from html.parser import HTMLParser
from typing import Any

from transforms.annotation.label_studio.configs import (
    LONG_ANSWER_LABEL,
    LONG_ANSWER_MARKED,
    NO_ANSWER,
    SHORT_ANSWER_LABEL,
)
from transforms.annotation.page import page_text

JNQ_CHOICE = {True: "yes", False: "no"}


class _TextNodes(HTMLParser):
    """The XPath and text of every text node of a page, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict[str, int], bool]] = [("", {}, False)]
        self.path: list[str] = []
        self.nodes: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        _, counts, _ = self.stack[-1]
        counts[tag] = counts.get(tag, 0) + 1
        self.stack[-1] = (self.stack[-1][0], counts, False)
        self.path.append(f"{tag}[{counts[tag]}]")
        self.stack.append((tag, {}, False))

    def handle_endtag(self, tag: str) -> None:
        if len(self.stack) > 1:
            self.stack.pop()
            self.path.pop()

    def handle_data(self, data: str) -> None:
        if not data:
            return
        tag, counts, in_text = self.stack[-1]
        if in_text:
            xpath, text = self.nodes[-1]
            self.nodes[-1] = (xpath, text + data)
            return
        counts["text()"] = counts.get("text()", 0) + 1
        self.stack[-1] = (tag, counts, True)
        self.nodes.append(("/" + "/".join([*self.path, f"text()[{counts['text()']}]"]), data))


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class PageOffsets:
    """Code-point offsets of a page's text (``page.page_text``) as Label Studio's DOM
    positions: the text node's XPath and the UTF-16 offset in it."""

    def __init__(self, markup: str):
        parser = _TextNodes()
        parser.feed(markup)
        parser.close()
        self.nodes = parser.nodes
        self.starts, total = [], 0
        for _, text in self.nodes:
            self.starts.append(total)
            total += len(text)

    def position(self, offset: int, end: bool = False) -> tuple[str, int]:
        """``(xpath, utf16 offset)`` of a code-point offset; ``end``: of a range's end, so an
        offset at a node boundary stays in the node before it."""
        index = bisect_right(self.starts, offset - 1 if end and offset else offset) - 1
        index = max(0, index)
        xpath, text = self.nodes[index]
        return xpath, _utf16(text[:offset - self.starts[index]])


def _region(offsets: PageOffsets, text: str, start: int, end: int, label: str,
            number: int) -> dict[str, Any]:
    first, first_offset = offsets.position(start)
    last, last_offset = offsets.position(end, end=True)
    return {"id": f"suggestion-{number}", "from_name": "answer", "to_name": "page",
            "type": "labels", "origin": "prediction",
            "value": {"start": first, "startOffset": first_offset, "end": last,
                      "endOffset": last_offset, "globalOffsets": {"start": start, "end": end},
                      "text": text[start:end], "labels": [label]}}


def _choice(from_name: str, to_name: str, value: str) -> dict[str, Any]:
    return {"id": f"suggestion-{from_name}", "from_name": from_name, "to_name": to_name,
            "type": "choices", "origin": "prediction", "value": {"choices": [value]}}


def nq_shown(data: Mapping[str, Any], suggestion: Mapping[str, Any]) -> bool:
    """Whether an NQ page task can show ``suggestion``: "No answer", or a box on the page."""
    candidate = suggestion["long_answer_candidate"]
    boxes = data.get("boxes") or []
    return candidate < 0 or (candidate < len(boxes) and boxes[candidate][0] >= 0)


def nq_results(data: Mapping[str, Any], suggestion: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The results of an NQ page task (``tasks.nq_task``'s ``data``) that mark
    ``suggestion`` (``long_answer_candidate``, ``short_answers``, ``yes_no_answer``)."""
    candidate = suggestion["long_answer_candidate"]
    if candidate < 0:
        return [_choice("long_answer", "page", NO_ANSWER)]
    text = page_text(data["page"])
    offsets = PageOffsets(data["page"])
    start = data["boxes"][candidate][0]
    tag = f"#{candidate}"
    results = [_choice("long_answer", "page", LONG_ANSWER_MARKED),
               _region(offsets, text, start, start + len(tag), LONG_ANSWER_LABEL, 0)]
    tokens, starts, lengths = data["page_tokens"], data["page_starts"], data["page_lengths"]
    for span in suggestion["short_answers"]:
        words = [i for i, token in enumerate(tokens)
                 if span["start_token"] <= token < span["end_token"]]
        if words:
            first, last = min(words), max(words)
            results.append(_region(offsets, text, starts[first], starts[last] + lengths[last],
                                   SHORT_ANSWER_LABEL, len(results)))
    if suggestion["yes_no_answer"] in ("YES", "NO"):
        results.append(_choice("yes_no_answer", "page", suggestion["yes_no_answer"]))
    return results


def jnq_results(stage: str, value: bool) -> list[dict[str, Any]]:
    """The result of a JNQ / JBoolQ ``long_answer`` task answering ``value``."""
    if stage != "long_answer":
        raise ValueError(f"JNQ predictions suggest the long_answer stage, not {stage}")
    return [_choice("long_answer", "paragraph", JNQ_CHOICE[value])]
