"""Beam stages of the category lexicon: corpus documents -> paragraphs -> Hearst matches."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes

from filters.nq.hearst import hearst_matches
from filters.text import safe_json
from filters.text.spacy_models import load_english
from transforms.categories.counters import (
    CORPUS,
    FILES,
    MALFORMED,
    MALFORMED_LINES,
    PARAGRAPHS,
    PATTERN,
    UNREADABLE,
    UNREADABLE_FILES,
)
from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, tally
from transforms.core.inputs import beam_pattern
from transforms.sources.compressed import (
    TRUNCATED_COMPRESSION,
    CompressionDamage,
    check_stream,
    damage_reason,
    iter_complete_lines,
    read_decompressed,
)

STAGE = CORPUS
MALFORMED_JSON = "malformed_json"
NOT_AN_OBJECT = "not_an_object"
UNREADABLE_REASON = "unreadable"
_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz", ".lzma", ".zst", ".zstd", ".deflate")
LEXICON_FILE = "categories.tsv"  # the lexicon as build_nq reads it, at the release root
LEXICON_SCHEMA = pa.schema([
    pa.field("lemma", pa.string(), nullable=False),
    pa.field("count", pa.int64(), nullable=False),
    pa.field("distinct_hyponyms", pa.int64(), nullable=False),
    pa.field("hyponyms", pa.list_(pa.string()), nullable=False),
    pa.field("patterns", pa.list_(pa.string()), nullable=False),
], metadata={"dataset": "categories"})
FIELD_DOCS = {
    "lemma": "head lemma of the categorical noun phrase (hypernym)",
    "count": "Hearst-pattern matches with this hypernym",
    "distinct_hyponyms": "distinct hyponym phrases found for it",
    "hyponyms": "up to 20 hyponyms, most frequent first",
    "patterns": "Hearst patterns that found it",
}
_SKIP_HTML = ("table", "style", "script", "sup", "figure", "nav", "footer", "header")


def html_paragraphs(data: bytes) -> list[str]:
    """Paragraph texts of a Wikipedia-like HTML page (tables, references, navboxes skipped)."""
    from lxml import etree
    from lxml import html as lxml_html

    try:
        doc = lxml_html.document_fromstring(data)
    except (etree.ParserError, ValueError):
        return []
    etree.strip_elements(doc, *_SKIP_HTML, with_tail=False)
    for node in doc.xpath('//*[contains(@class,"navbox") or contains(@class,"reflist") '
                          'or contains(@class,"references") or contains(@class,"infobox")]'):
        node.getparent().remove(node)
    texts = (" ".join("".join(p.itertext()).split()) for p in doc.iter("p"))
    return [t for t in texts if t]


def corpus_kind(path: str) -> str:
    """``html``, ``jsonl`` or ``text`` by the extension (a compression suffix ignored)."""
    name = path
    for suffix in _COMPRESSION_SUFFIXES:
        if name.lower().endswith(suffix):
            name = name[:-len(suffix)]
            break
    extension = posixpath.splitext(name)[1].lower()
    if extension in (".html", ".htm"):
        return "html"
    return "jsonl" if extension in (".jsonl", ".json", ".ndjson") else "text"


class MalformedLine(ValueError):
    """A corpus line that cannot be read: ``reason`` is ``malformed_json``, ``not_an_object``
    or ``too_deeply_nested``."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


def line_paragraph(line: str, kind: str, text_field: str) -> str:
    """The paragraph of one ``text`` or ``jsonl`` line (``""`` when blank or without text);
    raises ``MalformedLine`` for a JSON line that is not an object, too deep or not JSON."""
    if not line.strip():
        return ""
    if kind != "jsonl":
        return line.strip()
    try:
        record = safe_json.loads(line)
    except safe_json.JsonTooDeep as error:
        raise MalformedLine(error.reason, str(error)) from None
    except ValueError as error:
        raise MalformedLine(MALFORMED_JSON, str(error)[:200]) from None
    if not isinstance(record, dict):
        raise MalformedLine(NOT_AN_OBJECT, f"a line is a JSON object, not {type(record).__name__}")
    text = record.get(text_field, "")
    return text.strip() if isinstance(text, str) else ""


def corpus_paragraphs(path: str, data: bytes, text_field: str) -> Iterator[str]:
    """Paragraphs of one corpus file by extension: .txt (one per line), .jsonl, .html; a
    malformed JSON line is skipped (``_ReadCorpusFile`` counts and dead-letters it)."""
    kind = corpus_kind(path)
    if kind == "html":
        yield from html_paragraphs(data)
        return
    for line in data.decode("utf-8", errors="replace").splitlines():
        try:
            paragraph = line_paragraph(line, kind, text_field)
        except MalformedLine:
            continue
        if paragraph:
            yield paragraph


class _ReadCorpusFile(beam.DoFn):
    """A corpus file -> paragraphs. A malformed line is counted (``corpus.malformed_lines``,
    ``corpus.malformed.<reason>``) and dead-lettered, and the next line is read; a file whose
    stream is damaged or decodes past ``max_decoded_bytes`` is counted
    (``corpus.unreadable_files``, ``corpus.unreadable.<reason>``) and dead-lettered: a
    truncated text file keeps its complete lines before the cut, anything else keeps none."""

    def __init__(self, text_field: str, max_decoded_bytes: int | None = None):
        self.text_field = text_field
        self.max_decoded_bytes = max_decoded_bytes

    def process(self, readable: fileio.ReadableFile):
        path = readable.metadata.path
        kind = corpus_kind(path)
        try:
            damage = check_stream(readable, max_decoded_bytes=self.max_decoded_bytes)
            if damage is not None and damage_reason(damage) != TRUNCATED_COMPRESSION:
                raise CompressionDamage(damage)
            yield tally(FILES)
            if kind == "html":
                if damage is not None:
                    raise CompressionDamage(damage)  # one document: nothing before the cut
                data, _ = read_decompressed(readable, max_decoded_bytes=self.max_decoded_bytes)
                for paragraph in html_paragraphs(data):
                    yield tally(PARAGRAPHS)
                    yield paragraph
                return
            lines = iter_complete_lines(readable, max_decoded_bytes=self.max_decoded_bytes)
            for number, raw in enumerate(lines, start=1):
                yield from self._line(path, number, raw.decode("utf-8", errors="replace"), kind)
        except CompressionDamage as damage:
            yield tally(UNREADABLE_FILES)
            yield tally(UNREADABLE.member(damage.reason))
            yield dead_letter(STAGE, damage.error, source=path, reason=damage.reason)
        except Exception as error:  # noqa: BLE001 - a bad file must not stop the job
            yield tally(UNREADABLE_FILES)
            yield tally(UNREADABLE.member(UNREADABLE_REASON))
            yield dead_letter(STAGE, error, source=path, reason=UNREADABLE_REASON)

    def _line(self, path: str, number: int, line: str, kind: str):
        try:
            paragraph = line_paragraph(line, kind, self.text_field)
        except MalformedLine as error:
            yield tally(MALFORMED_LINES)
            yield tally(MALFORMED.member(error.reason))
            yield dead_letter(STAGE, error, source=f"{path}:{number}", reason=error.reason,
                              text=line[:200])
            return
        if paragraph:
            yield tally(PARAGRAPHS)
            yield paragraph


class ReadCorpus(beam.PTransform):
    """Paragraphs of every corpus file matching the globs; no file is read past
    ``max_decoded_bytes`` once decoded (None: the default cap)."""

    def __init__(self, patterns: list[str], text_field: str = "text",
                 max_decoded_bytes: int | None = None):
        super().__init__()
        self.patterns = patterns
        self.text_field = text_field
        self.max_decoded_bytes = max_decoded_bytes

    def expand(self, pbegin):
        result = (pbegin
                  | "Patterns" >> beam.Create([beam_pattern(p) for p in self.patterns])
                  | "MatchCorpus" >> fileio.MatchAll()
                  | "OpenCorpus" >> fileio.ReadMatches(compression=CompressionTypes.AUTO)
                  | "Paragraphs" >> beam.ParDo(
                      _ReadCorpusFile(self.text_field, self.max_decoded_bytes))
                  .with_outputs(*SIDE_OUTPUTS, main="main"))
        return result.main, [result]


class FindHearstMatches(beam.DoFn):
    """Batches of paragraphs -> ``(hypernym, (pattern, hyponyms))`` per Hearst match."""

    def __init__(self, load_model: Callable[[], Any] = lambda: load_english(exclude=("ner",))):
        self.load_model = load_model

    def setup(self):
        self._nlp = self.load_model()

    def process(self, batch: list[str]):
        for doc in self._nlp.pipe(batch):
            for match in hearst_matches(doc):
                yield tally(PATTERN.member(match.pattern))
                yield match.hypernym, (match.pattern, match.hyponyms)


def lexicon_row(item: tuple[str, list]) -> dict[str, Any]:
    """Merge all matches of one hypernym into a lexicon row."""
    lemma, matches = item
    hyponyms: dict[str, int] = {}
    patterns = set()
    for pattern, names in matches:
        patterns.add(pattern)
        for name in names:
            hyponyms[name] = hyponyms.get(name, 0) + 1
    ranked = sorted(hyponyms, key=lambda h: (-hyponyms[h], h))
    return {"lemma": lemma, "count": len(matches), "distinct_hyponyms": len(hyponyms),
            "hyponyms": ranked[:20], "patterns": sorted(patterns)}
