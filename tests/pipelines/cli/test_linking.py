"""Linking options: the global request rate is divided between the shards."""

import argparse

from pipelines.cli.linking import add_linking_arguments, backend_options


def test_global_rate_is_divided_between_shards():
    parser = argparse.ArgumentParser()
    add_linking_arguments(parser, "en")
    args = parser.parse_args(["--requests-per-minute", "120", "--shards", "4",
                              "--pages", "rest", "--search", "mediawiki"])
    options = backend_options(args)
    assert options.http["per_minute"] == 30
    assert (options.search, options.pages, options.lang) == ("mediawiki", "rest", "en")

