"""Beam stages of the category lexicon: corpus documents -> paragraphs -> Hearst matches."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterator
from typing import Any

import apache_beam as beam
import pyarrow as pa
from apache_beam.io import fileio
from apache_beam.io.filesystem import CompressionTypes

from filters.nq.hearst import hearst_matches
from filters.text.spacy_models import load_english
from transforms.core.accounting import SIDE_OUTPUTS, dead_letter, tally

STAGE = "corpus"
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


def corpus_paragraphs(path: str, data: bytes, text_field: str) -> Iterator[str]:
    """Paragraphs of one corpus file by extension: .txt (one per line), .jsonl, .html."""
    name = path[:-3] if path.endswith(".gz") else path
    extension = posixpath.splitext(name)[1].lower()
    if extension in (".html", ".htm"):
        yield from html_paragraphs(data)
    elif extension in (".jsonl", ".json", ".ndjson"):
        for line in data.decode("utf-8", errors="replace").splitlines():
            if line.strip():
                text = json.loads(line).get(text_field, "")
                if isinstance(text, str) and text.strip():
                    yield text.strip()
    else:
        for line in data.decode("utf-8", errors="replace").splitlines():
            if line.strip():
                yield line.strip()


class _ReadCorpusFile(beam.DoFn):
    def __init__(self, text_field: str):
        self.text_field = text_field

    def process(self, readable: fileio.ReadableFile):
        path = readable.metadata.path
        try:
            paragraphs = list(corpus_paragraphs(path, readable.read(), self.text_field))
        except Exception as error:  # noqa: BLE001 - a bad file must not stop the job
            yield dead_letter(STAGE, error, source=path)
            return
        yield tally(STAGE, "files")
        for paragraph in paragraphs:
            yield tally(STAGE, "paragraphs")
            yield paragraph


class ReadCorpus(beam.PTransform):
    """Paragraphs of every corpus file matching the globs."""

    def __init__(self, patterns: list[str], text_field: str = "text"):
        super().__init__()
        self.patterns = patterns
        self.text_field = text_field

    def expand(self, pbegin):
        result = (pbegin
                  | "Patterns" >> beam.Create(self.patterns)
                  | "MatchCorpus" >> fileio.MatchAll()
                  | "OpenCorpus" >> fileio.ReadMatches(compression=CompressionTypes.AUTO)
                  | "Paragraphs" >> beam.ParDo(_ReadCorpusFile(self.text_field))
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
                yield tally("hearst", f"pattern.{match.pattern}")
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
