"""The one grouping of an NLQuAD refresh (``transforms.nlquad.capture_join.decide``) and the
skipped captures' lines (``transforms.nlquad.outcomes``)."""

from __future__ import annotations

import json

import pytest
from apache_beam.pvalue import TaggedOutput

from tests.transforms.nlquad.test_refresh import STAMP, URL, carried
from transforms.core.accounting import REJECTED, TALLY
from transforms.nlquad.capture_join import (
    DOCUMENTS,
    SKIPPED,
    UNIT_KEYS,
    WANTED,
    KeyUnits,
    decide,
)
from transforms.nlquad.capture_keys import capture_id
from transforms.nlquad.outcomes import SkipOutcome, outcome_json, parse_outcome
from transforms.nlquad.refresh import UnitCapture, page_capture
from transforms.nlquad.sidecar import SidecarLineDamaged
from transforms.sources.page_reload import light_page
from transforms.sources.pages import CapturedPage

KEY = capture_id(URL, STAMP)


def _page(digest: str) -> CapturedPage:
    return CapturedPage(URL, STAMP, b"", "pages/1.html", digest=digest)


def _capture_of(unit) -> UnitCapture:
    """A page's capture, or a Wayback unit's ``(asset key, CdxCapture)``."""
    if isinstance(unit, CapturedPage):
        return page_capture(unit)
    return UnitCapture(URL, STAMP, "S", unit[0])


def _decide(units, documents=(), skipped=(), capture_of=_capture_of) -> dict[str, list]:
    """What ``decide`` yields for one capture id, by output (``main`` for fresh units)."""
    out: dict[str, list] = {}
    for item in decide((KEY, {"units": units, "documents": list(documents),
                              "skipped": list(skipped)}), capture_of):
        tag, value = (item.tag, item.value) if isinstance(item, TaggedOutput) else ("main", item)
        out.setdefault(tag, []).append(value)
    return out


def test_a_unit_with_its_documents_digest_is_carried_with_the_document():
    document = carried("1000001", URL, STAMP)  # digest "D"
    out = _decide([("D", _page("D"))], [document])
    assert out[DOCUMENTS] == [document] and "main" not in out
    assert out[UNIT_KEYS] == [(KEY, 1)]
    changed = _decide([("E", _page("E"))], [document])
    assert DOCUMENTS not in changed and changed["main"] == [("news/1000001", _page("E"))]
    assert changed[UNIT_KEYS] == [(f"{KEY}\tE", 1)]  # no previous row has this key


def test_an_unchanged_skipped_page_is_counted_and_rejected_not_parsed():
    outcome = SkipOutcome(URL, STAMP, "S", "live_page", "", "")
    out = _decide([("S", _page("S")), ("S", _page("S"))], skipped=[outcome])
    assert "main" not in out and out[SKIPPED] == [outcome, outcome]  # one line per page
    assert out[REJECTED] == [
        ("skipped_pages", {"url": URL, "timestamp": STAMP, "source": "pages/1.html",
                           "reason": "live_page", "detail": ""})] * 2
    assert sorted(name for name, _ in out[TALLY]).count("pages.skipped.live_page") == 2
    assert out[UNIT_KEYS] == [(f"{KEY}\tS", 2)]
    assert "main" in _decide([("T", _page("T"))], skipped=[outcome])  # other bytes
    wayback = _decide([("S", ("news/x", object()))], skipped=[outcome])
    assert len(wayback["main"]) == 1 and SKIPPED not in wayback  # fetched and parsed again


def test_only_a_fresh_units_asset_key_is_worked_out():
    document = carried("1000001", URL, STAMP)  # digest "D"
    asked = []

    def capture_of(unit):
        asked.append(unit)
        return _capture_of(unit)

    outcome = SkipOutcome(URL, STAMP, "S", "live_page", "", "")
    _decide([("D", _page("D")), ("S", _page("S"))], [document], [outcome], capture_of)
    assert asked == []  # a carried page and a carried skip: no URL classified
    _decide([("E", _page("E"))], [document], capture_of=capture_of)
    assert asked == [_page("E")]


def test_a_unit_is_made_light_and_keyed_with_its_id_wanted_in_one_step():
    page = CapturedPage(URL, STAMP, b"<html>page</html>", "pages/1.html")
    light = CapturedPage(URL, STAMP, b"", "pages/1.html", digest=page.payload_digest())
    out = list(KeyUnits(page_capture, prepare=light_page).process(page))
    assert out[0].tag == WANTED and out[0].value == (KEY, None)
    assert out[1] == (KEY, (page.payload_digest(), light))
    wayback = list(KeyUnits(_capture_of).process(("news/x", object())))
    assert wayback[0].value == (KEY, None) and wayback[1][1][0] == "S"


def test_a_skipped_line_reads_back_and_a_damaged_one_is_refused():
    outcome = SkipOutcome(URL, STAMP, "S", "no_article_body", "no <body>", "fallback")
    line = json.dumps(outcome_json(outcome)).encode()
    assert parse_outcome(line, "f: line 1") == outcome
    for damaged in (b"[1]", b"{", json.dumps({**outcome_json(outcome), "pad": ""}).encode(),
                    json.dumps({**outcome_json(outcome), "encoding": "guessed"}).encode()):
        with pytest.raises(SidecarLineDamaged, match="f: line 1"):
            parse_outcome(damaged, "f: line 1")
