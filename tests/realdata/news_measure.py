"""The figures of issue 37 §1 on the labelled news pages (``news_labels``): per split, the
pages, the pages whose article body was found, the real interrogative sub-headings, those
found with their answer section, and the boilerplate QA pairs kept, for the generic parser
(``filters.nlquad.news_article``) and the NLQuAD rules (``filters.nlquad.qa``)."""

from __future__ import annotations

from pathlib import Path

from filters.bbc.article import ParseSkip
from filters.nlquad.news_article import NewsParser
from filters.nlquad.qa import build_document
from filters.text.html_decoding import decode_html
from tests.realdata.news_labels import NEWS_LABELS, PageLabel, normalized

FIGURES = ("pages", "body", "real", "real_found", "boilerplate_pairs")


def measure_page(parser: NewsParser, path: Path, label: PageLabel) -> dict[str, int]:
    """The figures of one page."""
    figures = dict.fromkeys(FIGURES, 0)
    figures["pages"], figures["real"] = 1, len(label.real)
    parsed = parser.parse(decode_html(path.read_bytes()).text, f"https://example.org/{path.name}")
    if isinstance(parsed, ParseSkip):
        return figures
    document = build_document(parsed.blocks)
    figures["body"] = int(normalized(label.body) in normalized(document.context))
    answers = {normalized(qa.question): normalized(qa.answer_text) for qa in document.qas}
    for question, start in label.real.items():
        answer = answers.pop(normalized(question), None)
        figures["real_found"] += answer is not None and answer.startswith(normalized(start))
    figures["boilerplate_pairs"] = len(answers)
    return figures


def measure_pipeline(news_dir: Path) -> dict[str, dict[str, int]]:
    """``{split: {figure: value}}`` over every labelled page."""
    parser = NewsParser()
    totals: dict[str, dict[str, int]] = {}
    for page, label in sorted(NEWS_LABELS.items()):
        split = totals.setdefault(label.split, dict.fromkeys(FIGURES, 0))
        for name, value in measure_page(parser, news_dir / page, label).items():
            split[name] += value
    return totals
