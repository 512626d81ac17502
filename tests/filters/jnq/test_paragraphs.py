from collections import Counter

import pytest

from filters.jnq.paragraphs import ParagraphCandidate, cosine, page_paragraphs, select_candidates


def words(texts):
    return [t.split() for t in texts]


def test_first_paragraph_then_top_four_by_cosine():
    paragraphs = ["intro text", "tower height meters", "food", "tower built 1958",
                  "tower tower height", "unrelated", "height"]
    chosen = select_candidates(paragraphs, "tower height", words)
    assert [c.paragraph_id for c in chosen] == [0, 4, 1, 6, 3]
    assert [c.rank for c in chosen] == [0, 1, 2, 3, 4]
    assert chosen[0] == ParagraphCandidate(0, 0, 0.0)
    assert chosen[1].score > chosen[2].score > 0


def test_ties_go_to_the_earlier_paragraph_and_short_documents_offer_all():
    chosen = select_candidates(["a", "x y", "x y", "x y"], "x", words)
    assert [c.paragraph_id for c in chosen] == [0, 1, 2, 3]
    assert select_candidates(["only"], "q", words) == [ParagraphCandidate(0, 0, 0.0)]
    assert select_candidates([], "q", words) == []


def test_cosine():
    assert cosine(Counter("ab"), Counter("ab")) == pytest.approx(1.0)
    assert cosine(Counter("a"), Counter("b")) == 0.0
    assert cosine(Counter(), Counter("a")) == 0.0


PAGE = """<html><head><title>東京タワー - Wikipedia</title></head><body>
<div id="mw-content-text"><div class="mw-parser-output">
<table class="infobox"><tr><td><p>表の中</p></td></tr></table>
<div class="hatnote"><p>曖昧さ回避</p></div>
<p>東京タワーは電波塔である。<sup class="reference">[1]</sup></p>
<p>   </p>
<div id="toc" class="toc"><p>目次</p></div>
<h2><span class="mw-headline">歴史</span><span class="mw-editsection">[編集]</span></h2>
<p>1958年に完成した。</p>
<h2><span class="mw-headline">脚注</span></h2>
<p>脚注の段落</p>
</div></div></body></html>"""


def test_page_paragraphs_skip_noise_and_stop_at_notes():
    assert page_paragraphs(PAGE) == ["東京タワーは電波塔である。", "1958年に完成した。"]
    assert page_paragraphs("") == []
