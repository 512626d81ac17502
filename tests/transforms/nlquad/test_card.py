"""The NLQuAD card: CardInfo for the Hub and Croissant, and a body with the release's figures."""

from __future__ import annotations

from tests.transforms.nq.card_checks import HOSTILE, SECRET_PATH, check_body, check_card_info
from transforms.nlquad.card import nlquad_card
from transforms.nlquad.schema import NLQUAD_SCHEMA
from transforms.release import DatasetCard


def _manifest(**source):
    return {"dataset": "nlquad", "version": HOSTILE, "created": "2024-01-01T00:00:00Z",
            "rows_per_split": {"train": 8, "dev": 1, "test": 1},
            "options": {"split_salt": "nlquad", "boilerplate_min_docs": 3,
                        "paragraph_separator": "\n", "input": f"{SECRET_PATH}/*.html",
                        "from_year": 2016, "to_year": 2020},
            "source": source or {"kind": "html",
                                 "description": f"saved HTML pages matching {SECRET_PATH}"}}


STATS = {
    "counts": {"pages": {"read": 5, "parsed": 4, "skipped.video_page": 1},
               "questions": {"found": 11, "kept": 10, "dropped.bullet_list_answer": 1},
               "dedup": {"duplicate_capture": 2}, "documents": {"promo_list_removed": 3}},
    "lengths": {"all": {"answer_words": {"mean": 170.5}, "question_words": {"mean": 7}}},
    "baselines": {"split": "dev", "n": 1, "metrics": ["iou", "f1"], "note": "Windows.",
                  "rows": [{"name": "first window", "iou": 0.25, "f1": 0.5}]},
}


def test_the_card_is_a_dataset_card_with_the_papers_citation():
    assert isinstance(nlquad_card, DatasetCard)
    [entry] = check_card_info(nlquad_card.info, NLQUAD_SCHEMA)
    assert (entry["key"], entry["year"], entry["pages"]) == (
        "soleimani-etal-2021-nlquad", "2021", "1245--1255")
    assert "BBC" in nlquad_card.info.license_text
    assert any("2016-2020" in text for text in nlquad_card.info.limitations)


def test_the_body_keeps_counts_drop_reasons_lengths_and_baselines():
    body = check_body(nlquad_card, _manifest(), STATS)
    assert nlquad_card.info.summary in body
    assert "| bullet_list_answer | 1 |" in body and "| video_page | 1 |" in body
    assert "| promo link lists removed | 3 |" in body
    assert "| words per answer | 170.5 | 175 |" in body
    assert "| first window | 0.250 | 0.500 |" in body
    assert "saved BBC News HTML pages" in body and "## Method" in body


def test_wayback_pages_name_their_years():
    body = nlquad_card(_manifest(kind="wayback", description="Wayback"), STATS)
    assert "published 2016-2020" in body


def test_wayback_cdx_rows_are_accounted_on_the_card_and_in_the_summary():
    from pipelines.build_nlquad import format_summary
    from transforms.nlquad.card import cdx_count_rows

    cdx = {"rows_read": 9, "captures_listed": 6, "skipped.adjacent_duplicate": 1,
           "malformed.bad_timestamp": 2, "failed.bad_cdx_response": 1}
    stats = {**STATS, "counts": {**STATS["counts"], "cdx": cdx}}
    rows = dict(cdx_count_rows(stats["counts"]))
    assert rows["CDX rows read"] == (rows["captures listed"]
                                     + rows["adjacent duplicate CDX rows"]
                                     + rows["malformed CDX rows, bad_timestamp"])
    assert rows["CDX queries failed, bad_cdx_response"] == 1
    assert cdx_count_rows(STATS["counts"]) == []
    body = nlquad_card(_manifest(kind="wayback", description="Wayback"), stats)
    assert "| CDX rows read | 9 |" in body
    assert "| malformed CDX rows, bad\\_timestamp | 2 |" in body
    summary = format_summary({"stats": stats, "path": "out",
                              "manifest": _manifest(kind="wayback", description="Wayback")})
    assert "CDX rows read:" in summary and "malformed CDX rows, bad_timestamp: 2" in summary


def test_after_a_refresh_the_counts_say_they_are_this_runs_work():
    from pipelines.build_nlquad import format_summary

    refresh = {"previous": {"dataset": "nlquad", "version": "1.0.0", "fingerprint": "f"},
               "recompute_all": False, "carried": 20, "new": 2, "recomputed": 0, "removed": 1}
    counts = {**STATS["counts"], "carried": {"documents": 9},
              "dedup": {"duplicate_capture_of_carried": 2}}
    stats = {**STATS, "counts": counts, "refresh": refresh}
    body = nlquad_card(_manifest(), stats)
    assert "## Counts (this run's work)" in body
    assert "built on nlquad 1.0.0 with `--previous`: 9 documents" in body
    assert "| documents carried | 9 |" in body
    assert "| new captures of carried articles, dropped | 2 |" in body
    summary = format_summary({"stats": stats, "path": "out", "manifest": _manifest()})
    assert "this run's work (carried documents were not fetched or parsed again)" in summary
    assert "documents carried:     9" in summary
    recomputed = {**stats, "refresh": {**refresh, "recompute_all": True}}
    assert "every capture was processed again" in nlquad_card(_manifest(), recomputed)
    assert "this run's work" not in nlquad_card(_manifest(), STATS)


def test_every_wayback_wait_is_on_the_card_and_in_the_summary():
    from pipelines.build_nlquad import format_summary

    counts = {**STATS["counts"],
              "cdx": {"rows_read": 3, "captures_listed": 3, "revisits_listed": 1,
                      "retry_waits": 1, "retry_wait_seconds": 60},
              "fetch": {"retry_waits": 2, "retry_wait_seconds": 600,
                        "throttle_wait_seconds": 45, "redirected_captures_kept": 1}}
    stats = {**STATS, "counts": counts}
    manifest = _manifest(kind="wayback", description="Wayback")
    body = nlquad_card(manifest, stats)
    assert "| revisit records among them | 1 |" in body
    assert "| fetch seconds waited before retries | 600 |" in body
    assert "| fetch seconds waited for rate-limit slots | 45 |" in body
    assert "| CDX waits before a retry | 1 |" in body
    assert "| redirected captures kept | 1 |" in body
    summary = format_summary({"stats": stats, "path": "out", "manifest": manifest})
    assert "fetch seconds waited before retries: 600" in summary
    assert "CDX seconds waited before retries: 60" in summary
