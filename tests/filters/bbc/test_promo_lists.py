"""Promo link lists (issue 16 §1): "LABEL: <a>headline</a>" lists are navigation, not answers.

Tiny pages written for the test, in Era B (``ul.story-body__unordered-list``) and Era C
(``unordered-list-block``) markup; the thresholds are measured on the real pages in
``test_promo_lists_realdata.py``.
"""

from __future__ import annotations

import pytest
from lxml import html as lxml_html

from filters.bbc.article import (
    LIST,
    PROMO_MIN_LINK_SHARE,
    ParsedArticle,
    is_navigation_item,
    link_share,
    parse_bbc_article,
)
from filters.nlquad.qa import build_document

PROMO_ITEMS_B = """<ul class="story-body__unordered-list">
<li class="story-body__list-item">LOCAL RULES:
 <a href="/news/uk-1" class="story-body__link">What can I do in my area?</a></li>
<li class="story-body__list-item">RAISING MONEY FOR THE VILLAGE SCHOOL AND ITS NEW LIBRARY:
 <a href="/news/uk-2" class="story-body__link">Quiz night</a></li>
<li class="story-body__list-item">VIDEO:
 <a href="/news/av/uk-3" class="story-body__link">Baking a simple loaf at home</a></li>
</ul>"""

ERA_B = """<html><body><div class="story-body"><h1 class="story-body__h1">Bakery</h1>
<div class="story-body__inner">
<p>Intro paragraph.</p>
<h2 class="story-body__crosshead">How does the round work?</h2>
<p>Riders leave at seven.</p>
<p>Orders close at six.</p>
<figure class="media-landscape no-caption full-width"><span class="image-and-copyright-container">
<div class="js-delayed-image-load" data-alt="Banner image reading 'more about coronavirus'"></div>
</span></figure>{promo}<figure class="media-landscape no-caption full-width">
<div class="js-delayed-image-load" data-alt="Banner"></div></figure>
<h2 class="story-body__crosshead">Will the shop reopen?</h2>
<p>Once the rules allow it.</p>
</div></div></body></html>"""

ERA_C = """<html><body><main><article><h1 id="main-heading">Pantry</h1>
<div data-component="text-block"><p>Intro paragraph.</p></div>
<div data-component="crosshead-block"><h2>What happens next?</h2></div>
<div data-component="text-block"><p>The pantry stays open.</p></div>
<div data-component="image-block"><figure><noscript>
<img alt="Banner image reading &#x27;more about coronavirus&#x27;" src="b.png"/>
</noscript></figure></div>
<div data-component="unordered-list-block"><div><ul role="list">
<li>FIREBREAK RULES: <a href="/news/uk-wales-1">What changes this week?</a></li>
<li>TESTING: <a href="/news/uk-wales-2">Where do I book a test?</a></li>
</ul></div></div>
<section data-component="tag-list"><h2>Related Topics</h2>
<ul><li><a href="/t">Covid</a></li></ul></section>
</article></main></body></html>"""


def _item(markup: str):
    return lxml_html.fragment_fromstring(markup)


def _lists(page: str):
    article = parse_bbc_article(page)
    assert isinstance(article, ParsedArticle)
    return article, [b for b in article.blocks if b.kind == LIST]


@pytest.mark.parametrize(("markup", "navigation"), [
    ('<li>VIDEO: <a href="/v">The 20-second hand wash</a></li>', True),
    # a long label carries only 0.41 of the text as link text: the label rule keeps it
    ('<li>RAISING AWARENESS OF TESTICULAR CANCER: <a href="/p">Chris is on a mission</a></li>',
     True),
    ('<li><a href="/s">Second lockdown explained</a> (video)</li>', True),
    ('<li>Tweet: <a href="/t">@SomeAccount</a></li>', True),
    # prose with an inline link: below the share threshold and no capitalised label
    ('<li>He would speak bluntly against corruption <a href="/k">and rights abuses</a></li>',
     False),
    ('<li>Voters: <a href="/x">the turnout</a> was the lowest since 1918</li>', False),
    ('<li>LABEL: <a href="/x">the turnout</a> was the lowest since the war ended</li>', False),
    ('<li>WhatsApp: +44 7700 900000</li>', False),
    ('<li>ONE IN SEVEN: people is ill for at least four weeks</li>', False),
])
def test_navigation_items(markup, navigation):
    assert is_navigation_item(_item(markup)) is navigation


def test_link_share_is_the_share_of_characters_in_links():
    assert link_share(_item('<li>AB: <a href="/">xyz1</a></li>')) == pytest.approx(4 / 8)
    assert link_share(_item("<li>no links</li>")) == 0.0
    assert 0 < PROMO_MIN_LINK_SHARE < 1


def test_era_b_promo_list_is_flagged_and_its_banner_never_becomes_a_block():
    article, lists = _lists(ERA_B.format(promo=PROMO_ITEMS_B))
    assert [(b.promo, b.link_only) for b in lists] == [(True, False)]
    texts = [b.text for b in article.blocks] + [i for b in article.blocks for i in b.items]
    assert not any("Banner" in t or "coronavirus" in t for t in texts)
    assert [b.kind for b in article.blocks].count("break") == 0


def test_era_c_promo_list_is_flagged():
    _, lists = _lists(ERA_C)
    assert [(b.promo, b.link_only) for b in lists] == [(True, False)]
    assert lists[0].items[0] == "FIREBREAK RULES: What changes this week?"


@pytest.mark.parametrize("page", [ERA_B.format(promo=PROMO_ITEMS_B), ERA_C])
def test_promo_list_closing_an_interrogative_section_keeps_the_question(page):
    article, _ = _lists(page)
    document = build_document(article.blocks)
    assert not document.dropped
    assert document.removed_promo_lists == 1
    first = document.qas[0]
    assert first.answer_text in ("Riders leave at seven.\nOrders close at six.",
                                 "The pantry stays open.")
    for label in ("LOCAL RULES", "VIDEO:", "FIREBREAK", "TESTING:", "Quiz night"):
        assert label not in document.context


def test_prose_bullet_list_still_drops_the_question():
    prose = """<ul class="story-body__unordered-list">
<li class="story-body__list-item">The UK must stay in <a href="/eu">the EU</a> to keep
its influence</li>
<li class="story-body__list-item">Syria needs a political solution</li></ul>"""
    article, lists = _lists(ERA_B.format(promo=prose))
    assert [(b.promo, b.link_only) for b in lists] == [(False, False)]
    document = build_document(article.blocks)
    assert [(d.question, d.reason) for d in document.dropped] == [
        ("How does the round work?", "bullet_list_answer")]
    assert document.removed_promo_lists == 0
    assert "Syria needs a political solution" in document.context


def test_mixed_list_with_one_prose_item_is_not_a_promo():
    mixed = """<ul class="story-body__unordered-list">
<li class="story-body__list-item">WhatsApp: +44 7700 900000</li>
<li class="story-body__list-item">Tweet: <a href="/t">@SomeAccount</a></li></ul>"""
    _, lists = _lists(ERA_B.format(promo=mixed))
    assert [(b.promo, b.link_only) for b in lists] == [(False, False)]


def test_link_only_related_list_is_removed_as_before_and_not_counted_as_promo():
    related = """<ul class="story-body__unordered-list">
<li class="story-body__list-item"><a href="/news/uk-9">Market traders move online</a></li></ul>"""
    article, lists = _lists(ERA_B.format(promo=related))
    assert [(b.promo, b.link_only) for b in lists] == [(False, True)]
    document = build_document(article.blocks)
    assert not document.dropped and document.removed_promo_lists == 0
    assert "Market traders" not in document.context
