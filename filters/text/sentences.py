"""Sentence boundaries with character offsets, for ReQA answer indexes.

ReQA (Ahmad, Constant, Yang, Cer 2019, "ReQA: An Evaluation for End-to-End Answer Retrieval
Models", §3) splits every paragraph into sentences: each sentence is a retrieval candidate and
its paragraph the candidate's context. The paper used Google's internal sentence breaker; we
use spaCy's English pipeline, ``en_core_web_sm`` 3.8 (``filters.text.spacy_models.load_english``).

Which spaCy component? Measured on real text: the 31 ``<P>`` long-answer candidates of the 3
official NQ dev pages (``../shared/data/nq``, NQ's space-joined tokens, 17,889 characters) and
132 groups of three consecutive paragraphs of the 10 real BBC pages of ``../shared/data/bbc``
(natural running text like SQuAD's, with many quotations, 56,691 characters); milliseconds per
paragraph on one core, ``nlp.pipe``, batch 64; every component followed by the one rule
below:

=================  ============  =============  ==========================================
component          NQ ms / par.  BBC ms / par.  wrong boundaries (of 42 disputed places)
=================  ============  =============  ==========================================
``parser``         4.97          3.76           5 spurious
``senter``         0.72          0.54           1 spurious, 1 missed
``sentencizer``    0.48          0.40           32 missed, 1 misplaced, 1 spurious
=================  ============  =============  ==========================================

Agreement (boundary F1): parser-senter 0.984 (NQ) and 0.994 (BBC); parser-sentencizer 0.979
and 0.942. Every place where the three disagree was judged by hand (the last column): the
rule-based ``sentencizer`` attaches the opening quote of the next sentence to the previous one
(``... lower inflation. "`` / ``Threats of ...``), which the rule below then undoes by merging
the two sentences (30 of its 32 misses), and it splits at ``?`` inside a quotation; the
``parser`` splits mid-sentence next to quotations and brackets (``Troy sings the song ( ``
Everyday '' )`` / ``alone until ...``); the ``senter`` splits once before a closing bracket
(``'' ) .`` / ``)``) and misses a heading run into the next sentence without punctuation.

On 16 paragraphs with 20 hand-marked boundaries (``tests/filters/text/test_sentences.py``) written
to probe abbreviations (``Rev.``, ``Dr.``, ``U.S.``, ``e.g.``, ``c.``, ``St.``,
``No. 3``, ``Sept.``), initials (``J. R. R. Tolkien``), decimals, quotations and ``?``/``!``:
parser and senter are both exact (F1 1.000), the sentencizer scores 0.950 (``No. 3`` and a
quotation). So the ``senter`` is as accurate as the parser here (better on the real text) and
about 7 times faster: it is the one used. It is disabled by default in ``en_core_web_sm``; it
carries its own tok2vec, so everything else (tok2vec, tagger, parser, lemmatizer, NER) is
excluded.

The rule: a sentence never starts inside a whitespace-delimited word; such a piece is merged
into the sentence before it. Without it the senter splits ``Co`` / ``-operative chairwoman
...`` (a paragraph of the bundled NLQuAD sample) and, 3 times in the BBC text above, after an
opening bracket (``pleased [`` / ``with what I have achieved]``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

# Every component of en_core_web_sm except ``senter`` (which has its own embedded tok2vec).
EXCLUDED_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner")
SENTENCE_COMPONENT = "senter"


def load_sentence_pipeline() -> Any:
    """The installed English pipeline reduced to its statistical ``senter`` (see module doc).
    Unpicklable: call it from ``DoFn.setup()`` (or use :class:`SentenceSplitter`)."""
    from filters.text.spacy_models import load_english

    nlp = load_english(exclude=EXCLUDED_COMPONENTS)
    nlp.enable_pipe(SENTENCE_COMPONENT)
    return nlp


def _spans(doc: Any) -> list[tuple[int, int]]:
    text = doc.text
    spans: list[tuple[int, int]] = []
    for sent in doc.sents:
        start, end = sent.start_char, sent.end_char
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start >= end:
            continue
        if spans and sent.start_char > 0 and not text[sent.start_char - 1].isspace():
            spans[-1] = (spans[-1][0], end)  # never split inside a word ("Co" / "-operative")
        else:
            spans.append((start, end))
    return spans


def split_sentences(nlp: Any, text: str) -> list[tuple[int, int]]:
    """Character ``[start, end)`` offsets of the sentences of ``text``, in order.

    ``text[start:end]`` is a sentence without leading or trailing whitespace; whitespace-only
    pieces are left out, so an empty or blank text has no sentence. ``nlp`` is any spaCy
    pipeline that sets sentence boundaries (:func:`load_sentence_pipeline` for ReQA)."""
    return _spans(nlp(text))


def split_many(nlp: Any, texts: Iterable[str], batch_size: int = 64) -> list[list[tuple[int, int]]]:
    """:func:`split_sentences` of every text, batched through ``nlp.pipe``."""
    return [_spans(doc) for doc in nlp.pipe(texts, batch_size=batch_size)]


class SentenceSplitter:
    """Sentence splitter whose spaCy pipeline is created on first use.

    The pipeline is not picklable: create the splitter in ``DoFn.setup()`` (or let the first
    call create the pipeline there); a splitter pickled before first use is fine."""

    def __init__(self, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._nlp: Any = None

    def load(self) -> None:
        """Load the spaCy pipeline now (once per worker, in ``DoFn.setup()``)."""
        self.nlp  # noqa: B018 - the property loads it

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            self._nlp = load_sentence_pipeline()
        return self._nlp

    def split(self, text: str) -> list[tuple[int, int]]:
        """Sentence offsets of one text (see :func:`split_sentences`)."""
        return split_sentences(self.nlp, text)

    def split_all(self, texts: Sequence[str]) -> list[list[tuple[int, int]]]:
        """Sentence offsets of every text, batched."""
        return split_many(self.nlp, texts, self.batch_size)

    def __getstate__(self) -> dict[str, Any]:
        return {"batch_size": self.batch_size, "_nlp": None}
