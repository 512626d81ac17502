"""Question-shaped furniture: the words of the question and where its heading sits."""

from __future__ import annotations

import pytest

from filters.nlquad.boilerplate_questions import (
    ADVERTISEMENT,
    COMMENT_PROMPT,
    FAQ_WIDGET,
    NEWSLETTER_PROMPT,
    REASONS,
    RELATED_LINK,
    context_words,
    heading_context_verdict,
    question_text_verdict,
)


@pytest.mark.parametrize("question, reason", [
    ("What is your email?", NEWSLETTER_PROMPT),
    ("Want to subscribe to the cron.weekly newsletter?", NEWSLETTER_PROMPT),
    ("Would you like this in your inbox?", NEWSLETTER_PROMPT),
    ("What do you think?", COMMENT_PROMPT),
    ("Why not join the conversation?", COMMENT_PROMPT),
    ("How Do I Whitelist Observer?", ADVERTISEMENT),
    ("Using an ad blocker?", ADVERTISEMENT),
])
def test_prompts_are_dropped_by_their_words(question, reason):
    verdict = question_text_verdict(question)
    assert not verdict.keep and verdict.reason == reason


@pytest.mark.parametrize("question", [
    "Why does it matter?", "What happens next?", "What protocols should/can you use?",
    "Should you subscribe to a streaming service?", "Is email still the best way to reach "
    "customers?", "What does the future of eSports look like?",
])
def test_real_sub_headings_are_kept(question):
    assert question_text_verdict(question).keep


@pytest.mark.parametrize("values, reason", [
    (["newsletter-signup"], NEWSLETTER_PROMPT),
    (["", "comments"], COMMENT_PROMPT),
    (["ad-slot"], ADVERTISEMENT),
    (["sponsor-bg bg post-449392"], ADVERTISEMENT),
    (["c-compact-river__entry"], RELATED_LINK),
    (["NewsFeed-content NewsFeed-content--medium"], RELATED_LINK),
    (["promo-title-container"], RELATED_LINK),
    (["faq"], FAQ_WIDGET),
])
def test_furniture_containers_are_named(values, reason):
    assert heading_context_verdict(values).reason == reason


@pytest.mark.parametrize("values", [
    ["article-content post-page"], ["tailwind-article-body"], ["header", "masthead"],
    ["content blog-content cronweekly"], ["story-body", "main-heading"],
])
def test_article_containers_are_not_furniture(values):
    assert heading_context_verdict(values).keep


def test_context_words_split_camel_case_and_separators():
    assert {"news", "feed", "newsfeed", "content", "promo", "box"} <= context_words(
        ["NewsFeed-content promo_box"])
    assert "ad" not in context_words(["header shadow loaded"])


def test_reasons_are_distinct_constants():
    assert len(set(REASONS)) == len(REASONS) == 5
