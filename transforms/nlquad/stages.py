"""Beam transforms of the NLQuAD pipeline: parse, deduplicate, remove boilerplate, extract QA.

Each DoFn accounts for every input (``transforms.core.accounting``): kept, skipped or dropped with a
named reason, or dead-lettered with its error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import apache_beam as beam

from filters.bbc.article import PARAGRAPH, Block, ParseSkip, parse_bbc_article
from filters.bbc.boilerplate import (
    document_fingerprint,
    is_template_text,
    paragraph_fingerprint,
)
from filters.bbc.urls import classify_bbc_url, is_bbc_host
from filters.nlquad.dedup import capture_preference, content_preference
from filters.nlquad.layout import AUTO, BBC, layout_for
from filters.nlquad.news_article import GENERIC_ERA, NewsParser
from filters.nlquad.qa import build_document
from filters.text.html_decoding import decode_html
from filters.text.splits import assign_split
from filters.text.stats import SentenceCounter, question_prefixes, word_count
from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, rejected, tally
from transforms.core.counters import Counter as CounterName
from transforms.core.progress import Progress
from transforms.nlquad.carried_summary import Kept, summarize
from transforms.nlquad.counters import (
    DEDUP,
    DEDUPLICATED,
    DOCUMENTS_KEPT,
    DROPPED,
    DUPLICATE_CAPTURE,
    DUPLICATE_CAPTURE_OF_CARRIED,
    DUPLICATE_CONTENT,
    DUPLICATE_CONTENT_OF_CARRIED,
    ENCODING,
    FIRST_TWO_WORDS,
    FIRST_WORD,
    FOUND,
    KEPT,
    NON_INTERROGATIVE_SUBHEADINGS,
    PAGES,
    PAGES_PARSED,
    PAGES_READ,
    PAGES_SKIPPED,
    PARSED_ERA,
    PROMO_LIST_REMOVED,
    QUESTIONS,
    REPEATED_PARAGRAPHS_REMOVED,
    SUBHEADINGS,
    TEMPLATE_PARAGRAPHS_REMOVED,
    WITHOUT_QUESTIONS,
)
from transforms.nlquad.lengths import (
    ANSWER_SENTENCES,
    answer_sentences,
    document_lengths,
    histogram_entries,
    row_lengths,
)
from transforms.nlquad.outcomes import SKIPPED_PAGES, skip_outcome
from transforms.nlquad.sidecar import CapturedDocument
from transforms.sources.pages import CapturedPage

BOILERPLATE_MIN_WORDS = 4  # --boilerplate-min-words: shorter paragraphs are never repeated


@dataclass(frozen=True)
class ArticleRecord:
    """A parsed article capture, the unit of deduplication."""

    document_id: str
    asset_key: str
    canonical_url: str
    capture_url: str
    capture_timestamp: str
    is_amp: bool
    era: str
    headline: str
    published: str
    blocks: tuple[Block, ...]
    encoding: str
    capture_digest: str = ""  # CapturedPage.payload_digest of its capture
    # (question, reason) of the question headings the generic parser removed as furniture
    dropped_headings: tuple[tuple[str, str], ...] = ()

    @property
    def paragraphs(self) -> list[str]:
        return [b.text for b in self.blocks if b.kind == PARAGRAPH]

    def text_fingerprint(self) -> str:
        """What content deduplication compares: the fingerprint of its paragraphs."""
        return document_fingerprint(self.paragraphs)

    def describe(self) -> dict[str, str]:
        return {"document_id": self.document_id, "url": self.capture_url,
                "timestamp": self.capture_timestamp}


def _counted(method: str) -> str:
    """The decoding method ``ParsePages`` counted (``ENCODING``), or ``""``."""
    return method if method in ENCODING else ""


class ParsePages(beam.DoFn):
    """CapturedPage -> ArticleRecord, or a skip with a named reason, or a dead letter.

    ``layout`` (``filters.nlquad.layout``) chooses the BBC parser or the generic extractor
    per page; the extractor's settings are made on the worker (``setup``), never pickled.
    With ``outcomes`` each skip is also emitted to ``OUTCOMES`` as a ``SkipOutcome``
    (``transforms.nlquad.outcomes``: what a refresh carries instead of parsing it again)."""

    STAGE = PAGES
    OUTCOMES = "skip_outcomes"

    def __init__(self, progress_every_s: float | None = None,
                 progress_total: int | None = None, layout: str = AUTO,
                 outcomes: bool = False):
        self.progress_every_s, self.progress_total = progress_every_s, progress_total
        self.layout, self.outcomes = layout, outcomes

    def setup(self):
        self._progress = Progress("pages parsed", self.progress_every_s, self.progress_total)
        self._news = NewsParser() if self.layout != BBC else None

    def process(self, page: CapturedPage):
        yield tally(PAGES_READ)
        self._progress.tick()
        try:
            yield from self._parse(page)
        except Exception as error:  # noqa: BLE001 - dead-letter anything a page raises
            yield dead_letter(self.STAGE, error, **page.describe())

    def _skip(self, page: CapturedPage, reason: str, detail: str = "", encoding: str = ""):
        yield tally(PAGES_SKIPPED.member(reason))
        yield rejected(SKIPPED_PAGES, {**page.describe(), "reason": reason, "detail": detail})
        if self.outcomes:
            yield beam.pvalue.TaggedOutput(self.OUTCOMES,
                                           skip_outcome(page, reason, detail, encoding))

    def _parse(self, page: CapturedPage):
        if layout_for(self.layout, page.url) != BBC:
            yield from self._parse_generic(page)
            return
        url_class = classify_bbc_url(page.url)
        if not url_class.is_article:
            detail = ("" if is_bbc_host(page.url) else
                      "not a BBC page: --layout bbc reads only BBC News articles; "
                      "--layout auto or generic reads other sites")
            yield from self._skip(page, url_class.kind, detail)
            return
        yield from self._parse_decoded(page, parse_bbc_article, lambda parsed: (parsed.era, {
            "document_id": "bbc-" + url_class.asset_key.split("/")[-1],
            "asset_key": url_class.asset_key, "canonical_url": url_class.canonical_url,
            "is_amp": url_class.is_amp}))

    def _parse_generic(self, page: CapturedPage):
        def fields(parsed):
            identity = parsed.identity
            return GENERIC_ERA, {"document_id": identity.document_id,
                                 "asset_key": identity.asset_key,
                                 "canonical_url": identity.canonical_url,
                                 "is_amp": identity.is_amp,
                                 "dropped_headings": parsed.dropped_headings}

        yield from self._parse_decoded(page, lambda text: self._news.parse(text, page.url),
                                       fields)

    def _parse_decoded(self, page: CapturedPage, parse, fields):
        """Decode the page, ``parse`` its text (a ``ParseSkip`` is skipped) and emit its
        ``ArticleRecord``: ``fields(parsed)`` gives the era and the parser's own fields."""
        decoded = decode_html(page.content, page.content_type)
        if decoded.method in ENCODING:
            yield tally(ENCODING[decoded.method])
        parsed = parse(decoded.text)
        if isinstance(parsed, ParseSkip):
            yield from self._skip(page, parsed.reason, parsed.detail, _counted(decoded.method))
            return
        era, own = fields(parsed)
        yield tally(PAGES_PARSED)
        yield tally(PARSED_ERA[era])
        yield ArticleRecord(capture_url=page.url, capture_timestamp=page.timestamp, era=era,
                            headline=parsed.headline, published=parsed.published,
                            blocks=parsed.blocks, encoding=decoded.encoding,
                            capture_digest=page.payload_digest(), **own)


def _pick(records: Iterable[ArticleRecord], key, duplicate: CounterName,
          of_carried: CounterName, carried: Kept | None = None):
    """The winner of one group (see ``DeduplicateArticles``), the losers tallied and
    listed with the capture kept instead; ``carried``: the capture URL and timestamp of the
    carried document of the group that wins (``carried_summary.Kept``), when there is one:
    every record loses to it."""
    fresh = sorted(records, key=key)
    if carried is not None:
        (kept_url, kept_timestamp), losers, counter = carried, fresh, of_carried
    else:
        winner, losers, counter = fresh[0], fresh[1:], duplicate
        kept_url, kept_timestamp = winner.capture_url, winner.capture_timestamp
        yield winner
    for loser in losers:
        yield tally(counter)
        yield rejected("duplicates", {**loser.describe(), "reason": counter.name,
                                      "kept_url": kept_url,
                                      "kept_timestamp": kept_timestamp})


def _capture_preference(record: ArticleRecord):
    return capture_preference(record.published, record.capture_timestamp, record.is_amp,
                              record.capture_url)


def _content_preference(record: ArticleRecord):
    return content_preference(record.published, record.canonical_url)


class DeduplicateArticles(beam.PTransform):
    """One record per asset key (capture dedup), then one per body text (content dedup):
    ``(articles kept, [tagged results])`` (NLQuAD §3, duplicates removed;
    ``filters.nlquad.dedup`` says which capture and which text win).

    ``carried`` (a refresh): the previous release's documents whose capture is unchanged
    (``CapturedDocument``). They take part in both steps and always win: a published
    document is never replaced by a new capture of its article or by a new article with its
    text (``dedup.duplicate_capture_of_carried``,
    ``dedup.duplicate_content_of_carried``), so its rows stay as they are. They are read as a
    side input, their ``carried_summary.summarize`` (the winner of each asset key and text),
    not grouped with this run's articles, which are the only ones returned.
    """

    STAGE = DEDUP

    def __init__(self, carried=None):
        super().__init__()
        self.carried = carried

    def expand(self, articles):
        carried = self.carried
        captures, texts = ((beam.pvalue.AsSingleton(summarize(carried, "captures")),
                            beam.pvalue.AsSingleton(summarize(carried, "texts")))
                           if carried is not None else (None, None))
        by_capture = (
            articles
            | "KeyByAsset" >> beam.Map(lambda a: (a.asset_key, a))
            | "GroupCaptures" >> beam.GroupByKey()
            | "PickCapture" >> beam.FlatMap(
                _pick_group, _capture_preference, DUPLICATE_CAPTURE,
                DUPLICATE_CAPTURE_OF_CARRIED, captures)
            .with_outputs(*SIDE_OUTPUTS, main="main"))
        by_content = (
            by_capture.main
            | "KeyByText" >> beam.Map(lambda a: (a.text_fingerprint(), a))
            | "GroupText" >> beam.GroupByKey()
            | "PickText" >> beam.FlatMap(
                _pick_group, _content_preference, DUPLICATE_CONTENT,
                DUPLICATE_CONTENT_OF_CARRIED, texts)
            .with_outputs(*SIDE_OUTPUTS, main="main"))
        return by_content.main, [by_capture, by_content]


def _pick_group(group: tuple[str, Iterable[ArticleRecord]], key, duplicate: CounterName,
                of_carried: CounterName, winners: dict[str, Kept] | None = None):
    """``_pick`` of one ``(key, records)`` group, against the carried document that wins
    the key (``winners``: a ``CarriedSummary``'s ``captures`` or ``texts``) when there is
    one."""
    name, records = group
    carried = winners.get(name) if winners is not None else None
    return _pick(records, key, duplicate, of_carried, carried)


def distinct_paragraph_fingerprints(article: ArticleRecord, min_words: int) -> list[str]:
    """The fingerprints of an article's paragraphs of at least ``min_words`` words, once
    each, sorted: what ``FindRepeatedParagraphs`` counts per article."""
    return sorted({paragraph_fingerprint(p) for p in article.paragraphs
                   if word_count(p) >= min_words})


class FindRepeatedParagraphs(beam.PTransform):
    """Fingerprints of paragraphs that occur in at least ``min_docs`` distinct articles.

    Catches templates the pattern list does not know (NLQuAD §3, "template ... removed").
    ``carried`` (a refresh): the documents carried from the previous release, whose
    fingerprint counts (from their sidecar lines, summed by ``carried_summary.summarize``)
    are added to this run's, so this run's articles are cleaned against the whole corpus
    although the carried ones are not parsed again.
    """

    def __init__(self, min_docs: int, min_words: int, carried=None):
        super().__init__()
        self.min_docs = min_docs
        self.min_words = min_words
        self.carried = carried

    def expand(self, articles):
        min_docs, min_words = self.min_docs, self.min_words
        counts = (articles
                  | "Fingerprints" >> beam.FlatMap(distinct_paragraph_fingerprints, min_words)
                  | "CountDocs" >> beam.combiners.Count.PerElement())
        if self.carried is None:
            return counts | "Repeated" >> beam.Filter(lambda kv: kv[1] >= min_docs)
        return summarize(self.carried, "fingerprints") | "Repeated" >> beam.FlatMap(
            _repeated_with_carried, beam.pvalue.AsDict(counts), min_docs)


def _repeated_with_carried(carried: Counter[str], counts: dict[str, int], min_docs: int):
    """``(fingerprint, documents)`` of this run's ``counts`` and the carried documents'
    (``carried``: a ``CarriedSummary``'s ``fingerprints``) together, for those in
    ``min_docs`` documents or more."""
    total = Counter(carried)
    total.update(counts)
    for fingerprint, documents in total.items():
        if documents >= min_docs:
            yield fingerprint, documents


def prefix_tallies(question: str):
    """The question-prefix tallies of one kept question (NLQuAD Table 3)."""
    first_word, first_two_words = question_prefixes(question)
    yield tally(FIRST_WORD, first_word or "<empty>")
    yield tally(FIRST_TWO_WORDS, first_two_words or "<empty>")


class ExtractQuestionAnswers(beam.DoFn):
    """ArticleRecord -> ``(split, row)`` per kept question; drops and stats as side outputs.

    Side output ``STATS`` carries ``(metric key, integer value)`` for length statistics
    (``transforms.nlquad.lengths``); side output ``DOCUMENTS`` the ``CapturedDocument`` of
    every article extracted, with or without questions, for the refresh sidecar (its
    paragraph fingerprints are those of ``min_words`` words or more, as
    ``FindRepeatedParagraphs`` counts them). An article that raises has neither.
    """

    STAGE = QUESTIONS
    STATS = "stats"
    DOCUMENTS = "documents"

    def __init__(self, split_salt: str, ratios: tuple[tuple[str, float], ...],
                 separator: str = "\n", min_words: int = BOILERPLATE_MIN_WORDS):
        self.split_salt = split_salt
        self.ratios = ratios
        self.separator = separator
        self.min_words = min_words

    def setup(self):
        self._sentences = SentenceCounter()

    def process(self, article: ArticleRecord, repeated: dict[str, int]):
        try:
            yield from self._extract(article, repeated)
        except Exception as error:  # noqa: BLE001 - dead-letter anything an article raises
            yield dead_letter(self.STAGE, error, **article.describe())

    def _extract(self, article: ArticleRecord, repeated):
        removed_repeated = Counter()

        def is_boilerplate(text: str) -> bool:
            if is_template_text(text):
                return True
            if paragraph_fingerprint(text) in repeated:
                removed_repeated["n"] += 1
                return True
            return False

        document = build_document(article.blocks, is_boilerplate, self.separator)
        yield tally(DEDUPLICATED)
        by_pattern = document.removed_template_paragraphs - removed_repeated["n"]
        if by_pattern:
            yield tally(TEMPLATE_PARAGRAPHS_REMOVED, by_pattern)
        if removed_repeated["n"]:
            yield tally(REPEATED_PARAGRAPHS_REMOVED, removed_repeated["n"])
        if document.removed_promo_lists:
            yield tally(PROMO_LIST_REMOVED, document.removed_promo_lists)
        yield tally(SUBHEADINGS, document.subheadings)
        yield tally(NON_INTERROGATIVE_SUBHEADINGS,
                    document.subheadings - document.interrogative_subheadings)
        yield tally(FOUND, document.interrogative_subheadings)
        for question, reason in article.dropped_headings:
            yield tally(FOUND)
            yield tally(DROPPED.member(reason))
            yield rejected("dropped_questions", {**article.describe(), "question": question,
                                                 "question_index": 0, "reason": reason})
        for drop in document.dropped:
            yield tally(DROPPED.member(drop.reason))
            yield rejected("dropped_questions", {**article.describe(),
                                                 "question": drop.question,
                                                 "question_index": drop.ordinal,
                                                 "reason": drop.reason})
        split = assign_split(article.document_id, self.split_salt, self.ratios)
        if not document.qas:
            yield tally(WITHOUT_QUESTIONS)
            yield self._captured(article, split, document, {}, [])
            return
        yield tally(DOCUMENTS_KEPT.member(split))
        sentences = self._sentences.per_paragraph(document.paragraphs)
        lengths = document_lengths(document, sentences)
        answers = answer_sentences(document, sentences)
        yield from self._stats(split, [*lengths.items(),
                                       *((ANSWER_SENTENCES, n) for n in answers)])
        date = article.published[:10]
        for qa in document.qas:
            yield tally(KEPT)
            yield from prefix_tallies(qa.question)
            row = {
                "id": f"{article.document_id}-q{qa.ordinal}",
                "document_id": article.document_id,
                "title": article.headline,
                "date": date,
                "published": article.published,
                "url": article.canonical_url,
                "capture_url": article.capture_url,
                "capture_timestamp": article.capture_timestamp,
                "layout_era": article.era,
                "question": qa.question,
                "question_index": qa.ordinal,
                "context": document.context,
                "answer_text": qa.answer_text,
                "answer_start": qa.answer_start,
                "answer_end": qa.answer_end,
                "answer_word_start": qa.answer_word_start,
                "answer_word_end": qa.answer_word_end,
                "answer_paragraphs": qa.answer_paragraphs,
                "answers": {"text": [qa.answer_text], "answer_start": [qa.answer_start]},
            }
            yield from self._stats(split, row_lengths(row))
            yield split, row
        yield self._captured(article, split, document, lengths, answers)

    def _stats(self, split: str, values):
        for entry in histogram_entries(split, values):
            yield beam.pvalue.TaggedOutput(self.STATS, entry)

    def _captured(self, article: ArticleRecord, split: str, document, lengths: dict[str, int],
                  answers: list[int]):
        return beam.pvalue.TaggedOutput(self.DOCUMENTS, CapturedDocument(
            capture_url=article.capture_url, capture_timestamp=article.capture_timestamp,
            digest=article.capture_digest, document_id=article.document_id,
            asset_key=article.asset_key, canonical_url=article.canonical_url,
            published=article.published, is_amp=article.is_amp,
            text=article.text_fingerprint(),
            paragraphs=tuple(distinct_paragraph_fingerprints(article, self.min_words)),
            split=split, questions=len(document.qas), lengths=lengths,
            answer_sentences=tuple(answers)))


SQUAD_VERSION = "1.1"


def squad_file(rows: Iterable[dict[str, Any]], extra_fields: bool = False) -> dict[str, Any]:
    """A SQuAD v1.1 file of release rows: ``{"version": "1.1", "data": [...]}``."""
    return {"version": SQUAD_VERSION, "data": squad_documents(rows, extra_fields)}


def squad_documents(rows: Iterable[dict[str, Any]], extra_fields: bool = False
                    ) -> list[dict[str, Any]]:
    """Group release rows into SQuAD v1.1 ``data`` entries, sorted by id.

    Exactly SQuAD v1.1's keys (``title``; ``paragraphs[].context``; ``qas[].question``,
    ``id``, ``answers[].text``, ``answer_start``), so every SQuAD reader takes the file as
    it is. ``extra_fields`` adds NLQuAD's own: the article's ``date`` and ``url`` and each
    answer's ``answer_end``."""
    by_document: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_document.setdefault(row["document_id"], []).append(row)
    data = []
    for document_id in sorted(by_document):
        qas = sorted(by_document[document_id], key=lambda r: r["question_index"])
        first = qas[0]
        document: dict[str, Any] = {"title": first["title"]}
        if extra_fields:
            document.update(date=first["date"], url=first["url"])
        answers = []
        for r in qas:
            answer = {"text": r["answer_text"], "answer_start": r["answer_start"]}
            if extra_fields:
                answer["answer_end"] = r["answer_end"]
            answers.append({"question": r["question"], "id": r["id"], "answers": [answer]})
        document["paragraphs"] = [{"context": first["context"], "qas": answers}]
        data.append(document)
    return data

