"""Examples shared by the ReQA stage tests: NQ original-format examples of one page and NLQuAD
rows of one article."""

from __future__ import annotations

from filters.nq.candidates import nq_document

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
