"""The Natural Questions question heuristics (Kwiatkowski et al. 2019, §3.1).

NQ keeps a query of 8+ words issued by several users when it:

1. starts with "who", "when" or "where" directly followed by (a) a finite form of "do" or a
   modal verb, or (b) a finite form of "be" or "have" with a verb in some later position;
2. starts with "who" directly followed by a verb that is not a finite form of "be";
3. contains multiple entities as well as an adjective, adverb, verb, or determiner;
4. contains a categorical noun phrase immediately preceded by a preposition or relative clause;
5. ends with a categorical noun phrase, and does not contain a preposition or relative clause.

NQ tagged queries with Google's Cloud Natural Language API; we use spaCy's tagger and parser
through ``QueryView`` (a plain, picklable view of a tagged query, so every rule is a pure
function testable without a model).

What an "entity" is decides rule 3. The Cloud NL API reports *mentions*: proper ones (named
things, found even in lower-case text) and common ones (noun phrases that refer to something
specific). spaCy's NER finds almost nothing in lower-case queries, so ``entity_mentions``
counts, merging overlaps into one mention:

* runs of proper nouns, named-entity spans, numbers and years;
* noun phrases headed by a common noun, unless they do not refer to a specific thing:
  indefinite or possessive-personal phrases ("a cosigner", "your phone"), and bare plurals
  ("tabs", "students") in a query without a finite verb, where they name a kind (the typical
  objects of "how to ..." task queries) rather than the things a question is about.

For the "verb" of rule 3 an infinitive after "to" does not count: "how to change ..." states a
task, not a fact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

QUESTION_START = frozenset({"who", "when", "where"})
FINITE_DO = frozenset({"do", "does", "did"})
MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "may", "might", "must",
                    "ca", "wo", "'ll", "'d"})
FINITE_BE = frozenset({"is", "are", "was", "were", "am", "'s", "'re", "'m"})
FINITE_HAVE = frozenset({"has", "have", "had", "'ve"})
RELATIVE_PRONOUNS = frozenset({"who", "whom", "whose", "which", "that"})
NON_SPECIFIC_DETERMINERS = frozenset({
    "a", "an", "some", "any", "another", "no", "every", "each", "my", "your", "our", "their",
    "his", "her", "its", "one",
})
NP_TOKENS = frozenset({"DET", "ADJ", "NOUN", "PROPN", "NUM"})
FINITE_TAGS = frozenset({"VBD", "VBP", "VBZ", "MD"})
VERB_TAGS = frozenset({"VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "MD"})


@dataclass(frozen=True)
class Token:
    """One tagged token: Penn ``tag`` and universal ``pos`` as spaCy assigns them."""

    text: str
    lower: str
    lemma: str
    pos: str
    tag: str
    like_num: bool = False


@dataclass(frozen=True)
class QueryView:
    """A tagged query: tokens, noun chunks and named-entity spans (``[start, end)``)."""

    tokens: tuple[Token, ...]
    noun_chunks: tuple[tuple[int, int], ...] = ()
    entities: tuple[tuple[int, int], ...] = ()

    def __len__(self) -> int:
        return len(self.tokens)


def query_view(doc) -> QueryView:
    """Build a QueryView from a spaCy ``Doc`` (tagger, parser and NER applied)."""
    tokens = tuple(Token(t.text, t.lower_, t.lemma_.lower(), t.pos_, t.tag_, t.like_num)
                   for t in doc)
    chunks = tuple((c.start, c.end) for c in doc.noun_chunks)
    entities = tuple((e.start, e.end) for e in doc.ents)
    return QueryView(tokens, chunks, entities)


def _is_verb(token: Token) -> bool:
    return token.pos in ("VERB", "AUX") or token.tag in VERB_TAGS


def _is_finite_do(token: Token) -> bool:
    return token.lower in FINITE_DO


def _is_modal(token: Token) -> bool:
    return token.tag == "MD" or token.lower in MODALS


def _is_finite_be(token: Token) -> bool:
    return token.lower in FINITE_BE


def heuristic_1(q: QueryView) -> bool:
    """NQ §3.1 heuristic 1: who/when/where + finite do or modal, or + finite be/have with a
    verb in some later position."""
    if len(q) < 2 or q.tokens[0].lower not in QUESTION_START:
        return False
    second = q.tokens[1]
    if _is_finite_do(second) or _is_modal(second):
        return True
    if _is_finite_be(second) or second.lower in FINITE_HAVE:
        return any(_is_verb(t) for t in q.tokens[2:])
    return False


def heuristic_2(q: QueryView) -> bool:
    """NQ §3.1 heuristic 2: "who" directly followed by a verb that is not a finite form of be."""
    if len(q) < 2 or q.tokens[0].lower != "who":
        return False
    second = q.tokens[1]
    return _is_verb(second) and not _is_finite_be(second) and second.lemma != "be"


def _proper_runs(q: QueryView) -> list[tuple[int, int]]:
    runs, start = [], None
    for i, token in enumerate(q.tokens + (Token("", "", "", "", ""),)):
        if token.pos == "PROPN" and start is None:
            start = i
        elif token.pos != "PROPN" and start is not None:
            runs.append((start, i))
            start = None
    return runs


def entity_mentions(q: QueryView) -> list[tuple[int, int]]:
    """Entity mentions in the sense of the Cloud NL API (see the module docstring).

    Overlapping candidates (a proper-noun run inside a noun phrase, an NER span over a
    proper-noun run) are one mention: "the suffolk county police department" is one entity.
    """
    candidates = _proper_runs(q) + list(q.entities)
    finite = any(t.tag in FINITE_TAGS for t in q.tokens)
    for start, end in q.noun_chunks:
        head, first = q.tokens[end - 1], q.tokens[start]
        generic_plural = (not finite and head.tag == "NNS"
                          and first.pos not in ("DET", "NUM", "PROPN"))
        specific = first.lower not in NON_SPECIFIC_DETERMINERS and not generic_plural
        if head.pos == "PROPN" or (head.pos == "NOUN" and specific):
            candidates.append((start, end))
    candidates += [(i, i + 1) for i, t in enumerate(q.tokens) if t.like_num or t.pos == "NUM"]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(candidates):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _descriptive_word(q: QueryView) -> bool:
    for i, token in enumerate(q.tokens):
        if token.pos in ("ADJ", "ADV", "DET"):
            return True
        if _is_verb(token) and not (token.tag == "VB" and i > 0 and q.tokens[i - 1].lower == "to"):
            return True
    return False


def heuristic_3(q: QueryView) -> bool:
    """NQ §3.1 heuristic 3: multiple entities as well as an adjective, adverb, verb (not an
    infinitive after "to") or determiner."""
    return len(entity_mentions(q)) >= 2 and _descriptive_word(q)


def categorical_phrases(q: QueryView, is_category: Callable[[str], bool]
                        ) -> list[tuple[int, int]]:
    """``[start, end)`` of noun phrases containing a categorical noun (lexicon lemma).

    The phrase extends left from the categorical noun over determiners, adjectives, nouns and
    numbers, and right over following nouns of the same compound ("movie poster" is a phrase
    containing the category "movie").
    """
    phrases = []
    for i, token in enumerate(q.tokens):
        if token.pos not in ("NOUN", "PROPN") or not is_category(token.lemma):
            continue
        start = i
        while start > 0 and q.tokens[start - 1].pos in NP_TOKENS:
            start -= 1
        if start > 0 and q.tokens[start - 1].tag == "WDT":
            start -= 1
        end = i + 1
        while end < len(q) and q.tokens[end].pos in ("NOUN", "PROPN"):
            end += 1
        phrases.append((start, end))
    return sorted(set(phrases))


def _preceded_by_preposition(q: QueryView, start: int) -> bool:
    return start > 0 and (q.tokens[start - 1].pos == "ADP" or q.tokens[start - 1].tag == "IN")


def _preceded_by_relative_clause(q: QueryView, start: int) -> bool:
    """The phrase follows a relative pronoun and the verb group of its clause."""
    i = start - 1
    seen_verb = False
    while i > 0 and (_is_verb(q.tokens[i]) or q.tokens[i].pos in ("ADV", "PART")):
        seen_verb = seen_verb or _is_verb(q.tokens[i])
        i -= 1
    return seen_verb and i < start - 1 and q.tokens[i].lower in RELATIVE_PRONOUNS and i > 0


def _has_preposition_or_relative(q: QueryView) -> bool:
    return any(t.pos == "ADP" or t.tag == "IN" for t in q.tokens) or any(
        t.lower in RELATIVE_PRONOUNS and t.tag in ("WDT", "WP", "WP$") and i > 0
        for i, t in enumerate(q.tokens))


def heuristic_4(q: QueryView, is_category: Callable[[str], bool]) -> bool:
    """NQ §3.1 heuristic 4: a categorical noun phrase immediately preceded by a preposition or
    a relative clause."""
    return any(_preceded_by_preposition(q, start) or _preceded_by_relative_clause(q, start)
               for start, _ in categorical_phrases(q, is_category))


def heuristic_5(q: QueryView, is_category: Callable[[str], bool]) -> bool:
    """NQ §3.1 heuristic 5: ends with a categorical noun phrase and contains no preposition or
    relative clause."""
    phrases = categorical_phrases(q, is_category)
    return bool(phrases) and phrases[-1][1] == len(q) and not _has_preposition_or_relative(q)


def matched_heuristics(q: QueryView, is_category: Callable[[str], bool]) -> list[int]:
    """Numbers of the NQ heuristics that accept the query (empty: rejected)."""
    checks: Iterable[tuple[int, bool]] = (
        (1, heuristic_1(q)),
        (2, heuristic_2(q)),
        (3, heuristic_3(q)),
        (4, heuristic_4(q, is_category)),
        (5, heuristic_5(q, is_category)),
    )
    return [number for number, fired in checks if fired]
