"""A tiny NQ example and a JNQ release row, written by hand for the annotation tests."""

from __future__ import annotations

from typing import Any

from transforms.annotation.label_studio.configs import NO_ANSWER, SHORT_ANSWER_LABEL
from transforms.annotation.page import page_text
from transforms.annotation.render import render_candidates

CANDIDATE_TAGS = ("P", "Table", "Tr", "Ul", "Ol", "Li")

# One document: a heading, a paragraph, a 2x2 table and a 2-item list (7 candidates).
NQ_HTML_TOKENS = (
    "<H1> Trade winds </H1> "
    "<P> The trade winds blow from the east . </P> "
    "<Table> <Tr> <Th> Name </Th> <Th> Direction </Th> </Tr> "
    "<Tr> <Td> Trade winds </Td> <Td colspan=\"2\"> east </Td> </Tr> </Table> "
    "<Ul> <Li> Sailors used them . </Li> <Li> Storms follow them . </Li> </Ul>"
)


def nq_example(text: str = NQ_HTML_TOKENS, example_id: int = -4242) -> dict[str, Any]:
    """An NQ original-format example whose tokens are ``text`` split on single spaces
    (tokens starting with ``<`` are HTML; ``colspan="2"`` stays inside its tag token)."""
    raw = text.replace('<Td colspan="2">', "<Td\u00a0colspan=\"2\">").split(" ")
    tokens, offset = [], 0
    for token in raw:
        token = token.replace("\u00a0", " ")
        size = len(token.encode("utf-8"))
        tokens.append({"token": token, "start_byte": offset, "end_byte": offset + size,
                       "html_token": token.startswith("<")})
        offset += size + 1
    candidates, stack = [], []
    for index, token in enumerate(tokens):
        name = token["token"].strip("</>").split(" ")[0]
        if not token["html_token"] or name not in CANDIDATE_TAGS:
            continue
        if token["token"].startswith("</"):
            start = stack.pop()
            candidates.append({"start_token": start, "end_token": index + 1,
                               "start_byte": tokens[start]["start_byte"],
                               "end_byte": token["end_byte"], "top_level": not stack})
        else:
            stack.append(index)
    candidates.sort(key=lambda c: c["start_token"])
    return {
        "example_id": example_id,
        "question_text": "which way do the trade winds blow",
        "question_tokens": "which way do the trade winds blow".split(),
        "document_url": "https://en.wikipedia.org//w/index.php?title=Trade_winds&amp;oldid=1",
        "document_title": "Trade winds",
        "document_html": text,
        "document_tokens": tokens,
        "long_answer_candidates": candidates,
        "annotations": [],
    }


def jnq_row() -> dict[str, Any]:
    """A JNQ release row (transforms/jnq/schema.py EXAMPLE_SCHEMA, the columns tasks read)."""
    texts = ["貿易風は東から吹く風である。", "帆船は貿易風を利用した。", "台風は貿易風に流される。",
             "赤道付近で吹く。", "冬に強まる。", "名前の由来は航路である。"]
    return {
        "id": "9876543210",
        "question": "貿易風はどの方向から吹く？",
        "variant": "jnq",
        "document_title": "貿易風",
        "document_url": "https://ja.wikipedia.org/w/index.php?title=貿易風&oldid=1",
        "snippet": "貿易風は東から吹く",
        "paragraphs": [{"id": i, "text": text} for i, text in enumerate(texts)],
        "candidate_paragraph_ids": [0, 3, 1, 5, 2],
        "candidate_ranks": [0, 1, 2, 3, 4],
        "candidate_scores": [1.0, 0.5, 0.4, 0.3, 0.2],
    }


def legacy_nq_task(example: dict[str, Any], split: str, release: str) -> dict[str, Any]:
    """An NQ task as this toolkit wrote it before the page layout (one ``Paragraphs`` entry
    per candidate, chosen from a list): exports of such campaigns are still read."""
    rendered = render_candidates(example)
    return {"data": {
        "dataset": "nq", "example_id": str(example["example_id"]),
        "question": example["question_text"],
        "document_title": example.get("document_title") or "",
        "document_url": example.get("document_url") or "",
        "candidates": [{"label": c["label"], "text": c["text"]} for c in rendered],
        "long_answer_options": ([{"value": NO_ANSWER}]
                                + [{"value": c["label"]} for c in rendered]),
        "candidate_tokens": [c["tokens"] for c in rendered],
        "candidate_starts": [c["starts"] for c in rendered],
        "split": split, "release": release}}


# Label Studio annotation results, in the shape its JSON export holds them.

def page_mark(task: dict[str, Any], start: int, end: int, label: str = SHORT_ANSWER_LABEL,
              text: str | None = None) -> dict[str, Any]:
    """A region marked on the NQ page (``Labels`` on ``HyperText``), as Label Studio 1.23
    exports it: xpaths, and ``globalOffsets`` in code points of the page's text nodes."""
    shown = page_text(task["data"]["page"])[start:end] if text is None else text
    return {"id": f"mark-{start}-{end}", "from_name": "answer", "to_name": "page",
            "type": "labels", "origin": "manual",
            "value": {"start": "/div[1]/div[1]/text()[1]", "startOffset": 0,
                      "end": "/div[1]/div[1]/text()[1]", "endOffset": end - start,
                      "globalOffsets": {"start": start, "end": end}, "text": shown,
                      "labels": [label]}}


def choice(from_name: str, to_name: str, *values: str) -> dict[str, Any]:
    return {"id": f"{from_name}-{'-'.join(values)}", "from_name": from_name, "to_name": to_name,
            "type": "choices", "value": {"choices": list(values)}}


def paragraph_span(paragraph: int, start: int, end: int, text: str,
                   last_paragraph: int | None = None) -> dict[str, Any]:
    """A ParagraphLabels region (NQ short answer); Label Studio stores paragraph indices as
    strings."""
    last = paragraph if last_paragraph is None else last_paragraph
    return {"id": f"span-{paragraph}-{start}-{end}", "from_name": "short_answer",
            "to_name": "candidates", "type": "paragraphlabels",
            "value": {"start": str(paragraph), "end": str(last), "startOffset": start,
                      "endOffset": end, "text": text, "paragraphlabels": ["Short answer"]}}


def text_span(start: int, end: int, text: str) -> dict[str, Any]:
    """A Labels region on the paragraph Text (JNQ span stage)."""
    return {"id": f"span-{start}-{end}", "from_name": "span", "to_name": "paragraph",
            "type": "labels",
            "value": {"start": start, "end": end, "text": text, "labels": ["Answer"]}}


def annotation(annotation_id: int, completed_by: Any, result: list[dict[str, Any]],
               was_cancelled: bool = False, updated_at: str = "2025-01-02T03:04:05.000006Z"
               ) -> dict[str, Any]:
    """One annotation of a Label Studio 1.23 JSON export."""
    return {"id": annotation_id, "completed_by": completed_by, "result": result,
            "was_cancelled": was_cancelled, "ground_truth": False,
            "created_at": "2025-01-01T00:00:00.000001Z", "updated_at": updated_at,
            "draft_created_at": None, "lead_time": 3.5, "prediction": {},
            "result_count": len(result), "task": None, "project": 1,
            "updated_by": completed_by, "parent_prediction": None, "parent_annotation": None,
            "last_created_by": None}


def exported_task(task_id: int, task: dict[str, Any], annotations: list[dict[str, Any]]
                  ) -> dict[str, Any]:
    """One task of a Label Studio 1.23 JSON export (``exportType=JSON``)."""
    for item in annotations:
        item["task"] = task_id
    return {"id": task_id, "annotations": annotations, "drafts": [], "predictions": [],
            "data": task["data"], "meta": {}, "created_at": "2025-01-01T00:00:00.000001Z",
            "updated_at": "2025-01-02T03:04:05.000006Z", "inner_id": task_id,
            "total_annotations": len(annotations), "cancelled_annotations": 0,
            "total_predictions": 0, "project": 1}
