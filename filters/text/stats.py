"""Length statistics of documents, answers and questions (NLQuAD Table 2)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def word_count(text: str) -> int:
    """Whitespace-separated words, the unit of NLQuAD's word offsets and IoU."""
    return len(text.split())


class SentenceCounter:
    """Count sentences per paragraph with spaCy's rule-based ``sentencizer``.

    A blank English pipeline: no model download, deterministic, about 1 ms per article.
    Sentences never cross paragraph boundaries, so a text's count is the sum over paragraphs.
    Not picklable once loaded: create it in ``DoFn.setup()``.
    """

    def __init__(self) -> None:
        import spacy

        self._nlp = spacy.blank("en")
        self._nlp.add_pipe("sentencizer")

    def per_paragraph(self, paragraphs: Sequence[str]) -> list[int]:
        return [sum(1 for _ in doc.sents) for doc in self._nlp.pipe(paragraphs)]


def question_prefixes(question: str) -> tuple[str, str]:
    """First word and first two words of a question, lower-cased (NLQuAD Table 3)."""
    words = question.lower().replace("?", " ").split()
    return (words[0] if words else "", " ".join(words[:2]))


def percentile_summary(histogram: dict[int, int]) -> dict[str, float]:
    """count, mean, min, median, p90, max of an integer histogram ``{value: frequency}``."""
    total = sum(histogram.values())
    if not total:
        return {"count": 0}
    values = sorted(histogram)
    summary: dict[str, float] = {
        "count": total,
        "mean": round(sum(v * f for v, f in histogram.items()) / total, 2),
        "min": values[0],
        "max": values[-1],
    }
    for name, q in (("median", 0.5), ("p90", 0.9)):
        summary[name] = _quantile(values, histogram, q * (total - 1))
    return summary


def _quantile(values: Iterable[int], histogram: dict[int, int], rank: float) -> int:
    seen = 0
    for value in values:
        seen += histogram[value]
        if seen > rank:
            return value
    return max(histogram)
