"""Parser tests per layout era, on tiny pages written for the test."""

from filters.bbc.article import (
    BREAK,
    LIST,
    PARAGRAPH,
    SUBHEADING,
    ParsedArticle,
    ParseSkip,
    normalize_datetime,
    parse_bbc_article,
)

ERA_A = """<html><head><meta name="OriginalPublicationDate" content="2013/02/21 14:10:58"/>
<meta property="og:title" content="Og title A"/></head><body>
<div class="story-body"><span class="story-date"><span class="date">21 February</span></span>
<div class="share-help"><h3>Share this page</h3><ul><li><a href="#">Facebook</a></li></ul></div>
<h1 class="story-header">Harbour bridge reopens</h1>
<span class="byline"><span class="byline-name">By A Writer</span></span>
<div class="caption body-width"><img src="x.jpg" alt="Bridge"/><span>A caption</span></div>
<p class="introduction">The bridge reopened on Monday.</p>
<p>Engineers checked every cable.</p>
<span class="cross-head">Why did it close?</span>
<p>A crack was found in March.</p>
<div class="embedded-hyper"><h2><a href="/news/magazine/">In today's Magazine</a></h2>
<ul><li><a class="story" href="/news/1">Promo</a></li></ul></div>
<p>Repairs took six months.</p>
<p><span class="cross-head">What next?</span></p>
<p>Tolls return in May.</p>
</div></body></html>"""

ERA_B = """<html><head><meta property="og:title" content="Different og title"/>
<script type="application/ld+json">{"@type":"NewsArticle","datePublished":"2019-08-12T21:32:50+01:00"}</script>
</head><body>
<div class="story-body"><h1 class="story-body__h1">Ferry strike ends</h1>
<div class="mini-info-list"><div class="date date--v2" data-seconds="1565645570">12 August</div></div>
<div class="story-body__inner" property="articleBody">
<figure class="media-landscape"><span class="story-image-copyright">PA</span>
<figcaption class="media-caption">Caption text</figcaption></figure>
<p class="story-body__introduction">Ferry staff have ended a strike.</p>
<p>Talks lasted nine hours.</p>
<div id="bbccom_mpu_1" class="bbccom_slot mpu-ad" aria-hidden="true"><div class="bbccom_advert">
<script>document.write("ad");</script></div></div>
<h2 class="story-body__crosshead">What did workers win?</h2>
<p>A pay rise of 4%.</p>
<ul class="story-body__unordered-list">
<li class="story-body__list-item"><a href="/news/uk-1" class="story-body__link">Related story</a></li>
</ul>
<p>And a shorter week.</p>
<h2 class="story-body__crosshead">Which routes are affected?</h2>
<ul class="story-body__unordered-list"><li class="story-body__list-item">Dover to Calais</li>
<li class="story-body__list-item">Hull to Rotterdam</li></ul>
<hr class="story-body__line"/>
<h2 class="story-body__crosshead">Analysis: a reporter</h2>
<p>Relations remain tense.</p>
<hr class="story-body__line"/>
<p>Services resume on Friday.</p>
</div></div>
<div id="topic-tags"><h2 class="story-body__crosshead">Related Topics</h2></div>
</body></html>"""

ERA_C = """<html><head><meta property="og:type" content="article"/></head><body><main>
<article><header><h1 id="main-heading" class="css-1 Heading">Rail fares rise</h1>
<time datetime="2020-11-02T10:00:00.000Z">2 November</time>
<div><span>Related Topics</span><ul><li><a href="/news/topics/x">Rail</a></li></ul></div>
</header>
<div data-component="text-block" class="css-2"><style>.css-2{margin:0}</style>
<div><p><b>Fares will rise by 2.6%.</b></p></div></div>
<div data-component="crosshead-block"><style>.x{}</style><h2>Who pays more?</h2></div>
<div data-component="text-block"><div><p>Commuters on <a href="/a">season tickets</a>.</p></div></div>
<div data-component="text-block"><div><p>Off-peak fares are frozen.</p></div></div>
<div data-component="image-block"><figure><noscript><img alt="Presentational grey line" src="l.png"/></noscript></figure></div>
<div data-component="unordered-list-block"><ul><li><a href="/news/1">Read more</a></li></ul></div>
<div data-component="text-block"><div><p>Follow us on Twitter</p></div></div>
<section data-component="tag-list"><h2>Related Topics</h2><ul><li><a href="/t">Rail</a></li></ul></section>
</article></main></body></html>"""

ERA_D = """<html><head><script type="application/ld+json">
{"@graph":[{"@type":"NewsArticle","headline":"LD headline","datePublished":"2024-09-30T11:44:06.000Z"}]}
</script></head><body><main><article>
<div data-component="headline-block"><h1 id="main-heading" class="ssrcss-1">Storm warning</h1></div>
<div data-component="byline-block"><span>By Someone</span></div>
<div data-component="text-block" class="ssrcss-2"><p class="ssrcss-3">Winds reached 90mph.</p></div>
<div data-component="subheadline-block"><h2 class="ssrcss-4">How long will it last?</h2></div>
<div data-component="text-block"><p>Until Sunday.</p><p>Forecasters say.</p></div>
<div data-component="links-block"><ul><li><a href="/x">More</a></li></ul></div>
</article></main></body></html>"""

ERA_E = """<html><body><main><article>
<h1 id="main-heading">Newest layout</h1>
<div data-block="text"><p>First paragraph.</p></div>
<div data-block="subheadline"><h2>Is this the newest?</h2></div>
<div data-block="text"><p>Yes it is.</p></div>
</article></main></body></html>"""


def _kinds(article: ParsedArticle) -> list[tuple[str, str]]:
    return [(b.kind, b.text or "|".join(b.items)) for b in article.blocks]


def test_era_a_cross_heads_and_noise():
    article = parse_bbc_article(ERA_A)
    assert isinstance(article, ParsedArticle)
    assert (article.era, article.headline) == ("A", "Harbour bridge reopens")
    assert article.published == "2013-02-21T14:10:58Z"
    assert _kinds(article) == [
        (PARAGRAPH, "The bridge reopened on Monday."),
        (PARAGRAPH, "Engineers checked every cable."),
        (SUBHEADING, "Why did it close?"),
        (PARAGRAPH, "A crack was found in March."),
        (PARAGRAPH, "Repairs took six months."),
        (SUBHEADING, "What next?"),
        (PARAGRAPH, "Tolls return in May."),
    ]


def test_era_b_body_lists_breaks_and_traps():
    article = parse_bbc_article(ERA_B)
    assert isinstance(article, ParsedArticle)
    assert (article.era, article.headline, article.og_title) == (
        "B", "Ferry strike ends", "Different og title")
    assert article.published == "2019-08-12T20:32:50Z"
    kinds = _kinds(article)
    assert kinds[0] == (PARAGRAPH, "Ferry staff have ended a strike.")
    assert (SUBHEADING, "Related Topics") not in kinds
    assert not any("Caption" in text or "ad" == text or "PA" == text for _, text in kinds)
    link_lists = [b for b in article.blocks if b.kind == LIST and b.link_only]
    text_lists = [b for b in article.blocks if b.kind == LIST and not b.link_only]
    assert [b.items for b in link_lists] == [("Related story",)]
    assert [b.items for b in text_lists] == [("Dover to Calais", "Hull to Rotterdam")]
    assert [k for k, _ in kinds].count(BREAK) == 2


def test_era_c_blocks_without_css_and_with_grey_line_break():
    article = parse_bbc_article(ERA_C)
    assert isinstance(article, ParsedArticle)
    assert (article.era, article.headline) == ("C", "Rail fares rise")
    assert article.published == "2020-11-02T10:00:00Z"
    kinds = _kinds(article)
    assert kinds[:4] == [
        (PARAGRAPH, "Fares will rise by 2.6%."),
        (SUBHEADING, "Who pays more?"),
        (PARAGRAPH, "Commuters on season tickets."),
        (PARAGRAPH, "Off-peak fares are frozen."),
    ]
    assert kinds[4] == (BREAK, "")
    assert not any("{" in text for _, text in kinds)
    assert (SUBHEADING, "Related Topics") not in kinds


def test_era_d_subheadline_and_json_ld_graph():
    article = parse_bbc_article(ERA_D)
    assert isinstance(article, ParsedArticle)
    assert (article.era, article.headline) == ("D", "Storm warning")
    assert article.published == "2024-09-30T11:44:06Z"
    assert _kinds(article) == [
        (PARAGRAPH, "Winds reached 90mph."),
        (SUBHEADING, "How long will it last?"),
        (PARAGRAPH, "Until Sunday."),
        (PARAGRAPH, "Forecasters say."),
    ]


def test_newest_data_block_layout():
    article = parse_bbc_article(ERA_E)
    assert isinstance(article, ParsedArticle)
    assert article.era == "D"
    assert [k for k, _ in _kinds(article)] == [PARAGRAPH, SUBHEADING, PARAGRAPH]


def test_truncated_head_only_page_is_skipped():
    result = parse_bbc_article("<html><head><title>BBC News</title><meta charset='utf-8'>")
    assert isinstance(result, ParseSkip)
    assert result.reason == "no_article_body"


def test_empty_and_garbage_inputs_are_skipped_not_raised():
    for text in ("", "   ", "\x00\x01", "<?xml version='1.0' encoding='utf-8'?>"):
        assert isinstance(parse_bbc_article(text), ParseSkip)


def test_video_page_by_og_type():
    page = ('<html><head><meta property="og:type" content="video"/></head>'
            '<body><div class="player">clip</div></body></html>')
    result = parse_bbc_article(page)
    assert isinstance(result, ParseSkip) and result.reason == "video_page"


def test_body_without_paragraphs_is_empty_document():
    page = '<html><body><div class="story-body__inner"><figure>x</figure></div></body></html>'
    result = parse_bbc_article(page)
    assert isinstance(result, ParseSkip) and result.reason == "empty_document"


def test_broken_html_is_recovered():
    page = ('<html><body><div class="story-body__inner"><p>One <b>bold</span> text'
            '<p>Two<div class="x"><h2 class="story-body__crosshead">Why now?<p>Three'
            '<p class="unterminated>Four</p>')
    article = parse_bbc_article(page)
    assert isinstance(article, ParsedArticle)
    texts = [t for _, t in _kinds(article)]
    assert "One bold text" in texts and "Why now?" in texts and "Three" in texts


def test_xml_declaration_and_br_are_handled():
    page = ("<?xml version='1.0' encoding='utf-8'?><html><body><div class='story-body__inner'>"
            "<p>Line one<br/>line two</p></div></body></html>")
    article = parse_bbc_article(page)
    assert isinstance(article, ParsedArticle)
    assert article.paragraphs == ["Line one line two"]


def test_normalize_datetime_forms():
    assert normalize_datetime("1565645570") == "2019-08-12T21:32:50Z"
    assert normalize_datetime("2011/12/02 00:03:39") == "2011-12-02T00:03:39Z"
    assert normalize_datetime("2020-10-21T04:30:49.000Z") == "2020-10-21T04:30:49Z"
    assert normalize_datetime("21 October") == ""


def _nested(depth: int, body: str) -> str:
    return "<html><body>" + "<div>" * depth + body + "</div>" * depth + "</body></html>"


def test_deeply_nested_article_is_parsed_not_dropped():
    era_b = ("<div class='story-body__inner'>" + "<div>" * 600 + "<p>Deep paragraph.</p>"
             "<h2 class='story-body__crosshead'>Why so deep?</h2><p>Generated markup.</p>"
             + "</div>" * 600 + "</div>")
    parsed = parse_bbc_article(_nested(600, era_b))
    assert isinstance(parsed, ParsedArticle)
    assert [(b.kind, b.text) for b in parsed.blocks] == [
        (PARAGRAPH, "Deep paragraph."), (SUBHEADING, "Why so deep?"),
        (PARAGRAPH, "Generated markup.")]
    era_c = ("<article>" + "<div>" * 600 + "<div data-component='text-block'><p>Deep C.</p>"
             "</div>" + "</div>" * 600 + "</article>")
    assert parse_bbc_article(_nested(600, era_c)).paragraphs == ["Deep C."]


def test_page_nested_beyond_the_parser_limit_is_skipped_with_reason():
    body = "<div class='story-body__inner'><p>Lost below the limit.</p></div>"
    skipped = parse_bbc_article(_nested(2100, body))
    assert isinstance(skipped, ParseSkip)
    assert skipped.reason == "too_deeply_nested"
