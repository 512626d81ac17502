"""The candidate rules' cost grows with the candidates, not with every element of a page
(issue 39 §3: table- and list-heavy pages), and the faster pairing of tag tokens keeps
exactly the elements the plain pairing gives."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

import pytest

from filters.nq.candidates import _RULE_TAGS, _candidates, _elements, page_region
from filters.nq.tokens import TOKEN_TAGS, NqToken, scan_nq_html

pytestmark = pytest.mark.usefixtures("tokenizer_implementation")


def table_page(rows: int, cells: int) -> str:
    """A desktop page with one table of ``rows`` rows of ``cells`` cells each."""
    row = "<TR>" + "".join(f"<TD>cell {c}</TD>" for c in range(cells)) + "</TR>\n"
    return ('<HTML><BODY><DIV id="mw-content-text"><P>Intro words here.</P>\n'
            f"<TABLE>{row * rows}</TABLE>\n<UL>" + "<LI>an item</LI>" * rows
            + "</UL></DIV></BODY></HTML>")


def python_calls(fn: Callable[[], object]) -> int:
    """Python function calls (frames entered) while ``fn`` runs: a count, not a time."""
    calls = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        calls += event == "call"

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return calls


def rule_calls(html: str) -> tuple[int, int]:
    """(Python calls of the candidate rules, candidates) for ``html``'s tokens."""
    tokens, regions = scan_nq_html(html, page_region)
    _candidates(tokens, regions)  # warm the tag-name cache: later pages hit it
    out: list = []
    calls = python_calls(lambda: out.extend(_candidates(tokens, regions)))
    return calls, len(out)


def test_rule_calls_do_not_grow_with_cells() -> None:
    narrow_calls, narrow_found = rule_calls(table_page(rows=150, cells=1))
    wide_calls, wide_found = rule_calls(table_page(rows=150, cells=12))
    assert narrow_found == wide_found == 1 + 150 + 1 + 1 + 150  # P, TABLE, rows, UL, items
    # 1,650 more cells (3,300 more tag tokens) cost no Python call of their own
    assert wide_calls - narrow_calls <= 5, (narrow_calls, wide_calls)
    assert narrow_calls <= 4 * narrow_found, (narrow_calls, narrow_found)


def plain_elements(tokens: list[NqToken]) -> list[tuple[str, int, int, bool]]:
    """The pairing as first written: every element, then those the rules look at."""
    stack: list[tuple[str, int, int]] = []
    out: list[tuple[str, int, int, bool]] = []
    tables = 0
    for index, token in enumerate(tokens):
        if not token.html_token:
            continue
        name = token.token.strip("</>").lower()
        if not token.token.startswith("</"):
            stack.append((name, index, tables))
            tables += name == "table"
            continue
        k = len(stack) - 1
        while k >= 0 and stack[k][0] != name:
            k -= 1
        if k < 0:
            continue
        for open_name, _, _ in stack[k:]:
            tables -= open_name == "table"
        _, open_index, outside = stack[k]
        del stack[k:]
        out.append((name, open_index, index, outside > 0))
    return [el for el in out if el[0] in _RULE_TAGS]


@pytest.mark.parametrize("seed", range(20))
def test_pairing_matches_the_plain_pairing_on_unbalanced_tags(seed: int) -> None:
    rng = random.Random(seed)
    names = sorted(TOKEN_TAGS)
    tokens = []
    for i in range(600):
        kind = rng.random()
        if kind < 0.3:
            tokens.append(NqToken("word", i, i + 1, False))
        else:
            name = rng.choice(names).capitalize()
            closing = "/" if kind < 0.65 else ""
            tokens.append(NqToken(f"<{closing}{name}>", i, i + 1, True))
    assert [tuple(el) for el in _elements(tokens)] == plain_elements(tokens)
