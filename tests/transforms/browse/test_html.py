"""html: escaping of text and attributes, links only to http(s), the shared page layout."""

from __future__ import annotations

import re

import pytest

from transforms.browse.html import CSP, attr, link, page, release_label, shorten, text, web_url


def test_text_and_attr_escape_markup_and_quotes():
    hostile = """<script>alert("x")</script> & 'it'"""
    escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#x27;it&#x27;"
    assert text(hostile) == escaped and attr(hostile) == escaped
    assert text(None) == "" and text(3) == "3"


@pytest.mark.parametrize("url", ["http://example.org/a?b=1&c=2", "https://example.org",
                                 "  https://example.org/x  ", "HTTPS://EXAMPLE.ORG/"])
def test_http_urls_become_links_with_escaped_href(url):
    html = link(url, "a <b> title")
    assert html.startswith('<a href="') and 'rel="noopener noreferrer nofollow"' in html
    assert ">a &lt;b&gt; title</a>" in html
    assert "&c=" not in html and ('&amp;c=2"' in html or "&" not in url)


@pytest.mark.parametrize("url", ["javascript:alert(1)", " javascript:alert(1)",
                                 "JavaScript:alert(1)", "data:text/html,<script>x</script>",
                                 "vbscript:x", "/relative/path", "//example.org/x", "http:/x",
                                 "https://exa\nmple.org", "java\tscript:alert(1)", "", None, 5,
                                 'https://x.org/"onmouseover="alert(1)'])
def test_anything_else_is_the_label_as_text(url):
    html = link(url, "<i>label</i>")
    if url == 'https://x.org/"onmouseover="alert(1)':
        assert 'href="https://x.org/&quot;onmouseover=&quot;alert(1)"' in html
        return
    assert html == "&lt;i&gt;label&lt;/i&gt;" and web_url(url) is None


def test_link_without_label_shows_the_url_escaped():
    assert link("javascript:<x>") == "javascript:&lt;x&gt;"
    assert link("https://e.org/<x>").endswith(">https://e.org/&lt;x&gt;</a>")


def test_shorten_collapses_whitespace_and_marks_the_cut():
    assert shorten("a  b\n\nc", 10) == "a b c"
    assert shorten("word " * 10, 12) == "word word w…" and len(shorten("x" * 50, 12)) == 12
    assert shorten(None) == ""


def test_page_has_the_nav_the_release_and_no_inline_script():
    html = page("Title <script>", "<p>body</p>", "../", release="toy 1.0.0",
                scripts=("assets/site.js",))
    assert "<title>Title &lt;script&gt; · toy 1.0.0</title>" in html
    assert "<h1>Title &lt;script&gt;</h1>" in html and "<p>body</p>" in html
    for target in ("../index.html", "../examples/index-00001.html", "../rejected/index.html",
                   "../assets/site.css"):
        assert f'href="{target}"' in html
    assert '<span class="release">toy 1.0.0</span>' in html
    assert re.findall(r"<script[^>]*>", html) == [
        '<script src="../assets/site.js" charset="utf-8">']
    assert f'content="{attr(CSP)}"' in html and "script-src 'self'" in CSP
    assert "http" not in CSP and "unsafe-eval" not in CSP


def test_release_label():
    assert release_label({"dataset": "nq", "version": "1.2.0"}) == "nq 1.2.0"
