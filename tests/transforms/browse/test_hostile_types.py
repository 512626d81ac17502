"""Issue 23 G16: a release whose "numeric" columns hold strings (its manifest's schema says
so, so ``verify`` accepts it) never puts an element of its own into a page: every value is
escaped whatever its type, and a renderer only gets the column types it was written for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lxml.html
import pyarrow as pa

from tests.transforms.browse.renderers.test_jnq import _annotated, _note
from tests.transforms.release.test_diff import write_release
from transforms.browse.html import CSP
from transforms.browse.renderers import jnq, nlquad, nq
from transforms.browse.site import write_site
from transforms.nlquad.schema import NLQUAD_SCHEMA
from transforms.release import verify_release


def meta_refresh(port: int = 9) -> str:
    """The payload: a meta refresh to ``http://127.0.0.1:<port>/pwned``."""
    return f'<meta http-equiv="refresh" content="0;url=http://127.0.0.1:{port}/pwned">'


STRING_COLUMNS = ("question_index", "answer_paragraphs")
CONTEXT = "Opening paragraph.\nWhy it matters here.\nClosing paragraph."


def hostile_nlquad_row(payload: str) -> dict[str, Any]:
    """An NLQuAD row whose int columns ``STRING_COLUMNS`` hold ``payload``."""
    start, end = CONTEXT.index("Why"), CONTEXT.index("\nClosing")
    answer = CONTEXT[start:end]
    return {
        "id": "bbc-1-q1", "document_id": "bbc-1", "title": "Title", "date": "2020-01-01",
        "published": "2020-01-01T00:00:00Z", "url": "https://www.bbc.co.uk/news/x-1",
        "capture_url": "https://www.bbc.co.uk/news/x-1", "capture_timestamp": "20200101000000",
        "layout_era": "B", "question": "Why?", "question_index": payload, "context": CONTEXT,
        "answer_text": answer, "answer_start": start, "answer_end": end,
        "answer_word_start": 2, "answer_word_end": 2 + len(answer.split()),
        "answer_paragraphs": payload, "answers": {"text": [answer], "answer_start": [start]},
    }


def hostile_nlquad_schema() -> pa.Schema:
    schema = NLQUAD_SCHEMA
    for name in STRING_COLUMNS:
        index = schema.get_field_index(name)
        schema = schema.set(index, pa.field(name, pa.string(), nullable=False))
    return schema


def hostile_release(root: Path, payload: str) -> Path:
    """A published ``nlquad`` release whose manifest types ``STRING_COLUMNS`` as strings."""
    return write_release(root, "1.0.0", {"train": [hostile_nlquad_row(payload)]},
                         dataset="nlquad", schemas={"train": hostile_nlquad_schema()},
                         stats={"counts": {"questions": {"kept": 1}}},
                         options={"paragraph_separator": "\n"})


LAYOUT_META = {("charset", "utf-8"), ("http-equiv", "Content-Security-Policy"),
               ("name", "referrer"), ("name", "viewport")}
ACTIVE = ("base", "object", "embed", "frame", "frameset", "applet", "portal")


def _in_svg(element: Any) -> bool:
    return any(a.tag == "svg" for a in element.iterancestors())


def foreign_elements(page: str) -> list[str]:
    """Elements or attributes of ``page`` the layout never writes: a meta other than the
    layout's four, a script without a site-relative src, a base, form other than the
    filter, iframe not sandboxed or with a src, a style outside matplotlib's svg, any on* or
    http-equiv attribute elsewhere."""
    tree = lxml.html.document_fromstring(page)
    found = []
    for element in tree.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        attrs = dict(element.attrib)
        if tag == "meta":
            keys = {(k, v) for k, v in attrs.items() if k in ("charset", "http-equiv", "name")}
            if len(keys) != 1 or not keys <= LAYOUT_META or element.getparent().tag != "head":
                found.append(f"meta {attrs}")
            elif attrs.get("http-equiv") and attrs.get("content") != CSP:
                found.append(f"meta {attrs}")
        elif tag == "script" and ("://" in attrs.get("src", "://") or element.text):
            found.append(f"script {attrs}")
        elif tag in ACTIVE or (tag == "style" and not _in_svg(element)):
            found.append(tag)
        elif tag == "form" and attrs.get("id") != "filter":
            found.append(f"form {attrs}")
        elif tag == "iframe" and (attrs.get("sandbox") != "" or "src" in attrs):
            found.append(f"iframe {attrs}")
        found += [f"{tag} {name}" for name in attrs
                  if name.startswith("on") or (name == "http-equiv" and tag != "meta")]
    return found


def site_pages(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): p.read_text(encoding="utf-8")
            for p in sorted(site.rglob("*.html"))}


def test_the_hostile_release_passes_verify_and_its_site_has_no_element_from_data(tmp_path):
    payload = meta_refresh()
    release = hostile_release(tmp_path / "releases", payload)
    assert verify_release(str(release)).ok
    site = tmp_path / "site"
    write_site(str(release), str(site))
    pages = site_pages(site)
    assert len(pages) >= 3
    for name, content in pages.items():
        assert foreign_elements(content) == [], name
        assert payload not in content, name
    shown = " ".join(lxml.html.document_fromstring(c).text_content() for c in pages.values())
    assert payload in shown


def test_a_release_with_other_column_types_gets_the_generic_renderer(tmp_path):
    release = hostile_release(tmp_path / "releases", meta_refresh())
    summary = write_site(str(release), str(tmp_path / "site"))
    assert summary["renderer"] == "generic"
    assert "question_index" in summary["renderer_refused"]
    overview = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "question_index" in lxml.html.document_fromstring(overview).text_content()


def _detail_page(detail: str) -> str:
    return f"<!DOCTYPE html><html><head></head><body>{detail}</body></html>"


def test_the_nlquad_renderer_escapes_string_numbers():
    payload = meta_refresh()
    entry = nlquad.NlquadRenderer().entry([hostile_nlquad_row(payload)], "train")
    html = _detail_page(entry.detail + "".join(entry.cells))
    assert foreign_elements(html) == []
    assert payload in lxml.html.document_fromstring(html).text_content()


def test_the_jnq_renderer_escapes_string_numbers():
    payload = meta_refresh()
    note = {**_note(1, "EXIST"), "yes_votes": payload, "votes": payload}
    row = {**_annotated([note], search_rank=payload, revision=payload,
                        candidate_scores=[0.1, payload, 0.3]), "num_annotators": payload}
    detail = jnq.JnqRenderer("jnq_annotated").detail(row)
    assert foreign_elements(_detail_page(detail)) == []
    assert lxml.html.document_fromstring(detail).text_content().count(payload) >= 4


def test_the_nq_renderer_escapes_string_token_offsets():
    payload = meta_refresh()
    answer = nq.Answer(1, long=(payload, payload, payload))
    summary = nq.NqRenderer()._answer_summary(answer, {"annotations": {}}, {})
    assert foreign_elements(_detail_page(summary)) == []
    assert payload in lxml.html.document_fromstring(summary).text_content()
