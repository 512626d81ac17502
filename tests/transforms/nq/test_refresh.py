"""The NQ/JNQ refresh rule's pieces: option checks, which options are row options, the
previous release's files and records, and what summaries and cards say."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from transforms.core.errors import UsageError
from transforms.core.options import row_options
from transforms.jnq.spec import JnqOptions
from transforms.nq.carried import read_carried
from transforms.nq.counters import PREVIOUSLY_DROPPED
from transforms.nq.examples import jsonl_gz_bytes
from transforms.nq.refresh import (
    check_refresh_options,
    original_files,
    published_key,
)
from transforms.nq.refresh_drops import UNLINKED, _again, drop_files, read_drops
from transforms.nq.refresh_text import card_lines, questions_card_lines, summary_lines, this_run
from transforms.nq.spec import NqOptions
from transforms.release.lineage import Lineage
from transforms.release.refresh.previous import PreviousRelease


def previous(tmp_path, all_files: tuple[str, ...]) -> PreviousRelease:
    return PreviousRelease(path=str(tmp_path), lineage=Lineage("nq", "1", "f" * 16),
                           splits=("train", "dev"), files=(), options={},
                           all_files=all_files)


def test_relink_needs_previous_and_examples():
    with pytest.raises(UsageError, match="--relink only applies with --previous"):
        check_refresh_options(NqOptions(relink=True), questions_only=False)
    with pytest.raises(UsageError, match="nothing is linked"):
        check_refresh_options(NqOptions(relink=True, previous="auto"), questions_only=True)
    relink = NqOptions(relink=True, previous="auto")
    assert check_refresh_options(relink, questions_only=False) is relink


def test_a_question_release_built_on_a_previous_one_rebuilds_every_row():
    options = NqOptions(previous="auto", stop_after="questions")
    assert check_refresh_options(options, questions_only=True) == replace(
        options, recompute_all=True)
    assert check_refresh_options(NqOptions(), questions_only=True).recompute_all is False


def test_only_options_that_change_rows_are_row_options():
    linking = ["search", "pages", "lang", "min_score", "min_margin", "split_ratios",
               "split_salt"]
    assert row_options(NqOptions) == ["min_users", "window", "min_category_count",
                                      "stop_after", *linking]
    assert row_options(JnqOptions) == ["min_users", "window", "variant", "count_symbols",
                                       "extended_keywords", "stop_after", *linking]


def test_the_previous_original_format_examples_are_read_as_written(tmp_path):
    examples = [{"example_id": 1, "question_text": "q one", "document_html": "<p>é\u2028</p>",
                 "annotations": []},
                {"example_id": 2, "question_text": "q two", "document_html": "", "x": 1.5}]
    shard = tmp_path / "nq_original" / "dev" / "nq-dev-00.jsonl.gz"
    shard.parent.mkdir(parents=True)
    shard.write_bytes(jsonl_gz_bytes(examples))
    release = previous(tmp_path, ("dev/dev-0.parquet", "nq_original/dev/nq-dev-00.jsonl.gz",
                                  "nq_original/test/nq-test-00.jsonl.gz", "README.md"))
    assert original_files(release) == [("dev", "nq_original/dev/nq-dev-00.jsonl.gz", "")]
    assert original_files(None) is None
    rows = list(read_carried(original_files(release)[0], str(tmp_path)))
    assert rows == [("dev", example) for example in examples]
    assert jsonl_gz_bytes([row for _, row in rows]) == shard.read_bytes()


def test_only_lasting_drops_are_kept(tmp_path):
    records = [{"question": "a", "reason": "no_wikipedia_in_top5"},
               {"question": "b", "reason": "http_503", "title": "B"},
               {"question": "c", "reason": "page_redirected", "title": "C"}]
    name = "rejected/unlinked_questions/unlinked_questions-00000-of-00001.jsonl"
    (tmp_path / name).parent.mkdir(parents=True)
    (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in records))
    release = previous(tmp_path, (name, "rejected/dead_letter/dead_letter-0.jsonl"))
    assert drop_files(release) == [name]
    lasting = frozenset({"no_wikipedia_in_top5", "page_redirected"})
    assert list(read_drops(name, str(tmp_path), lasting)) == [("a", records[0]),
                                                              ("c", records[2])]


def outputs(emitted) -> list[tuple[str, object]]:
    return [(output.tag, output.value) for output in emitted]


def test_a_kept_drop_is_written_again_only_for_a_question_still_asked_and_not_carried():
    record = {"question": "a", "reason": "no_wikipedia_in_top5"}
    asked = {"previous": [], "fresh": [], "units": [1], "drops": [record]}
    assert outputs(_again(asked)) == [("tally", (str(PREVIOUSLY_DROPPED), 1)),
                                      ("rejected", (UNLINKED, record))]
    assert outputs(_again({**asked, "units": []})) == []  # gone from the log
    assert outputs(_again({**asked, "previous": [1]})) == []  # its example was carried
    assert outputs(_again({**asked, "drops": []})) == []


def test_published_rows_are_keyed_by_their_question():
    assert published_key({"question": {"text": "q", "tokens": ["q"]}}) == "q"
    assert published_key({"question": "q", "variant": "jnq"}) == "q"


def test_summaries_and_cards_say_what_a_refresh_did():
    full, refreshed = {"counts": {}}, {"refresh": {"carried": 3}}
    manifest = {"options": {"relink": False}}
    relinked = {"options": {"relink": True}}
    assert summary_lines(manifest, full) == card_lines(manifest, full) == []
    assert this_run(full) == "" and this_run(refreshed) == " (this run)"
    assert "kept drops were not searched again" in summary_lines(manifest, refreshed)[0]
    assert "--relink" in summary_lines(relinked, refreshed)[0]
    assert "carried as published" in card_lines(manifest, refreshed)[0]
    assert "no example was carried" in card_lines(relinked, refreshed)[0]
    assert questions_card_lines(full) == []
    assert "never carried" in questions_card_lines(refreshed)[0]
