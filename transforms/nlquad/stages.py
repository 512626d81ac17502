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
from filters.bbc.urls import classify_bbc_url
from filters.nlquad.dedup import capture_preference, content_preference
from filters.nlquad.qa import build_document
from filters.text.html_decoding import decode_html
from filters.text.splits import assign_split
from filters.text.stats import SentenceCounter, question_prefixes, word_count
from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, rejected, tally
from transforms.core.counters import Counter as CounterName
from transforms.core.progress import Progress
from transforms.nlquad.counters import (
    DEDUP,
    DEDUPLICATED,
    DOCUMENTS_KEPT,
    DROPPED,
    DUPLICATE_CAPTURE,
    DUPLICATE_CONTENT,
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
from transforms.sources.pages import CapturedPage


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

    @property
    def paragraphs(self) -> list[str]:
        return [b.text for b in self.blocks if b.kind == PARAGRAPH]

    def describe(self) -> dict[str, str]:
        return {"document_id": self.document_id, "url": self.capture_url,
                "timestamp": self.capture_timestamp}


class ParsePages(beam.DoFn):
    """CapturedPage -> ArticleRecord, or a skip with a named reason, or a dead letter."""

    STAGE = PAGES

    def __init__(self, progress_every_s: float | None = None,
                 progress_total: int | None = None):
        self.progress_every_s, self.progress_total = progress_every_s, progress_total

    def setup(self):
        self._progress = Progress("pages parsed", self.progress_every_s, self.progress_total)

    def process(self, page: CapturedPage):
        yield tally(PAGES_READ)
        self._progress.tick()
        try:
            yield from self._parse(page)
        except Exception as error:  # noqa: BLE001 - dead-letter anything a page raises
            yield dead_letter(self.STAGE, error, **page.describe())

    def _skip(self, page: CapturedPage, reason: str, detail: str = ""):
        yield tally(PAGES_SKIPPED.member(reason))
        yield rejected("skipped_pages", {**page.describe(), "reason": reason, "detail": detail})

    def _parse(self, page: CapturedPage):
        url_class = classify_bbc_url(page.url)
        if not url_class.is_article:
            yield from self._skip(page, url_class.kind)
            return
        decoded = decode_html(page.content, page.content_type)
        if decoded.method in ENCODING:
            yield tally(ENCODING[decoded.method])
        parsed = parse_bbc_article(decoded.text)
        if isinstance(parsed, ParseSkip):
            yield from self._skip(page, parsed.reason, parsed.detail)
            return
        yield tally(PAGES_PARSED)
        yield tally(PARSED_ERA[parsed.era])
        yield ArticleRecord(
            document_id="bbc-" + url_class.asset_key.split("/")[-1],
            asset_key=url_class.asset_key,
            canonical_url=url_class.canonical_url,
            capture_url=page.url,
            capture_timestamp=page.timestamp,
            is_amp=url_class.is_amp,
            era=parsed.era,
            headline=parsed.headline,
            published=parsed.published,
            blocks=parsed.blocks,
            encoding=decoded.encoding,
        )


def _pick(records: Iterable[ArticleRecord], key, duplicate: CounterName):
    ordered = sorted(records, key=key)
    winner = ordered[0]
    yield winner
    for loser in ordered[1:]:
        yield tally(duplicate)
        yield rejected("duplicates", {**loser.describe(), "reason": duplicate.name,
                                      "kept_url": winner.capture_url,
                                      "kept_timestamp": winner.capture_timestamp})


class DeduplicateArticles(beam.PTransform):
    """One record per asset key (capture dedup), then one per body text (content dedup)."""

    STAGE = DEDUP

    def expand(self, articles):
        by_capture = (
            articles
            | "KeyByAsset" >> beam.Map(lambda a: (a.asset_key, a))
            | "GroupCaptures" >> beam.GroupByKey()
            | "PickCapture" >> beam.FlatMap(lambda kv: _pick(
                kv[1], lambda a: capture_preference(a.published, a.capture_timestamp,
                                                    a.is_amp, a.capture_url),
                DUPLICATE_CAPTURE)).with_outputs(*SIDE_OUTPUTS, main="main"))
        by_content = (
            by_capture.main
            | "KeyByText" >> beam.Map(lambda a: (document_fingerprint(a.paragraphs), a))
            | "GroupText" >> beam.GroupByKey()
            | "PickText" >> beam.FlatMap(lambda kv: _pick(
                kv[1], lambda a: content_preference(a.published, a.canonical_url),
                DUPLICATE_CONTENT)).with_outputs(*SIDE_OUTPUTS, main="main"))
        return by_content.main, [by_capture, by_content]


def _distinct_paragraph_fingerprints(article: ArticleRecord, min_words: int) -> list[str]:
    return sorted({paragraph_fingerprint(p) for p in article.paragraphs
                   if word_count(p) >= min_words})


class FindRepeatedParagraphs(beam.PTransform):
    """Fingerprints of paragraphs that occur in at least ``min_docs`` distinct articles.

    Catches templates the pattern list does not know (NLQuAD §3, "template ... removed").
    """

    def __init__(self, min_docs: int, min_words: int):
        super().__init__()
        self.min_docs = min_docs
        self.min_words = min_words

    def expand(self, articles):
        min_docs, min_words = self.min_docs, self.min_words
        return (articles
                | "Fingerprints" >> beam.FlatMap(_distinct_paragraph_fingerprints, min_words)
                | "CountDocs" >> beam.combiners.Count.PerElement()
                | "Repeated" >> beam.Filter(lambda kv: kv[1] >= min_docs))


class ExtractQuestionAnswers(beam.DoFn):
    """ArticleRecord -> ``(split, row)`` per kept question; drops and stats as side outputs.

    Side output ``STATS`` carries ``(metric key, integer value)`` for length statistics.
    """

    STAGE = QUESTIONS
    STATS = "stats"

    def __init__(self, split_salt: str, ratios: tuple[tuple[str, float], ...],
                 separator: str = "\n"):
        self.split_salt = split_salt
        self.ratios = ratios
        self.separator = separator

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
        for drop in document.dropped:
            yield tally(DROPPED.member(drop.reason))
            yield rejected("dropped_questions", {**article.describe(),
                                                 "question": drop.question,
                                                 "question_index": drop.ordinal,
                                                 "reason": drop.reason})
        if not document.qas:
            yield tally(WITHOUT_QUESTIONS)
            return
        split = assign_split(article.document_id, self.split_salt, self.ratios)
        yield tally(DOCUMENTS_KEPT.member(split))
        yield from self._stats(split, document)
        date = article.published[:10]
        for qa in document.qas:
            yield tally(KEPT)
            first_word, first_two_words = question_prefixes(qa.question)
            yield tally(FIRST_WORD, first_word or "<empty>")
            yield tally(FIRST_TWO_WORDS, first_two_words or "<empty>")
            yield split, {
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

    def _stats(self, split: str, document):
        sentences = self._sentences.per_paragraph(document.paragraphs)
        values: list[tuple[str, int]] = [
            ("document_words", word_count(document.context)),
            ("document_sentences", sum(sentences)),
            ("document_paragraphs", len(document.paragraphs)),
            ("questions_per_document", len(document.qas)),
        ]
        for qa in document.qas:
            first = qa.first_paragraph
            values += [
                ("answer_words", qa.answer_word_end - qa.answer_word_start),
                ("answer_sentences", sum(sentences[first:first + qa.answer_paragraphs])),
                ("answer_paragraphs", qa.answer_paragraphs),
                ("question_words", word_count(qa.question)),
            ]
        for metric, value in values:
            for scope in (split, "all"):
                yield beam.pvalue.TaggedOutput(self.STATS, (f"{scope}/{metric}", value))


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

