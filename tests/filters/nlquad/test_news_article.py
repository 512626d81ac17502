"""The generic parser on hand-written pages: questions, furniture, URL, date, skips."""

from __future__ import annotations

import pytest

from filters.bbc.article import PARAGRAPH, SUBHEADING, Block, ParseSkip
from filters.nlquad.boilerplate_questions import NEWSLETTER_PROMPT
from filters.nlquad.layout import layout_for
from filters.nlquad.news_article import GENERIC_ERA, NewsArticle, NewsParser
from filters.nlquad.news_page import page_identity
from filters.nlquad.qa import build_document
from tests.filters.nlquad.news_fixtures import (
    ARTICLE,
    ARTICLE_URL,
    FURNITURE,
    NO_BODY,
    REAL_QUESTIONS,
)


@pytest.fixture(scope="module")
def parser() -> NewsParser:
    return NewsParser()


@pytest.fixture(scope="module")
def article(parser) -> NewsArticle:
    parsed = parser.parse(ARTICLE, "https://capture.example/x")
    assert isinstance(parsed, NewsArticle)
    return parsed


def test_real_sub_headings_become_questions_with_their_sections(article):
    document = build_document(article.blocks)
    assert {qa.question: qa.answer_text for qa in document.qas}.keys() == REAL_QUESTIONS.keys()
    for qa in document.qas:
        assert qa.answer_text.startswith(REAL_QUESTIONS[qa.question])
        assert document.context[qa.answer_start:qa.answer_end] == qa.answer_text
    assert not document.dropped


def test_furniture_questions_are_dropped_with_their_reason(article):
    assert dict(article.dropped_headings) == FURNITURE
    document = build_document(article.blocks)
    for furniture in ("Yes, it is free", "Tell us in the comments", "Compare rates",
                      "your inbox", "Council tax to rise", "Copyright"):
        assert furniture not in document.context


def test_headline_url_and_date_come_from_the_metadata(article):
    assert article.headline == "Flood defences approved for the river town"
    assert article.identity.canonical_url == ARTICLE_URL
    assert article.identity.document_id.startswith("news-")
    assert article.published == "2021-03-04T08:15:00Z"
    assert not any(b.kind == SUBHEADING and b.text == article.headline for b in article.blocks)


def test_og_url_then_capture_url_when_no_canonical_link(parser):
    og = ARTICLE.replace(f'<link rel="canonical" href="{ARTICLE_URL}">',
                         '<meta property="og:url" content="/2021/03/04/og-flood">')
    parsed = parser.parse(og, "https://news.example.org/capture")
    assert parsed.identity.canonical_url == "https://news.example.org/2021/03/04/og-flood"
    bare = og.replace('<meta property="og:url" content="/2021/03/04/og-flood">', "")
    assert parser.parse(bare, "https://c.example/a").identity.canonical_url == \
        "https://c.example/a"


def test_amp_and_www_captures_share_an_asset_key():
    plain = page_identity("https://www.news.example.org/2021/story/")
    amp = page_identity("http://news.example.org/amp/2021/story?utm=x#top")
    assert plain.asset_key == amp.asset_key and plain.document_id == amp.document_id
    assert amp.is_amp and not plain.is_amp


def test_a_page_without_article_text_is_skipped_with_a_reason(parser):
    skipped = parser.parse(NO_BODY, "https://news.example.org/section/weather")
    assert isinstance(skipped, ParseSkip)
    assert skipped.reason in ("no_article_body", "empty_document") and "trafilatura" in \
        skipped.detail
    assert parser.parse("", "https://x.example/").reason == "no_article_body"


def test_layout_choice():
    assert layout_for("auto", "https://www.bbc.co.uk/news/uk-1234567") == "bbc"
    assert layout_for("auto", "https://www.bbc.com/sport/football") == "bbc"
    assert layout_for("auto", ARTICLE_URL) == GENERIC_ERA
    assert layout_for("generic", "https://www.bbc.co.uk/news/uk-1234567") == "generic"
    assert layout_for("bbc", ARTICLE_URL) == "bbc"
    with pytest.raises(ValueError):
        layout_for("other", ARTICLE_URL)


def test_the_question_rule_applies_to_bbc_blocks_too():
    blocks = [Block(SUBHEADING, "What is your email?"), Block(PARAGRAPH, "Sign up now.")]
    document = build_document(blocks)
    assert [d.reason for d in document.dropped] == [NEWSLETTER_PROMPT]
