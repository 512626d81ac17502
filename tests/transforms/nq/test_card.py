"""The NQ cards (questions and examples): CardInfo for the Hub and Croissant, and bodies."""

from __future__ import annotations

from tests.transforms.nq.card_checks import HOSTILE, SECRET_PATH, check_body, check_card_info
from transforms.nq.card import nq_card, nq_questions_card
from transforms.nq.examples import HF_SCHEMA
from transforms.release import DatasetCard
from transforms.release.features import class_labels

SOURCE = {"kind": "query_log", "description": f"query logs matching {SECRET_PATH}/log.tsv",
          "categories": f"{SECRET_PATH}/categories.tsv", "search": "local", "pages": "local",
          "index_dir": f"{SECRET_PATH}/index", "lang": "en"}


def _manifest(dataset, rows):
    return {"dataset": dataset, "version": HOSTILE, "rows_per_split": rows, "source": SOURCE,
            "options": {"min_users": 2, "window": 7, "input": f"{SECRET_PATH}/log.tsv"}}


def test_both_cards_cite_natural_questions():
    for card in (nq_card, nq_questions_card):
        assert isinstance(card, DatasetCard)
        [entry] = check_card_info(card.info)
        assert (entry["key"], entry["journal"], entry["volume"], entry["pages"]) == (
            "kwiatkowski-etal-2019-natural",
            "Transactions of the Association for Computational Linguistics", "7", "452--466")
        assert "search log" in card.info.license_text


def test_yes_no_answer_is_a_class_label_of_the_hf_layout():
    assert class_labels(HF_SCHEMA) == {"annotations.yes_no_answer": ("NO", "YES")}
    check_card_info(nq_card.info, HF_SCHEMA)
    assert "Wikipedia" in nq_card.info.license_text and "CC BY-SA" in nq_card.info.license_text


def test_the_questions_body_keeps_every_rejection_reason():
    stats = {"counts": {"log": {"rows": 10, "malformed_rows": 1},
                        "queries": {"distinct": 8, "accepted": 3, "rejected.too_few_users": 5},
                        "heuristics": {"h1": 2, "h3": 1}}}
    body = check_body(nq_questions_card, _manifest("nq_questions", {"questions": 3}), stats)
    assert body.startswith("# NQ question selection")
    assert "| rejected, too_few_users | 5 |" in body and "| accepted by heuristic 3 | 1 |" in body


def test_the_examples_body_keeps_splits_tags_and_baselines():
    stats = {"counts": {"candidates": {"tag.p": 4, "tag.table": 1}},
             "wikipedia_in_top5_share": 0.5,
             "baselines": {"split": "dev", "n": 0, "metrics": ["f1"], "rows": [],
                           "note": "Not annotated."}}
    body = check_body(nq_card, _manifest("nq", {"train": 2, "dev": 0, "test": 0}), stats)
    assert "| dev | 0 |" in body and "p 4, table 1" in body and "50.0%" in body
    assert "## Untrained baselines" in body and "nq-<split>-00.jsonl.gz" in body
    assert "Not annotated yet" in body


MEDIAWIKI = {**SOURCE, "search": "mediawiki", "pages": "rest", "index_dir": "",
             "search_backend": "mediawiki (https://en.wikipedia.org/w/api.php)",
             "pages_backend": "rest (https://en.wikipedia.org/api/rest_v1)", "index": "",
             "bundled_sample_index": False, "sample_input": False}
BUNDLED = {**SOURCE, "search_backend": "bundled sample index (46 pages, for the sample only)",
           "pages_backend": "the same index",
           "index": "bundled sample index (46 pages, for the sample only)",
           "bundled_sample_index": True, "sample_input": True}
EXAMPLE_STATS = {"counts": {}, "wikipedia_in_top5_share": None}


def _examples(source):
    manifest = {**_manifest("nq", {"train": 1}), "source": source}
    return manifest, check_body(nq_card, manifest, EXAMPLE_STATS)


def test_the_card_names_the_backend_and_pages_used():
    """Issue 27 §4: the card names the search backend, the page source and the index."""
    from transforms.release import md_text

    manifest, body = _examples(MEDIAWIKI)
    assert (f"Search: {md_text(MEDIAWIKI['search_backend'])}; pages: "
            f"{md_text(MEDIAWIKI['pages_backend'])}; language: en.") in body
    assert "bundled sample index" not in body
    assert nq_card.info_for(manifest) is nq_card.info  # Wikipedia's pages, Wikipedia's licence
    _, old = _examples(SOURCE)  # a manifest written before the labels: the kinds
    assert "Search: local; pages: local; language: en." in old


def test_the_bundled_sample_index_is_not_called_wikipedia():
    from transforms.nq.backend_labels import ON_PURPOSE, SAMPLE_PAGES
    from transforms.release import md_text

    manifest, body = _examples(BUNDLED)
    assert f"Search: {md_text(BUNDLED['search_backend'])}; pages: the same index" in body
    assert SAMPLE_PAGES in body and ON_PURPOSE not in body
    info = nq_card.info_for(manifest)
    check_card_info(info)
    assert "not pages fetched from Wikipedia" in info.license_text
    assert "come from Wikipedia" not in info.license_text
    assert "bundled sample index" in info.collection
    _, on_purpose = _examples({**BUNDLED, "sample_input": False})
    assert ON_PURPOSE in on_purpose and SAMPLE_PAGES in on_purpose
