"""JNQ long-answer candidates: the first paragraph and the 4 paragraphs closest to the snippet.

JNQ §3.3: annotators see up to five paragraphs of the document: its first paragraph and the
four other paragraphs most relevant to the search snippet, relevance being the cosine
similarity of bag-of-words vectors of snippet and paragraph; every other paragraph is NONE.
Ties are broken by the earlier paragraph, and a document with fewer than five paragraphs
offers all of them, so the choice is deterministic.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

CANDIDATES = 5
STOP_HEADINGS = frozenset({
    "脚注", "注釈", "出典", "参考文献", "関連項目", "外部リンク", "関連書籍", "参考資料",
    "see also", "references", "external links", "notes", "further reading", "bibliography",
})
_SKIP = ("table", "style", "script", "noscript", "sup", "figure", "math")
_NOISE_CLASSES = ("navbox", "reflist", "references", "infobox", "toc", "mw-editsection",
                  "hatnote", "noprint", "thumb")


@dataclass(frozen=True)
class ParagraphCandidate:
    """A selected paragraph: its index, its rank (0 = the first paragraph) and its score."""

    paragraph_id: int
    rank: int
    score: float


def _is_noise(element) -> bool:
    classes = (element.get("class") or "").lower()
    return any(name in classes for name in _NOISE_CLASSES) or element.get("id") == "toc"


def page_paragraphs(html: str) -> list[str]:
    """Body paragraphs of a Wikipedia page in reading order: ``<p>`` of the article content
    (``#mw-content-text`` or the body), outside tables, infoboxes, navboxes and references,
    before the first notes/references/see-also heading; citations removed; empty ones dropped.
    """
    from lxml import etree
    from lxml import html as lxml_html

    try:
        doc = lxml_html.document_fromstring(html)
    except (etree.ParserError, ValueError):
        return []
    etree.strip_elements(doc, *_SKIP, with_tail=False)
    content = (doc.xpath('//*[@id="mw-content-text"]') or doc.xpath("//body") or [doc])[0]
    paragraphs = []
    for element in content.iter("p", "h2"):
        if any(_is_noise(a) for a in element.iterancestors()) or _is_noise(element):
            continue
        text = re.sub(r"\s+", " ", "".join(element.itertext())).strip()
        if element.tag == "h2":
            if re.sub(r"\[.*?\]|編集", "", text).strip().lower() in STOP_HEADINGS:
                break
            continue
        if text:
            paragraphs.append(text)
    return paragraphs


def cosine(a: Counter, b: Counter) -> float:
    """Cosine similarity of two bag-of-words vectors (0 when either is empty)."""
    dot = sum(count * b[word] for word, count in a.items() if word in b)
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm if norm else 0.0


def select_candidates(paragraphs: Sequence[str], snippet: str,
                      tokenize: Callable[[list[str]], list[list[str]]],
                      k: int = CANDIDATES) -> list[ParagraphCandidate]:
    """JNQ §3.3: the first paragraph (rank 0), then the ``k - 1`` others by cosine with the
    snippet (ranks 1..), ties to the earlier paragraph."""
    if not paragraphs:
        return []
    bags = [Counter(tokens) for tokens in tokenize([snippet, *paragraphs])]
    query, vectors = bags[0], bags[1:]
    scores = [round(cosine(query, vector), 6) for vector in vectors]
    others = sorted(range(1, len(paragraphs)), key=lambda i: (-scores[i], i))[:k - 1]
    return [ParagraphCandidate(0, 0, scores[0])] + [
        ParagraphCandidate(i, rank, scores[i]) for rank, i in enumerate(others, start=1)]
