"""Count and size options of the builders refuse values that would misbehave (issue 23 §23),
and every builder that reads local files through transforms.sources.compressed has
--max-decoded-mib (§15)."""

from __future__ import annotations

import importlib

import pytest

from pipelines.cli.errors import UsageError

BUILDERS = ("build_nlquad", "build_nq", "build_jnq", "build_reqa", "build_categories",
            "build_search_index")
REFUSED = [
    ("build_nlquad", "--max-rows-per-shard", "0"),
    ("build_nlquad", "--max-rows-per-shard", "-5"),
    ("build_nlquad", "--boilerplate-min-docs", "-1"),
    ("build_nlquad", "--boilerplate-min-docs", "1"),  # every paragraph is in one article
    ("build_nlquad", "--boilerplate-min-words", "-1"),
    ("build_nlquad", "--fetch-workers", "0"),
    ("build_nlquad", "--max-captures", "-1"),
    ("build_nlquad", "--fetches-per-minute", "0"),
    ("build_nlquad", "--cdx-per-minute", "-3"),
    ("build_nq", "--max-rows-per-shard", "0"),
    ("build_nq", "--batch-size", "0"),
    ("build_nq", "--min-category-count", "-1"),
    ("build_nq", "--min-users", "0"),
    ("build_jnq", "--min-users", "-2"),
    ("build_reqa", "--max-rows-per-shard", "-5"),
    ("build_reqa", "--batch-size", "0"),
    ("build_categories", "--batch-size", "-1"),
]


def _parser(name: str):
    return importlib.import_module(f"pipelines.{name}").build_parser()


@pytest.mark.parametrize("builder,option,value", REFUSED)
def test_a_count_that_would_misbehave_is_a_usage_error(builder, option, value):
    with pytest.raises(UsageError):
        _parser(builder).parse_known_args([f"{option}={value}"])


@pytest.mark.parametrize("builder", BUILDERS)
def test_every_builder_caps_the_decoded_size_of_its_inputs(builder):
    args, _ = _parser(builder).parse_known_args(["--max-decoded-mib", "2"])
    assert args.max_decoded_mib == 2
    for bad in ("0", "-1", "nan", "inf"):
        with pytest.raises(UsageError):
            _parser(builder).parse_known_args([f"--max-decoded-mib={bad}"])
