"""Which search backend, pages and index link the questions, decided before any work (issue
27 §4): the bundled sample index serves only the bundled sample log; any other input needs a
choice, listed in the refusal; the labels name what was used."""

from __future__ import annotations

import dataclasses
import json

import pytest

from tests.conftest import PROJECT_ROOT
from transforms.clients.search_backends import BACKEND_NAMES
from transforms.core.errors import UsageError
from transforms.jnq.spec import JnqOptions
from transforms.nq import linking_options
from transforms.nq.backend_labels import local_index_label
from transforms.nq.linking_options import CHOICES, resolve_linking, source_of
from transforms.nq.spec import NqOptions
from transforms.sources.search_corpus import build_index, page_record

SAMPLE_LOG = PROJECT_ROOT / "pipelines" / "samples" / "nq" / "query_log.tsv"
BUNDLED = "bundled sample index (46 pages, for the sample only)"


@pytest.fixture
def user_log(tmp_path):
    log = tmp_path / "my_log.tsv"
    log.write_text("query\tuser_id\ttimestamp\n"
                   "who was the first person to walk on the moon in 1969\tu1\t2018-01-01\n",
                   encoding="utf-8")
    return str(log)


@pytest.fixture
def no_sample_index(monkeypatch):
    """Fail when the bundled index would be built (a refused run writes nothing)."""
    import transforms.sources.search_corpus as corpus

    def refuse(*args, **kwargs):
        pytest.fail("the bundled sample index was built")

    monkeypatch.setattr(corpus, "ensure_sample_index", refuse)


def _index(directory, lang="en"):
    build_index([page_record("https://en.wikipedia.org/wiki/Apollo_11", "Apollo 11",
                             "wikipedia", 7, "<title>Apollo 11</title><p>Armstrong</p>")],
                str(directory), lang)
    return str(directory)


def test_the_refusal_lists_every_backend(user_log, no_sample_index):
    assert set(CHOICES) == set(BACKEND_NAMES)
    with pytest.raises(UsageError) as error:
        resolve_linking(NqOptions(input=user_log), needs_index=True)
    message = str(error.value)
    assert f"--input {user_log} is not the bundled sample log" in message
    assert "no search backend was chosen" in message
    for flag, _ in CHOICES.values():
        assert f"\n  {flag} " in message
    assert "--sample-index" in message


def test_a_local_backend_without_an_index_is_refused_on_user_input(user_log, no_sample_index):
    for options, why in ((NqOptions(input=user_log, search="local"), "--search local has no"),
                         (NqOptions(input=user_log, search="mediawiki", pages="local"),
                          "--pages local has no"),
                         (JnqOptions(input=user_log, search="local"), "--search local has no")):
        with pytest.raises(UsageError, match=why):
            resolve_linking(options, needs_index=True)


def test_contradictory_index_choices_are_refused(user_log, tmp_path, no_sample_index):
    index = _index(tmp_path / "index")
    with pytest.raises(UsageError, match="--sample-index and --index-dir"):
        resolve_linking(NqOptions(input=user_log, sample_index=True, index_dir=index), True)
    with pytest.raises(UsageError, match="--sample-index: --search mediawiki --pages rest"):
        resolve_linking(NqOptions(input=user_log, sample_index=True, search="mediawiki"), True)


def test_question_selection_asks_for_nothing(user_log, no_sample_index):
    resolved = resolve_linking(NqOptions(input=user_log), needs_index=False)
    assert (resolved.search, resolved.pages, resolved.index_dir) == ("local", "local", "")
    assert source_of(resolved) == {"search": "local", "pages": "local", "index_dir": ""}


def test_the_sample_log_gets_the_bundled_index():
    resolved = resolve_linking(NqOptions(input=str(SAMPLE_LOG)), needs_index=True)
    assert (resolved.search, resolved.pages, resolved.bundled_index, resolved.sample_input) == (
        "local", "local", True, True)
    assert resolved.search_label == resolved.index_label == BUNDLED
    assert resolved.pages_label == "the same index"
    assert resolve_linking(NqOptions(), needs_index=True).bundled_index  # the default input


def test_sample_index_is_the_deliberate_choice_on_user_input(user_log):
    resolved = resolve_linking(NqOptions(input=user_log, sample_index=True), needs_index=True)
    assert resolved.bundled_index and not resolved.sample_input
    source = source_of(resolved)
    assert source["search_backend"] == BUNDLED and source["bundled_sample_index"] is True
    assert source["sample_input"] is False


def test_network_backends_are_named_by_their_endpoints(user_log, no_sample_index):
    resolved = resolve_linking(NqOptions(input=user_log, search="mediawiki"), True)
    assert resolved.search_label == "mediawiki (https://en.wikipedia.org/w/api.php)"
    assert resolved.pages_label == "rest (https://en.wikipedia.org/api/rest_v1)"
    assert not resolved.index_dir and not resolved.bundled_index
    ja = resolve_linking(JnqOptions(input=user_log, search="mediawiki",
                                    mediawiki_api_url="http://127.0.0.1:9/w/api.php",
                                    rest_url="http://127.0.0.1:9/rest/"), True)
    assert ja.search_label == "mediawiki (http://127.0.0.1:9/w/api.php)"
    assert ja.pages_label == "rest (http://127.0.0.1:9/rest)"
    web = resolve_linking(NqOptions(input=user_log, search="web",
                                    web_endpoint="https://search.example/v1?key=SECRET"), True)
    assert web.search_label == "web (https://search.example/v1)"  # no query string: no key


def test_an_index_dir_alone_means_a_local_index(user_log, tmp_path, no_sample_index):
    index = _index(tmp_path / "my-index")
    resolved = resolve_linking(NqOptions(input=user_log, index_dir=index), needs_index=True)
    assert (resolved.search, resolved.pages, resolved.index_dir) == ("local", "local", index)
    assert resolved.search_label.startswith("local index my-index (1 page, files ")
    assert resolved.pages_label == "the same index" and not resolved.bundled_index
    mixed = resolve_linking(NqOptions(input=user_log, search="mediawiki", index_dir=index,
                                      pages="local"), True)
    assert mixed.pages_label == mixed.index_label == resolved.index_label


def test_an_index_release_is_named_and_fingerprinted_by_its_files(tmp_path):
    index = tmp_path / "search_en" / "1.0.0"
    _index(index)
    manifest = {"dataset": "search_en", "version": "1.0.0", "created": "a",
                "files": {"bm25/params.index.json": {"sha256": "aa", "bytes": 1}}}
    (index / "dataset_info.json").write_text(json.dumps(manifest))
    label = local_index_label(str(index))
    assert label.startswith("local index search_en 1.0.0 (sha256 ") and label.endswith(")")
    (index / "dataset_info.json").write_text(json.dumps({**manifest, "created": "b"}))
    assert local_index_label(str(index)) == label  # the files decide, not the timestamps
    manifest["files"]["bm25/params.index.json"]["sha256"] = "bb"
    (index / "dataset_info.json").write_text(json.dumps(manifest))
    assert local_index_label(str(index)) != label


def test_the_options_are_not_changed(user_log):
    options = NqOptions(input=user_log, sample_index=True)
    before = dataclasses.asdict(options)
    resolve_linking(options, needs_index=True)
    assert dataclasses.asdict(options) == before and options.search is None
    assert linking_options.default_pages(None) == "rest"
