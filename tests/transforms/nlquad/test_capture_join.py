"""The one grouping of an NLQuAD refresh (``transforms.nlquad.capture_join.decide``) and the
skipped captures' lines (``transforms.nlquad.outcomes``)."""

from __future__ import annotations

import json
import zlib

import pytest
from apache_beam.pvalue import TaggedOutput

from tests.transforms.nlquad.test_refresh import STAMP, URL, carried
from transforms.core.accounting import REJECTED, TALLY
from transforms.nlquad import capture_join
from transforms.nlquad.capture_join import (
    BUCKETS,
    DOCUMENTS,
    SKIPPED,
    SUMMARIES,
    UNIT_KEYS,
    UNITS,
    WANTED,
    Batch,
    KeyUnits,
    _read_batches,
    bucket_of,
    decide,
    decide_bucket,
)
from transforms.nlquad.capture_keys import capture_id
from transforms.nlquad.carried_summary import SummarizeCarried
from transforms.nlquad.outcomes import SkipOutcome, outcome_json, parse_outcome
from transforms.nlquad.refresh import UnitCapture, page_capture
from transforms.nlquad.sidecar import SidecarDocument, SidecarLineDamaged
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


def _by_output(items) -> dict[str, list]:
    """Yielded items by output (``main`` for fresh units)."""
    out: dict[str, list] = {}
    for item in items:
        tag, value = (item.tag, item.value) if isinstance(item, TaggedOutput) else ("main", item)
        out.setdefault(tag, []).append(value)
    return out


def _decide(units, documents=(), skipped=(), capture_of=_capture_of) -> dict[str, list]:
    """What ``decide`` yields for one capture id, by output."""
    return _by_output(decide(KEY, units, documents, skipped, capture_of))


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


def _key_units(units, key_units: KeyUnits) -> dict[str, list]:
    """What ``KeyUnits`` yields for one bundle of ``units``, by output (windows dropped)."""
    key_units.start_bundle()
    out = [item for unit in units for item in key_units.process(unit)]
    for item in key_units.finish_bundle():
        if isinstance(item, TaggedOutput):
            out.append(TaggedOutput(item.tag, item.value.value))
        else:
            out.append(item.value)
    return _by_output(out)


def test_a_unit_is_made_light_and_keyed_with_its_id_wanted_in_one_step():
    page = CapturedPage(URL, STAMP, b"<html>page</html>", "pages/1.html")
    light = CapturedPage(URL, STAMP, b"", "pages/1.html", digest=page.payload_digest())
    out = _key_units([page], KeyUnits(page_capture, prepare=light_page))
    assert out[WANTED] == [frozenset({KEY})]
    [(bucket, batch)] = out["main"]
    assert bucket == bucket_of(KEY) and batch.side == UNITS
    assert batch.items() == [(KEY, page.payload_digest(), light)]
    wayback = _key_units([("news/x", 1)], KeyUnits(_capture_of))
    assert wayback[WANTED] == [frozenset({KEY})]
    assert wayback["main"][0][1].items() == [(KEY, "S", ("news/x", 1))]


def test_units_travel_in_batches_of_one_bucket_each_at_most_max_batch_long(monkeypatch):
    monkeypatch.setattr(capture_join, "MAX_BATCH", 3)
    pages = [CapturedPage(f"{URL}{i}", STAMP, b"", f"pages/{i}.html", digest=f"D{i}")
             for i in range(40)]
    out = _key_units(pages, KeyUnits(page_capture))
    assert out[WANTED] == [frozenset(capture_id(page.url, STAMP) for page in pages)]
    batches = out["main"]
    assert all(1 <= len(batch.items()) <= 3 for _, batch in batches)
    assert len(batches) < len(pages)  # some buckets have two or three of the 40 pages
    for bucket, batch in batches:
        assert {bucket_of(key) for key, _, _ in batch.items()} == {bucket}
    assert sorted(key for _, batch in batches for key, _, _ in batch.items()) == sorted(
        capture_id(page.url, STAMP) for page in pages)


def test_a_bucket_is_a_stable_hash_of_the_capture_id():
    assert bucket_of(KEY) == zlib.crc32(KEY.encode()) % BUCKETS
    assert len({bucket_of(f"{URL}{i}\t{STAMP}") for i in range(1000)}) == BUCKETS


def test_a_buckets_batches_are_decided_capture_by_capture_in_id_order():
    document = carried("1000001", URL, STAMP)  # digest "D"
    other = capture_id(f"{URL}2", STAMP)
    outcome = SkipOutcome(f"{URL}2", STAMP, "S", "live_page", "", "")
    page = CapturedPage(f"{URL}2", STAMP, b"", "pages/2.html", digest="S")
    read = SidecarDocument(document, b'{"as": "read"}\n')
    batches = [Batch.of(UNITS, [(other, "S", page)]),
               Batch.of(DOCUMENTS, [(KEY, read), ("no unit has this id", read)]),
               Batch.of(UNITS, [(KEY, "D", _page("D")), (KEY, "D", _page("D"))]),
               Batch.of(SKIPPED, [(other, outcome)])]
    out = _by_output(decide_bucket((0, batches), _capture_of))
    assert out[DOCUMENTS] == [(KEY, read.line)]  # written again as its line was read
    assert out[SKIPPED] == [outcome] and "main" not in out
    assert out[UNIT_KEYS] == [(KEY, 2), (f"{other}\tS", 1)]  # KEY sorts first
    combine = SummarizeCarried()  # the carried documents, summed up where they are carried
    assert out[SUMMARIES] == [combine.add_inputs(combine.create_accumulator(), [document])]
    changed = [Batch.of(UNITS, [(KEY, "E", _page("E"))]), Batch.of(DOCUMENTS, [(KEY, read)])]
    assert SUMMARIES not in _by_output(decide_bucket((1, changed), _capture_of))


def test_the_previous_files_are_read_in_batches_the_documents_of_wanted_ids_only(monkeypatch):
    asked = []

    def documents(name, release, wanted):
        asked.append((name, release, wanted))
        return [(key, key.upper()) for key in ("a", "b", "c") if key in wanted]

    monkeypatch.setattr(capture_join, "keyed_documents", documents)
    monkeypatch.setattr(capture_join, "keyed_outcomes",
                        lambda name, release: [("b", "skip"), ("z", "skip")])
    wanted = [frozenset({"a"}), frozenset({"c", "z"})]
    found = [(bucket, batch.side, item)
             for bucket, batch in _read_batches((DOCUMENTS, "f"), "r", wanted)
             for item in batch.items()]
    assert sorted(item for _, _, item in found) == [("a", "A"), ("c", "C")]
    assert all(side == DOCUMENTS and bucket == bucket_of(item[0])
               for bucket, side, item in found)
    assert asked == [("f", "r", frozenset({"a", "c", "z"}))]
    skipped = [item for _, batch in _read_batches((SKIPPED, "g"), "r", wanted)
               for item in batch.items()]
    assert sorted(skipped) == [("b", "skip"), ("z", "skip")]  # every skipped capture


def test_a_buckets_tallies_are_summed_once_per_name():
    outcome = SkipOutcome(URL, STAMP, "S", "live_page", "", "")
    pages = [(KEY, "S", _page("S"))] * 3
    out = _by_output(decide_bucket((0, [Batch.of(UNITS, pages),
                                        Batch.of(SKIPPED, [(KEY, outcome)])]), _capture_of))
    names = [name for name, _ in out[TALLY]]
    assert len(names) == len(set(names)) and dict(out[TALLY])["pages.skipped.live_page"] == 3
    assert len(out[REJECTED]) == 3  # one record per page, as the parser writes them


def test_a_skipped_line_reads_back_and_a_damaged_one_is_refused():
    outcome = SkipOutcome(URL, STAMP, "S", "no_article_body", "no <body>", "fallback")
    line = json.dumps(outcome_json(outcome)).encode()
    assert parse_outcome(line, "f: line 1") == outcome
    for damaged in (b"[1]", b"{", json.dumps({**outcome_json(outcome), "pad": ""}).encode(),
                    json.dumps({**outcome_json(outcome), "encoding": "guessed"}).encode()):
        with pytest.raises(SidecarLineDamaged, match="f: line 1"):
            parse_outcome(damaged, "f: line 1")
