"""The NQ renderer: escaping, the chosen answer (one annotation or NQ's 5-way rule), the long
answer and short answers marked at the release's token offsets, spans that always nest, on
tiny hand-made rows and on the sample NQ releases."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.transforms.annotation.label_studio.fixtures import nq_example
from transforms.annotation import page_words
from transforms.annotation.label_studio.tasks import nq_task
from transforms.browse import html as h
from transforms.browse.base import ReleaseView
from transforms.browse.renderers import nq
from transforms.browse.renderers.nq import Span, chosen_answer, highlight
from transforms.nq.examples import hf_example

HOSTILE = "<script>alert(1)</script>"
VOID = {"br", "img", "hr", "meta", "input", "link", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""
    children: list[Element] = field(default_factory=list)


class _Tree(HTMLParser):
    """Elements with their text content; an end tag must close the innermost open element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[Element] = []
        self.all: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.all.append(element)
        if self.open:
            self.open[-1].children.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1].tag == tag, f"</{tag}> does not close the innermost"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        for element in self.open:
            element.text += data


def elements(markup: str) -> list[Element]:
    """Every element of ``markup`` in document order; fails unless the markup nests."""
    tree = _Tree()
    tree.feed(markup)
    tree.close()
    assert not tree.open, f"unclosed: {[e.tag for e in tree.open]}"
    return tree.all


def by_class(markup: str, name: str) -> list[Element]:
    return [e for e in elements(markup) if name in e.attrs.get("class", "").split()]


def _annotation(long: tuple[int, int, int] | None, shorts: tuple[tuple[int, int], ...] = (),
                yes_no: str = "NONE", number: int = 1) -> dict[str, Any]:
    start, end, index = long or (-1, -1, -1)
    return {"annotation_id": number, "yes_no_answer": yes_no,
            "long_answer": {"start_token": start, "end_token": end, "start_byte": -1,
                            "end_byte": -1, "candidate_index": index},
            "short_answers": [{"start_token": s, "end_token": e, "start_byte": -1,
                               "end_byte": -1} for s, e in shorts]}


def _row(annotations: tuple | list = (), **changes: Any) -> dict[str, Any]:
    """A HuggingFace-layout row of the hand-made example (7 candidates: #0 P, #1 Table with
    rows #2 and #3, #4 Ul with items #5 and #6)."""
    example = {**nq_example(), "annotations": list(annotations), **changes}
    return hf_example(example)


def _entry(row: dict[str, Any]):
    return nq.NqRenderer().entry(row, "train")


def test_hostile_question_title_tokens_and_page_never_appear_unescaped():
    tokens = nq_example(f"<P> Winds x{HOSTILE} blow </P>")  # a text token holding a tag
    row = hf_example({**tokens, "question_text": HOSTILE, "document_title": HOSTILE,
                      "document_html": f"<p>{HOSTILE}</p>", "document_url": "javascript:x",
                      "annotations": [_annotation((0, 5, 0), shorts=((2, 3),))]})
    entry = _entry(row)
    for markup in (*entry.cells, entry.detail):
        assert "<script" not in markup and "javascript:" not in markup
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in entry.cells[0]
    mark, = by_class(entry.detail, "short-answer")
    assert mark.text == f"x{HOSTILE}" and entry.cells[3] == h.text(f"x{HOSTILE}")
    assert HOSTILE in entry.text  # the filter's plain text is escaped by the site writer
    frames = [e for e in elements(entry.detail) if e.tag == "iframe"]
    assert len(frames) == 1 and frames[0].attrs["sandbox"] == ""
    assert frames[0].attrs["srcdoc"] == f"<p>{HOSTILE}</p>"  # the parsed attribute: raw page


def test_page_link_unescapes_nq_urls_and_links_only_http():
    entry = _entry(_row())
    links = [e for e in elements(entry.cells[1]) if e.tag == "a"]
    assert links[0].attrs["href"] == "https://en.wikipedia.org//w/index.php?title=Trade_winds&oldid=1"
    assert links[0].text == "Trade winds"
    assert "<a" not in _entry(_row(document_url="ftp://x/y")).cells[1]


def test_unannotated_rows_show_the_candidates_only():
    entry = _entry(_row())
    assert entry.reason == "not annotated"
    assert "not annotated" in entry.cells[2] and "not annotated" in entry.cells[3]
    candidates = by_class(entry.detail, "candidate")
    assert [c.attrs["data-candidate"] for c in candidates] == ["0", "1", "4"]
    assert [c.children[0].text for c in candidates] == [
        "#0 P (top level)", "#1 Table (top level)", "#4 Ul (top level)"]
    assert not by_class(entry.detail, "long-answer") + by_class(entry.detail, "short-answer")
    assert "Name | Direction\nTrade winds | east" in candidates[1].text


def test_top_level_long_answer_is_green_and_short_answer_marked_at_its_tokens():
    row = _row([_annotation((4, 14, 0), shorts=((10, 12),))])
    entry = _entry(row)
    long, = by_class(entry.detail, "long-answer")
    assert long.attrs["class"] == "candidate long-answer"
    assert (long.attrs["data-start-token"], long.attrs["data-end-token"]) == ("4", "14")
    mark, = by_class(entry.detail, "short-answer")
    assert mark.tag == "mark" and mark.text == "the east"
    assert (mark.attrs["data-start-token"], mark.attrs["data-end-token"]) == ("10", "12")
    assert row["annotations"]["short_answers"][0]["text"] == ["the east"]
    assert entry.reason == "short answer"
    assert entry.cells[2] == "The trade winds blow from the east ." and entry.cells[3] == "the east"


def test_nested_long_answer_shades_its_top_level_candidate():
    row = _row([_annotation((23, 32, 3), shorts=((25, 27),))])  # the table's second row
    entry = _entry(row)
    shaded, = by_class(entry.detail, "contains-answer")
    assert shaded.attrs["data-candidate"] == "1"
    long, = by_class(entry.detail, "long-answer")
    assert long.tag == "span" and long.text == "Trade winds | east"
    assert (long.attrs["data-start-token"], long.attrs["data-end-token"],
            long.attrs["data-candidate"]) == ("23", "32", "3")
    mark, = by_class(entry.detail, "short-answer")
    assert mark in long.children and mark.text == "Trade winds"
    assert entry.cells[2] == "Trade winds | east"


def _tags(example: dict[str, Any]) -> dict[str, str]:
    """The ``#n`` tag annotators clicked on each box of the example's Label Studio page, by
    the box's candidate index."""
    page = nq_task(example, "train", "r")["data"]["page"]
    return dict(re.findall(r'data-candidate="(\d+)">(?:<td class="nq-row-tag">)?'
                           r'<span class="nq-tag[^"]*">(#\d+) <', page))


def _summary_long(entry) -> str:
    summary, = by_class(entry.detail, "answer-summary")
    return next(e.text for e in summary.children if e.tag == "dd")


def test_candidates_carry_the_numbers_and_labels_annotators_chose_from():
    example = nq_example()
    ul = example["long_answer_candidates"][4]  # the list: the 3rd top-level candidate
    entry = _entry(_row([_annotation((ul["start_token"], ul["end_token"], 4))]))
    labels = [c.children[0].text for c in by_class(entry.detail, "candidate")]
    assert labels == ["#0 P (top level)", "#1 Table (top level)", "#4 Ul (top level)"]
    tags = _tags(example)
    assert [label.split()[0] for label in labels] == [tags["0"], tags["1"], tags["4"]]
    long, = by_class(entry.detail, "long-answer")
    assert long.attrs["data-candidate"] == "4" and long.children[0].text == "#4 Ul (top level)"
    assert _summary_long(entry) == (f"#4 Ul (top level), tokens {ul['start_token']}–"
                                    f"{ul['end_token']}")


def test_nested_long_answer_is_named_as_annotators_saw_it():
    entry = _entry(_row([_annotation((23, 32, 3))]))  # the table's second row
    long, = by_class(entry.detail, "long-answer")
    assert long.attrs["data-candidate"] == "3" and long.attrs["title"] == "#3 Tr in #1"
    assert _summary_long(entry) == "#3 Tr in #1, tokens 23–32"
    assert _tags(nq_example())["3"] == "#3"
    five = [_annotation((23, 32, 3), number=n) for n in range(1, 4)] + [
        _annotation((4, 14, 0), number=4), _annotation(None, number=5)]
    table, = by_class(_entry(_row(five)).detail, "annotations")
    assert [row.children[1].text for row in table.children[1].children] == [
        "#3", "#3", "#3", "#0", "none"]


def test_yes_no_answer_and_no_answer():
    yes = _entry(_row([_annotation((4, 14, 0), yes_no="YES")]))
    assert yes.reason == "yes/no" and yes.cells[3] == "<strong>YES</strong>"
    none = _entry(_row([_annotation(None)]))
    assert none.reason == "no answer" and not by_class(none.detail, "long-answer")


def test_five_way_needs_two_non_null_and_shows_the_most_frequent():
    one = [_annotation((4, 14, 0), shorts=((10, 12),), number=1)] + [
        _annotation(None, number=n) for n in range(2, 6)]
    assert chosen_answer(_row(one)["annotations"]) == nq.Answer(5)
    two = [_annotation((15, 23, 2), number=1), _annotation((4, 14, 0), ((10, 12),), number=2),
           _annotation((4, 14, 0), ((10, 12),), number=3), _annotation(None, number=4),
           _annotation((4, 14, 0), yes_no="NO", number=5)]
    answer = chosen_answer(_row(two)["annotations"])
    assert answer.long == (4, 14, 0) and answer.short == ((10, 12, "the east"),)
    entry = _entry(_row(two))
    assert len([e for e in elements(entry.detail) if e.tag == "tr"]) == 6  # head + 5
    assert chosen_answer(None) == nq.Answer(0)


def test_measures_count_tokens():
    row = _row([_annotation((4, 14, 0))])
    assert nq.NqRenderer().measures(row) == {
        "question tokens": 7, "document tokens": len(row["document"]["tokens"]["token"]),
        "long answer tokens": 10}
    assert "long answer tokens" not in nq.NqRenderer().measures(_row())


def test_highlight_nests_crossing_spans_with_each_piece_at_its_offsets():
    text = "alpha beta gamma delta"
    spans = [Span(0, 10, "mark", (("class", "a"),), offset=100),
             Span(6, 16, "mark", (("class", "b"),), offset=100),
             Span(6, 10, "span", (("class", "c"),), offset=100)]
    markup = highlight(text, spans, inserts=[(6, "<i>^</i>")], breaks=(" ", "<br>"))
    found = elements(markup)  # asserts the markup nests
    pieces = [(e.attrs["class"], e.attrs["data-start"], e.attrs["data-end"], e.text)
              for e in found if e.tag in ("mark", "span")]
    assert pieces == [("a", "100", "106", "alpha "), ("a", "106", "110", "beta"),
                      ("b", "106", "110", "beta"), ("c", "106", "110", "beta"),
                      ("b", "110", "116", " gamma")]
    assert markup.index("<i>^</i>") < markup.index('data-start="106"')  # outside every span
    assert markup.count("<br>") == 3
    assert highlight("<b>", [Span(0, 9, "mark")]) == "&lt;b&gt;"  # outside the text: left out


@pytest.fixture(scope="module")
def nq_releases(sample_releases: dict[str, Path]) -> dict[str, ReleaseView]:
    return {name: ReleaseView.open(str(sample_releases[name])) for name in ("nq", "nq_annotated")}


def _own_text(row: dict[str, Any], start: int, end: int) -> str:
    """The page's own text of document tokens ``[start, end)``, without whitespace."""
    tokens = row["document"]["tokens"]
    page = row["document"]["html"].encode("utf-8").decode("latin-1")
    words = (page_words.shown({"token": t, "start_byte": b, "end_byte": f}, page)
             for t, is_html, b, f in zip(*(tokens[k][start:end] for k in (
                 "token", "is_html", "start_byte", "end_byte")), strict=True) if not is_html)
    return "".join("".join(word.split()) for word in words)


@pytest.mark.parametrize("name", ["nq", "nq_annotated"])
def test_sample_release_marks_match_its_offsets(nq_releases, name):
    view = nq_releases[name]
    renderer = nq.make(view)
    shown = {"long": 0, "short": 0}
    for table in view.main_tables():
        rows = list(view.rows(table))
        entries = list(renderer.entries(view, table, iter(rows)))
        assert [e.key for e in entries] == [r["id"] for r in rows]
        for row, entry in zip(rows, entries, strict=True):
            assert entry.split == table.directory
            answer = chosen_answer(row["annotations"])
            tokens = row["document"]["tokens"]
            top = sum(row["long_answer_candidates"]["top_level"])
            assert len(by_class(entry.detail, "candidate")) == top
            for long in by_class(entry.detail, "long-answer"):
                span = (int(long.attrs["data-start-token"]), int(long.attrs["data-end-token"]))
                assert span == answer.long[:2]
                shown["long"] += 1
            marks = by_class(entry.detail, "short-answer")
            expected = [(s, e, text) for s, e, text in answer.short]
            # A mark shows the page's own text of its tokens (its quotes and spacing).
            assert [(int(m.attrs["data-start-token"]), int(m.attrs["data-end-token"]),
                     "".join(m.text.split())) for m in marks] == [
                (s, e, _own_text(row, s, e)) for s, e, _ in expected]
            for start, end, text in expected:
                words = [t for t, is_html in zip(tokens["token"][start:end],
                                                 tokens["is_html"][start:end], strict=True)
                         if not is_html]
                assert text == " ".join(words)
            shown["short"] += len(marks)
    if name == "nq":
        assert shown == {"long": 0, "short": 0}
    else:
        assert shown["long"] > 0 and shown["short"] > 0


@pytest.mark.realdata
def test_real_pages_show_their_own_text_not_ptb_tokens(shared_data):
    import gzip
    import json

    with gzip.open(shared_data / "nq" / "nq_dev_original_first3.jsonl.gz", "rt",
                   encoding="utf-8") as handle:
        examples = [json.loads(line) for line in handle]
    texts = []
    for example in examples:
        detail = _entry(hf_example(example)).detail
        texts.append(" ".join(e.text for e in by_class(detail, "candidate-text")))
    nobel = texts[2]
    assert not any("``" in text or "''" in text for text in texts)
    assert '"in recognition of the extraordinary services he has rendered' in nobel
    assert "1940–1942" in nobel and "1940 -- 1942" not in nobel
    assert "(2007-08-17)" in texts[1]  # "( 2007-08-17 )" in PTB tokens
    assert "Starring | Zac Efron · Vanessa Hudgens · Ashley Tisdale" in texts[1]
