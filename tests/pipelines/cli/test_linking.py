"""Linking options: the global request rate is divided between the shards; the HTTP limits
reach the clients."""

import argparse
import pickle

import pytest

from pipelines.cli.linking import add_linking_arguments, backend_options
from pipelines.cli.options import add_underscore_aliases


def test_global_rate_is_divided_between_shards():
    parser = argparse.ArgumentParser()
    add_linking_arguments(parser, "en")
    args = parser.parse_args(["--requests-per-minute", "120", "--shards", "4",
                              "--pages", "rest", "--search", "mediawiki"])
    options = backend_options(args)
    assert options.http.per_minute == 30
    assert (options.search, options.pages, options.lang) == ("mediawiki", "rest", "en")



def _options(argv):
    parser = argparse.ArgumentParser()
    add_linking_arguments(parser, "en")
    add_underscore_aliases(parser)
    return backend_options(parser.parse_args(["--pages", "rest", "--search", "mediawiki", *argv]))


def test_http_limits_default_to_the_client_defaults():
    limits = _options([]).http.limits
    assert {k: getattr(limits, k) for k in ("timeout", "deadline", "max_retries",
                                            "max_redirects", "max_body_bytes",
                                            "max_decoded_bytes")} == {
        "timeout": (10.0, 30.0), "deadline": 120.0, "max_retries": 4, "max_redirects": 5,
        "max_body_bytes": 16 << 20, "max_decoded_bytes": 64 << 20}


def test_http_limits_reach_the_clients_with_flex_template_names():
    options = _options(["--http_deadline=2.5", "--http-connect-timeout", "1",
                        "--http_read_timeout=2", "--http-max-retries", "0",
                        "--http_max_redirects=1", "--http-max-body-mib", "0.5",
                        "--http_max_decoded_mib=2"])
    limits = options.http.limits
    assert limits.timeout == (1.0, 2.0) and limits.deadline == 2.5
    assert limits.max_body_bytes == 512 * 1024
    client = options.make_fetcher().http
    assert (client.limits.deadline, client.limits.max_redirects, client.max_retries) == (
        2.5, 1, 0)
    assert client.limits.max_decoded_bytes == 2 << 20 and client.timeout == (1.0, 2.0)
    assert pickle.loads(pickle.dumps(options)) == options


def test_http_limits_reject_nonsense():
    parser = argparse.ArgumentParser()
    add_linking_arguments(parser, "en")
    for argv in (["--http-deadline", "0"], ["--http-max-redirects", "-1"]):
        with pytest.raises(SystemExit):
            parser.parse_args(argv)


def test_a_bad_index_dir_stops_build_nq_before_the_job(tmp_path, capsys):
    from pipelines import build_nq
    from tests.conftest import TEST_RUNNER

    missing = tmp_path / "no-index"
    code = build_nq.main([TEST_RUNNER, "--output", str(tmp_path / "out"),
                          "--index-dir", str(missing)])
    assert code != 0 and f"--index-dir {missing} does not exist" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
