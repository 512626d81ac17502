"""ReadWaybackPages end to end against the local fake Wayback server (127.0.0.1 only)."""


import apache_beam as beam
import pytest
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.testing.util import assert_that, equal_to

from pipelines.cli.spec_parser import build_parser, options_from
from tests.conftest import TEST_RUNNER
from tests.fakes.object_store import use_bucket
from tests.fakes.wayback_server import FakeWayback
from transforms.clients.bounded_http import RequestLimits
from transforms.clients.wayback import WaybackPolicy
from transforms.core.accounting import DEAD_LETTER, TALLY
from transforms.core.errors import UsageError
from transforms.core.request_options import request_limits_of
from transforms.nlquad.spec import SPEC as NLQUAD
from transforms.sources.wayback import ReadWaybackPages

PAGE = b"<html><body><div class='story-body__inner'><p>Text.</p></div></body></html>"
CAPTURES = [
    ("http://www.bbc.co.uk/news/health-39000001", "20170301120000", PAGE),
    # same article on bbc.com, later: collapses onto the earlier capture
    ("https://www.bbc.com/news/health-39000001", "20180301120000", PAGE + b" "),
    ("https://www.bbc.co.uk/news/amp/world-39000002", "20170401120000", PAGE + b"  "),
    ("https://www.bbc.co.uk/news/world-39000002", "20170501120000", PAGE + b"   "),
    ("https://www.bbc.co.uk/news/av/world-39000003", "20170101000000", b"video"),
    ("https://www.bbc.co.uk/news/world", "20170101000000", b"index"),
    ("https://www.bbc.co.uk/news/uk-39000005", "20150601000000", PAGE),  # outside years
]


def _source(server, cache_dir):
    return ReadWaybackPages(
        base_url=server.base_url, from_year=2016, to_year=2020, policy=WaybackPolicy().override(
            cache_dir=str(cache_dir), fetch_workers=2, fetches_per_minute=0, cdx_per_minute=0,
            rate_limit_pause=0.01, timeout=(2.0, 2.0), max_retries=3, backoff_base=0.01))


def _run(server, cache_dir, first_run):
    with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as p:
        pages, results = p | _source(server, cache_dir)
        assert_that(pages | beam.Map(lambda pg: (pg.url, pg.timestamp)), equal_to([
            ("http://www.bbc.co.uk/news/health-39000001", "20170301120000"),
            ("https://www.bbc.co.uk/news/world-39000002", "20170501120000"),
        ]), label="pages")
        tallies = ([r[TALLY] for r in results] | beam.Flatten()
                   | beam.CombinePerKey(sum) | beam.Filter(lambda kv: kv[0] not in (
                       "fetch.fetched", "fetch.cache_hits", "fetch.retries",
                       "fetch.http_requests")))
        network = [("cdx.http_requests", 2), ("fetch.http_rate_limited", 1),
                   ("fetch.retry_waits", 2)] if first_run else []
        assert_that(tallies, equal_to([
            ("cdx.rows_read", 7), ("cdx.captures_listed", 7), ("cdx.skipped.video_page", 1),
            ("cdx.skipped.index_page", 1), ("cdx.duplicate_article_urls", 2),
            ("fetch.failed.http_404", 1), ("input.pages", 2), *network,
        ]), label="tallies")
        dead = [r[DEAD_LETTER] for r in results] | "FlattenDead" >> beam.Flatten()
        assert_that(dead | beam.Map(lambda d: (d["stage"], d["url"], d["kind"])), equal_to([
            ("fetch", "https://www.bbc.co.uk/news/uk-39000004", "http_404")]), label="dead")


def test_enumerates_articles_once_and_survives_errors(tmp_path):
    missing = [("https://www.bbc.co.uk/news/uk-39000004", "20170601000000", PAGE)]
    with FakeWayback(CAPTURES, missing=missing) as server:
        server.fail("id_/http://www.bbc.co.uk/news/health-39000001", [503, 429])
        _run(server, tmp_path, first_run=True)
        first_fetches = len(server.fetch_requests)
        assert first_fetches == 5  # 2 pages + 503 + 429 retries + the 404
        _run(server, tmp_path, first_run=False)  # a re-run is served from the on-disk cache
        assert len(server.fetch_requests) == first_fetches + 1  # only the 404 is asked again


def test_remote_cache_dir_goes_through_beam_filesystems(tmp_path):
    use_bucket(tmp_path / "bucket")
    missing = [("https://www.bbc.co.uk/news/uk-39000004", "20170601000000", PAGE)]
    with FakeWayback(CAPTURES, missing=missing) as server:
        server.fail("id_/http://www.bbc.co.uk/news/health-39000001", [503, 429])
        _run(server, "fakegs://wayback", first_run=True)
        first_fetches = len(server.fetch_requests)
        _run(server, "fakegs://wayback", first_run=False)  # served from the object store
        assert len(server.fetch_requests) == first_fetches + 1  # only the 404 is asked again
    assert list((tmp_path / "bucket" / "wayback" / "fetch").rglob("*.body"))


def test_max_captures_counts_what_it_leaves_out(tmp_path):
    with FakeWayback(CAPTURES) as server:
        source = _source(server, tmp_path)
        source.max_captures = 1
        with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as p:
            pages, results = p | source
            assert_that(pages | beam.combiners.Count.Globally(), equal_to([1]), label="pages")
            beyond = ([r[TALLY] for r in results] | beam.Flatten()
                      | beam.Filter(lambda kv: kv[0] == "cdx.skipped.beyond_max_captures"))
            assert_that(beyond, equal_to([("cdx.skipped.beyond_max_captures", 1)]),
                        label="beyond")


def _wayback_limits(argv):
    """The --wayback-* limits as build_nlquad parses them."""
    args, _ = build_parser(NLQUAD).parse_known_args(argv)
    return request_limits_of(options_from(NLQUAD, args), "wayback")


def _limited_source(server, cache_dir, argv):
    limits = _wayback_limits(argv)
    return ReadWaybackPages(
        base_url=server.base_url, from_year=2016, to_year=2020, policy=WaybackPolicy(
            cache_dir=str(cache_dir), fetch_workers=1, fetches_per_minute=0, cdx_per_minute=0,
            rate_limit_pause=0.01, backoff_base=0.01, limits=limits))


def test_hostile_capture_is_dead_lettered_with_its_kind(tmp_path):
    captures = CAPTURES[:1] + CAPTURES[3:4]
    with FakeWayback(captures) as server:
        server.bomb_bytes = 4 << 20
        server.fail("id_/https://www.bbc.co.uk/news/world-39000002", ["gzip_bomb"] * 3)
        server.fail("id_/http://www.bbc.co.uk/news/health-39000001", ["redirect_loop"])
        source = _limited_source(server, tmp_path, [
            "--wayback-max-decoded-mib", "1", "--wayback-max-redirects", "2",
            "--wayback-deadline", "3", "--wayback-read-timeout", "2"])
        with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as p:
            pages, results = p | source
            assert_that(pages | beam.combiners.Count.Globally(), equal_to([0]), label="pages")
            tallies = ([r[TALLY] for r in results] | beam.Flatten()
                       | beam.CombinePerKey(sum)
                       | beam.Filter(lambda kv: kv[0].startswith("fetch.")))
            assert_that(tallies, equal_to([
                ("fetch.failed.body_too_large", 1), ("fetch.failed.too_many_redirects", 1),
                ("fetch.http_requests", 4)]), label="tallies")
            dead = [r[DEAD_LETTER] for r in results] | "FlattenDead" >> beam.Flatten()
            assert_that(dead | beam.Map(lambda d: (d["stage"], d["url"], d["kind"])), equal_to([
                ("fetch", "https://www.bbc.co.uk/news/world-39000002", "body_too_large"),
                ("fetch", "http://www.bbc.co.uk/news/health-39000001", "too_many_redirects"),
            ]), label="dead")
    assert not list(tmp_path.rglob("*.body"))


def test_failed_cdx_listing_is_dead_lettered_with_its_kind(tmp_path):
    with FakeWayback(CAPTURES) as server:
        server.fail("/cdx/", ["endless"] * 4)
        source = _limited_source(server, tmp_path, ["--wayback-max-body-mib", "0.25"])
        with beam.Pipeline(options=PipelineOptions([TEST_RUNNER])) as p:
            _, results = p | source
            dead = [r[DEAD_LETTER] for r in results] | "FlattenDead" >> beam.Flatten()
            assert_that(dead | beam.Map(lambda d: (d["stage"], d["kind"])), equal_to([
                ("cdx", "body_too_large"), ("cdx", "body_too_large")]), label="dead")
            failed = ([r[TALLY] for r in results] | beam.Flatten() | beam.CombinePerKey(sum)
                      | beam.Filter(lambda kv: kv[0] == "cdx.failed.body_too_large"))
            assert_that(failed, equal_to([("cdx.failed.body_too_large", 2)]), label="failed")


def test_limit_options_map_to_source_arguments():
    defaults = _wayback_limits([])
    assert defaults == RequestLimits(timeout=(10.0, 60.0), deadline=300.0, max_retries=5,
                                     max_redirects=5, max_body_bytes=64 << 20,
                                     max_decoded_bytes=256 << 20)
    source = ReadWaybackPages("http://127.0.0.1:9", 2016, 2016,
                              WaybackPolicy(cache_dir="", limits=defaults))
    assert source.fetch_policy.limits.max_body_bytes == 64 << 20
    assert source.cdx_policy.limits.deadline == 300.0
    with pytest.raises(UsageError, match="--wayback-deadline"):
        _wayback_limits(["--wayback-deadline", "0"])
