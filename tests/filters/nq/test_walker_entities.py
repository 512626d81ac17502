"""The C walker unescapes each distinct entity of a page once (html.unescape is a regex
substitution in Python: on table- and list-heavy pages it was called thousands of times a
page, issue 39 §3), with the same tokens as the Python reference, also past its cap of
distinct entities."""

from __future__ import annotations

import sys

import pytest

from filters.nq import tokens
from filters.nq.candidates import nq_document, page_region
from filters.nq.tokens import python_scan_nq_html, scan_nq_html

pytestmark = pytest.mark.skipif(not tokens.NATIVE_TOKENS, reason="C extensions not built")


def unescape_calls(html: str) -> int:
    """Python calls of html.unescape while the C walker scans ``html``: a count, not a time."""
    calls = 0

    def profile(frame, event: str, arg: object) -> None:
        nonlocal calls
        calls += event == "call" and frame.f_code.co_name == "unescape"

    sys.setprofile(profile)
    try:
        scan_nq_html(html, page_region)
    finally:
        sys.setprofile(None)
    return calls


def table(rows: int) -> str:
    row = ("<TR><TD>&quot;quoted&quot; &amp; more</TD><TD>1901&#8211;1902</TD>"
           "<TD>a&nbsp;b &#x2014; c</TD></TR>\n")
    return f'<HTML><BODY><DIV id="mw-content-text"><TABLE>{row * rows}</TABLE></DIV></BODY></HTML>'


def test_each_distinct_entity_is_unescaped_once_a_page() -> None:
    assert unescape_calls(table(10)) == unescape_calls(table(500)) == 5


@pytest.mark.parametrize("html", [
    table(50),
    "<P>" + " ".join(f"&#{n};x&#x{n:x};" for n in range(1, 9000)) + "</P>",  # past the cap
    "<P>&amp;&amp &ampx; &notit; &notin; &#0; &#x110000; &#128; &#xD800; &zz;</P>" * 40,
])
def test_same_tokens_as_the_python_walker(html: str) -> None:
    assert scan_nq_html(html, page_region) == python_scan_nq_html(html, page_region)
    tokens_c, candidates_c = nq_document(html)
    assert tokens_c == python_scan_nq_html(html, page_region)[0]
    assert candidates_c == nq_document(html)[1]
