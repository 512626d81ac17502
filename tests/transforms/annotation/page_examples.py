"""Synthetic NQ examples built from a page's parts, for the page renderer's tests."""

from __future__ import annotations

from typing import Any

CANDIDATE_TAGS = ("P", "Table", "Tr", "Ul", "Li")  # the tags NQ makes long answer candidates of


def page_example(parts: list[tuple[str, str | None]]) -> dict[str, Any]:
    """An example whose ``document_html`` is the parts joined as given; a part is ``(page
    html, token)``: a part with a token is one (an HTML token when the token starts with
    ``<``), one without is markup or whitespace between tokens. Every candidate tag pair is a
    long answer candidate (top level when not nested in another)."""
    html, tokens, stack, candidates = "", [], [], []
    for text, token in parts:
        start = len(html.encode("utf-8"))
        html += text
        if token is None:
            continue
        is_html = token.startswith("<")
        tokens.append({"token": token, "start_byte": start,
                       "end_byte": len(html.encode("utf-8")), "html_token": is_html})
        name = token.strip("</>").split(" ")[0]
        if is_html and name in CANDIDATE_TAGS:
            if token.startswith("</"):
                first = stack.pop()
                candidates.append({"start_token": first, "end_token": len(tokens),
                                   "top_level": not stack})
            else:
                stack.append(len(tokens) - 1)
    candidates.sort(key=lambda c: c["start_token"])
    return {"example_id": 1, "question_text": "q", "document_title": "t", "document_html": html,
            "document_tokens": tokens, "long_answer_candidates": candidates}
