"""Promo link lists on the real BBC pages of ../shared/data/bbc (issue 16 §1; skipped when
../shared is absent).

The 2020 coronavirus articles end sections with a banner ("more about coronavirus") and a list
of "LABEL: <a>headline</a>" items. These checks pin the measurements that set the rule in
``filters.bbc.article`` (``PROMO_MIN_LINK_SHARE``, the capitalised label) and guard that no
answer or context of a real page carries a promo label or a link-list item.
"""

from __future__ import annotations

import csv
import re

import pytest
from lxml import etree

from filters.bbc import article as bbc
from filters.nlquad.qa import build_document
from filters.text.html_decoding import decode_html

pytestmark = pytest.mark.realdata

# Pages whose body carries a promo list, with the first item of each (measured 2026-11).
PROMO_PAGES = {
    "bbc_2020_health-54528983__wpp.html": ["LOCKDOWN LOOK-UP: The rules in your area"],
    "bbc_2020_health-54622059__wpp.html": [
        "RAISING AWARENESS OF TESTICULAR CANCER: Chris Hughes is on a mission"],
    "bbc_2020_world-us-canada-52241221__trafilatura.html": [
        "A SIMPLE GUIDE: How do I protect myself?"],
}
_LABEL = re.compile(r"^[A-Z][A-Z0-9 &'\u2019,./()+-]{2,}: ")


def _filenames(shared_data) -> list[str]:
    with open(shared_data / "bbc" / "provenance.tsv", encoding="utf-8") as handle:
        return [row["filename"] for row in csv.DictReader(handle, delimiter="\t")]


def _page(shared_data, name) -> str:
    return decode_html((shared_data / "bbc" / name).read_bytes()).text


def _articles(shared_data):
    for name in _filenames(shared_data):
        result = bbc.parse_bbc_article(_page(shared_data, name))
        if isinstance(result, bbc.ParsedArticle):
            yield name, result


def _item_shares(shared_data, name) -> dict[tuple[str, ...], list[float]]:
    """Each body list's items -> the link-text share of every item, from the page's DOM."""
    doc = bbc.load_html(_page(shared_data, name))
    etree.strip_elements(doc, *bbc._REMOVED_TAGS, with_tail=False)
    _, body = bbc._find_body(doc)
    shares = {}
    for ul in body.iter("ul", "ol"):
        items = [li for li in ul.iter("li") if bbc._text(li)]
        if items:
            shares[tuple(bbc._text(li) for li in items)] = [bbc.link_share(li) for li in items]
    return shares


def test_promo_lists_found_are_exactly_the_2020_promo_boxes(shared_data):
    found = {}
    for name, article in _articles(shared_data):
        promos = [b.items[0] for b in article.blocks if b.kind == bbc.LIST and b.promo]
        if promos:
            found[name] = promos
    assert found == PROMO_PAGES


def test_thresholds_separate_promo_from_prose_lists_on_real_pages(shared_data):
    promo_shares, text_lists = [], {}
    for name, article in _articles(shared_data):
        shares = _item_shares(shared_data, name)
        for block in article.blocks:
            if block.kind != bbc.LIST or block.link_only:
                continue
            item_shares = shares[block.items]
            if block.promo:
                promo_shares += item_shares
                assert all(_LABEL.match(item) for item in block.items), (name, block.items)
            else:
                text_lists[(name, block.items[0])] = [round(s, 2) for s in item_shares]
    # promo items: 0.41 (the longest label) .. 0.82, every one behind a capitalised label
    assert len(promo_shares) == 13
    assert 0.40 < min(promo_shares) < bbc.PROMO_MIN_LINK_SHARE < max(promo_shares) < 0.85
    # prose items with an inline link stay below the share threshold (0.41, 0.45) ...
    obama = text_lists[("bbc_2015_world-us-canada-33646704__readability.html",
                        "The UK must stay in the EU to have influence on the world stage")]
    assert obama == [0.41, 0.0, 0.0, 0.45, 0.0, 0.0]
    assert max(obama) < bbc.PROMO_MIN_LINK_SHARE
    # ... and every list kept as text has an item without any link (the have-your-say list
    # "WhatsApp: +44 ...", "Tweet: @...", "terms & conditions" included), so the "every item"
    # rule has a wide margin on that side
    assert len(text_lists) == 5
    assert all(min(shares) == 0.0 for shares in text_lists.values()), text_lists


def test_no_answer_or_context_carries_a_promo_label_or_a_link_list_item(shared_data):
    checked = 0
    for name, article in _articles(shared_data):
        navigation = {item for b in article.blocks if b.kind == bbc.LIST
                      and (b.promo or b.link_only) for item in b.items}
        document = build_document(article.blocks)
        for paragraph in document.paragraphs:
            assert paragraph not in navigation, (name, paragraph)
        for qa in document.qas:
            for line in qa.answer_text.split("\n"):
                assert not _LABEL.match(line), (name, qa.question, line)
                assert line not in navigation, (name, qa.question, line)
            checked += 1
        for first_items in PROMO_PAGES.get(name, []):
            assert first_items not in document.context, name
    assert checked >= 1


def test_questions_and_counts_on_the_shared_pages(shared_data):
    kept, dropped, promo_lists = [], [], 0
    for name, article in _articles(shared_data):
        document = build_document(article.blocks)
        kept += [(name, q.question) for q in document.qas]
        dropped += [(name, d.question, d.reason) for d in document.dropped]
        promo_lists += document.removed_promo_lists
    assert kept == [("bbc_2020_health-54622059__wpp.html", "What raises the risk?")]
    # the long-Covid section has a real prose list (and a promo box): still dropped
    assert dropped == [("bbc_2020_health-54622059__wpp.html", "What is long Covid like?",
                        "bullet_list_answer")]
    assert promo_lists == 3
