"""The Natural Questions question heuristics (Kwiatkowski et al. 2019, §3.1).

NQ keeps a query of 8+ words issued by several users when it:

1. starts with "who", "when" or "where" directly followed by (a) a finite form of "do" or a
   modal verb, or (b) a finite form of "be" or "have" with a verb in some later position;
2. starts with "who" directly followed by a verb that is not a finite form of "be";
3. contains multiple entities as well as an adjective, adverb, verb, or determiner;
4. contains a categorical noun phrase immediately preceded by a preposition or relative clause;
5. ends with a categorical noun phrase, and does not contain a preposition or relative clause.

Rules 6-8 are ours (``heuristic_6`` .. ``heuristic_8``): every EfficientQA dev question
passed NQ's own filter, so each real question these rules miss is a gap of our substitute
for Google's tagger, not of the paper's rules. They are:

6. a degree question: "how" + adjective/adverb ("how long", "how much") + an auxiliary, the
   measure-seeking twin of rule 1;
7. a fill-in-the-blank statement or stranded-preposition question: a finite clause ending in a
   preposition, determiner or "be" that has no complement ("... is known as");
8. a superlative description: a noun modified by a superlative or an ordinal ("most goals
   ever scored in a world cup match", "the biggest us air force base").

None of them, nor the looser mentions below, applies to a *task query* (``is_task_query``:
"how to ...", "where to ...", an imperative "buy ..."), whose exclusion is what keeps "how to"
queries out, as NQ §3.1 reports of its filter.

NQ tagged queries with Google's Cloud Natural Language API; we use spaCy's tagger and parser
through ``QueryView`` (a plain, picklable view of a tagged query, so every rule is a pure
function testable without a model).

What an "entity" is decides rule 3. The Cloud NL API reports *mentions*: proper ones (named
things, found even in lower-case text) and common ones (noun phrases, including those that
refer to a kind: "the purpose of *a valve*"). spaCy's NER finds almost nothing in lower-case
queries, so ``entity_mentions`` counts, merging overlaps into one mention:

* runs of proper nouns, named-entity spans, numbers and years;
* noun phrases headed by a common noun, except:

  - in a task query, indefinite or possessive-personal phrases ("a cosigner", "your phone"):
    there they are the open objects of the task ("how to find a lawyer for your house"), not
    things a question is about. Elsewhere they count, as the Cloud NL API counts them: "what
    is the role of a lance corporal" names two things. (Until issue 16 they never counted,
    which cost 2% of EfficientQA dev, mostly this class.)
  - bare plurals ("tabs", "students") in a query without a finite verb, where they name a
    kind (keyword and task queries: "ideas for crafts projects for senior citizens") rather
    than the things a question is about. A plural determined by a wh-word is not bare: "how
    many letters in the modern greek alphabet" (a verbless count question) names the set it
    counts.

For the "verb" of rule 3 an infinitive after "to" does not count: "how to change ..." states a
task, not a fact.

Measured by ``benchmarks/bench_nq_filter.py`` (guarded by
``tests/filters/nq/test_heuristics_realdata.py``): before issue 16 EfficientQA dev recall was
95.7% with "how to" acceptance 25.9% (MS MARCO + MQ 2007) and 34.2% (our own 120); the task
exemption and rules 6-8 raise recall to 98.6% and leave both "how to" figures unchanged.
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


def is_task_query(q: QueryView) -> bool:
    """The query states a task rather than asks for a fact: it opens with a wh-word and "to"
    ("how to ...", "where to ...", "what to ...") or with a base-form verb (an imperative, "buy
    cheap shoes ..."), or it has no finite verb and its first verb is an infinitive after "to".

    NQ §3.1 reports that its heuristics reject "how to" queries; a task query's predicate is
    an infinitive or an imperative, not a finite verb, and this is what the exemptions of
    ``entity_mentions`` and rules 6-8 turn on. Questions with a finite verb are not tasks:
    "how long does it take to ...", "the first man to walk on the moon was".
    """
    if not q.tokens:
        return False
    first = q.tokens[0]
    if first.tag == "VB" or (len(q) > 1 and q.tokens[1].tag == "TO" and first.tag.startswith("W")):
        return True
    if any(t.tag in FINITE_TAGS for t in q.tokens):
        return False
    for i, token in enumerate(q.tokens):
        if _is_verb(token):
            return token.tag == "VB" and i > 0 and q.tokens[i - 1].lower == "to"
    return False


def entity_mentions(q: QueryView) -> list[tuple[int, int]]:
    """Entity mentions in the sense of the Cloud NL API (see the module docstring).

    Overlapping candidates (a proper-noun run inside a noun phrase, an NER span over a
    proper-noun run) are one mention: "the suffolk county police department" is one entity.
    """
    candidates = _proper_runs(q) + list(q.entities)
    finite = any(t.tag in FINITE_TAGS for t in q.tokens)
    task = is_task_query(q)
    for start, end in q.noun_chunks:
        head, first = q.tokens[end - 1], q.tokens[start]
        generic_plural = (not finite and head.tag == "NNS"
                          and first.pos not in ("DET", "NUM", "PROPN")
                          and not first.tag.startswith("W"))
        specific = not generic_plural and (
            not task or first.lower not in NON_SPECIFIC_DETERMINERS)
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


def heuristic_6(q: QueryView) -> bool:
    """Ours, extending NQ §3.1 heuristic 1 to degree questions: "how" + an adjective or adverb
    ("how long", "how much", "how old") directly followed by a finite "do" or a modal, or by a
    finite "be"/"have" with a verb or an entity mention in some later position.

    Heuristic 1 takes "who/when/where + auxiliary" as the mark of a question seeking a fact (a
    person, a time, a place). "how" + a gradable word asks for a measure (a duration, an
    amount, an age), a fact of the same kind; "how" + an auxiliary ("how do i ...") asks for a
    manner or a procedure and stays out, as do task queries ("how long to boil an egg").
    EfficientQA dev (all of which passed NQ's own filter) has "how long did the ... game last"
    and "how much is a round 50 cent piece"; without the rule only a second mention saves them.
    """
    if len(q) < 3 or q.tokens[0].lower != "how" or is_task_query(q):
        return False
    degree, aux = q.tokens[1], q.tokens[2]
    if degree.pos not in ("ADJ", "ADV") or not degree.tag.startswith(("JJ", "RB")):
        return False
    if _is_finite_do(aux) or _is_modal(aux):
        return True
    if _is_finite_be(aux) or aux.lower in FINITE_HAVE:
        return any(_is_verb(t) for t in q.tokens[3:]) or any(
            start >= 3 for start, _ in entity_mentions(q))
    return False


def _ends_with_gap(q: QueryView) -> bool:
    """The last token wants a complement it does not have: a preposition without its object
    ("... made of"), a determiner without its noun ("... an example of a") or a finite "be"
    without its predicate ("... from one person to another is")."""
    last = q.tokens[-1]
    return last.tag in ("IN", "DT") or _is_finite_be(last)


def heuristic_7(q: QueryView) -> bool:
    """Ours: a fill-in-the-blank statement or a question with a stranded preposition, that is a
    finite clause ending in a gap (``_ends_with_gap``) with an entity mention, and no task.

    The gap is where the answer goes: "the capital city of australia is known as ___", "what
    was the roman social structure based on" (the wh-word is the stranded preposition's
    object). Such a query seeks an entity like the wh-questions of NQ §3.1 heuristic 1, but it
    names only one thing itself, so heuristic 3 cannot count two; EfficientQA dev has both
    forms (a quiz-style "the postal service is an example of a"). A finite verb is required
    so that a keyword query cut off after a preposition is not taken for a blank.
    """
    if len(q) < 2 or is_task_query(q) or not _ends_with_gap(q):
        return False
    finite = any(t.tag in FINITE_TAGS for t in q.tokens)
    return finite and bool(entity_mentions(q))


ORDINALS = frozenset({"first", "second", "third", "fourth", "fifth", "last", "only"})


def _superlative_nouns(q: QueryView) -> list[int]:
    """Positions of nouns modified by a superlative ("biggest", "most", "most popular") or an
    ordinal ("first", "last", "only"), across the adjectives, adverbs and numbers between."""
    nouns = []
    for i, token in enumerate(q.tokens):
        if not (token.tag in ("JJS", "RBS") or (token.lower in ORDINALS and token.pos != "ADV")):
            continue
        j = i + 1
        while j < len(q) and q.tokens[j].pos in ("ADJ", "ADV", "NUM"):
            j += 1
        if j < len(q) and q.tokens[j].pos in ("NOUN", "PROPN"):
            nouns.append(j)
    return nouns


def heuristic_8(q: QueryView) -> bool:
    """Ours: a superlative description: a noun modified by a superlative or an ordinal
    (``_superlative_nouns``) in a query that is no task and either opens with the
    superlative ("most goals ever scored in a world cup match"), has a finite verb ("where is
    the biggest us air force base") or mentions another entity.

    A superlative picks out one thing, the extreme of its comparison class, so a superlative
    phrase refers to a specific entity even when it is a bare plural or in a fragment: a
    fact-seeking question, not a task ("best ways to ..." starts a task only with an
    infinitive, and tasks are excluded). The Cloud NL API counts both the superlative phrase
    and its class ("world cup match") as mentions; spaCy's chunks often merge or drop them, so
    heuristic 3 misses what NQ's rule 3 kept.
    """
    if is_task_query(q):
        return False
    finite = any(t.tag in FINITE_TAGS for t in q.tokens)
    mentions = entity_mentions(q)
    for noun in _superlative_nouns(q):
        others = any(not start <= noun < end for start, end in mentions)
        if finite or others or q.tokens[0].tag in ("JJS", "RBS") or q.tokens[0].lower in ORDINALS:
            return True
    return False


def matched_heuristics(q: QueryView, is_category: Callable[[str], bool]) -> list[int]:
    """Numbers of the heuristics that accept the query (empty: rejected): NQ §3.1's 1-5 and
    our 6-8 (see the module docstring)."""
    checks: Iterable[tuple[int, bool]] = (
        (1, heuristic_1(q)),
        (2, heuristic_2(q)),
        (3, heuristic_3(q)),
        (4, heuristic_4(q, is_category)),
        (5, heuristic_5(q, is_category)),
        (6, heuristic_6(q)),
        (7, heuristic_7(q)),
        (8, heuristic_8(q)),
    )
    return [number for number, fired in checks if fired]
