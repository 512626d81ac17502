"""Hearst (1992) lexico-syntactic patterns: hypernym candidates for NQ's categorical nouns.

Patterns over noun phrases (NP), as in Hearst's paper:

* ``NP such as NP, NP (and|or) NP``    ``such NP as NP, ...``
* ``NP, NP (, NP)* (and|or) other NP``
* ``NP, including NP, ...``             ``NP, especially NP, ...``

Noun phrases are spaCy noun chunks; the hypernym is the lemma of the head noun of the
category phrase ("European countries" -> "country"), the hyponyms are the other phrases.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

STOP_HYPERNYMS = frozenset({
    "thing", "stuff", "way", "one", "lot", "part", "example", "other", "others", "kind",
    "type", "sort", "form", "something", "anything", "everything", "item", "aspect", "feature",
    "factor", "issue", "matter", "case", "number", "variety", "range", "member", "element",
})

_NP = r"NP(\d+)"
_LIST = rf"{_NP}(?: , {_NP})*(?: ,)? (?:and|or) {_NP}|{_NP}(?: , {_NP})*"
_PATTERNS = (
    ("such_as", re.compile(rf"{_NP}(?: ,)? such as ((?:{_LIST}))")),
    ("such_np_as", re.compile(rf"such {_NP} as ((?:{_LIST}))")),
    ("or_other", re.compile(rf"((?:{_NP} , )*{_NP}(?: ,)?) or other {_NP}")),
    ("and_other", re.compile(rf"((?:{_NP} , )*{_NP}(?: ,)?) and other {_NP}")),
    ("including", re.compile(rf"{_NP} , including ((?:{_LIST}))")),
    ("especially", re.compile(rf"{_NP} , especially ((?:{_LIST}))")),
)


@dataclass(frozen=True)
class HearstMatch:
    pattern: str
    hypernym: str
    hyponyms: tuple[str, ...]


_CUE_WORDS = frozenset({"other", "such", "especially", "including"})


def _encode(doc) -> tuple[str, list]:
    """Sentence text with each noun phrase replaced by ``NP<i>``.

    spaCy's noun chunks absorb the pattern cue words ("other works", "such composers",
    "especially landscapes"); those are split off so the patterns can see them.
    """
    phrases = []
    for chunk in doc.noun_chunks:
        start = chunk.start
        while start < chunk.end - 1 and doc[start].lower_ in _CUE_WORDS:
            start += 1
        if chunk.root.pos_ in ("NOUN", "PROPN"):
            phrases.append(doc[start:chunk.end])
    by_start = {p.start: (n, p) for n, p in enumerate(phrases)}
    parts, i = [], 0
    while i < len(doc):
        if i in by_start:
            n, phrase = by_start[i]
            parts.append(f"NP{n}")
            i = phrase.end
        else:
            parts.append(doc[i].lower_)
            i += 1
    return " ".join(parts), phrases


def _hypernym(chunk) -> str | None:
    root = chunk.root
    if root.pos_ != "NOUN":
        return None
    lemma = root.lemma_.lower()
    if lemma in STOP_HYPERNYMS or not lemma.isalpha() or len(lemma) < 3:
        return None
    return lemma


def hearst_matches(doc) -> Iterator[HearstMatch]:
    """Hearst-pattern matches in a parsed spaCy ``Doc`` (one sentence or a paragraph)."""
    for sentence in doc.sents:
        encoded, chunks = _encode(sentence.as_doc())
        for name, pattern in _PATTERNS:
            for match in pattern.finditer(encoded):
                numbers = [int(n) for n in re.findall(_NP, match.group(0))]
                if name in ("or_other", "and_other"):
                    category, members = numbers[-1], numbers[:-1]
                else:
                    category, members = numbers[0], numbers[1:]
                hypernym = _hypernym(chunks[category])
                if hypernym and members:
                    hyponyms = tuple(chunks[m].text.lower() for m in members)
                    yield HearstMatch(name, hypernym, hyponyms)
