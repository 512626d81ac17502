"""The categorical noun lexicon used by NQ heuristics 4 and 5 (TSV: lemma, count, hyponyms)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass, field

HEADER = ("lemma", "count", "distinct_hyponyms", "examples")


@dataclass
class CategoryLexicon:
    """Head lemmas of categorical noun phrases with how often Hearst patterns found them."""

    counts: dict[str, int] = field(default_factory=dict)
    hyponyms: dict[str, int] = field(default_factory=dict)
    min_count: int = 1

    def __contains__(self, lemma: object) -> bool:
        return isinstance(lemma, str) and self.counts.get(lemma.lower(), 0) >= self.min_count

    def __len__(self) -> int:
        return sum(1 for c in self.counts.values() if c >= self.min_count)

    @classmethod
    def from_tsv(cls, text: str, min_count: int = 1) -> CategoryLexicon:
        reader = csv.DictReader(io.StringIO(text), delimiter="\t")
        if not reader.fieldnames or "lemma" not in reader.fieldnames:
            raise ValueError("category lexicon needs a 'lemma' column (TSV with header)")
        counts, hyponyms = {}, {}
        for row in reader:
            lemma = (row.get("lemma") or "").strip().lower()
            if lemma:
                counts[lemma] = int(row.get("count") or 1)
                hyponyms[lemma] = int(row.get("distinct_hyponyms") or 0)
        return cls(counts, hyponyms, min_count)


def lexicon_tsv(rows: Iterable[tuple[str, int, int, list[str]]]) -> str:
    """Serialize ``(lemma, count, distinct hyponyms, examples)`` rows, most frequent first."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow(HEADER)
    for lemma, count, distinct, examples in sorted(rows, key=lambda r: (-r[1], r[0])):
        writer.writerow((lemma, count, distinct, "|".join(examples[:5])))
    return out.getvalue()
