"""Tests for transforms.clients.wikipedia_pages against the in-process fake Wikimedia REST API."""

from __future__ import annotations

import gzip
import json
import pickle
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.fakes.wiki_server import FakePage, FakeWiki
from transforms.clients.http_json import HttpError
from transforms.clients.wikipedia_pages import (
    PageError,
    WikiPage,
    WikipediaPageFetcher,
    article_url,
    canonical_title,
    display_title,
    nq_document_url,
    quote_title,
    redirect_target,
    revision_from_etag,
    revision_from_html,
    title_key,
)

PAGES = [
    FakePage("Trade winds", "The trade winds are the prevailing winds.\n\nMore text.", 817251427,
             1),
    FakePage("High School Musical 2", "A 2007 television film.", 833368070, 2, etag=False),
    FakePage("AC/DC", "An Australian rock band.", 555, 3),
]
PARSOID_HEAD = (
    '<!DOCTYPE html><html prefix="dc: http://purl.org/dc/terms/ mw: http://mediawiki.org/rdf/" '
    'about="https://en.wikipedia.org/wiki/Special:Redirect/revision/817251427"><head>'
    '<meta property="mw:pageId" content="163036"/>'
    '<link rel="dc:isVersionOf" href="//en.wikipedia.org/wiki/Trade_winds"/></head>'
)


@pytest.fixture
def fake() -> Iterator[FakeWiki]:
    with FakeWiki(PAGES, redirects={"Tradewinds": "Trade winds"},
                  redirect_pages={"Trade wind": "Trade winds"}) as server:
        yield server


@pytest.fixture
def sleeps() -> list[float]:
    return []


def fetcher(fake: FakeWiki, sleeps: list[float], **overrides: object) -> WikipediaPageFetcher:
    options: dict = {"per_minute": 0, "max_retries": 2, "rate_limit_pause": 30.0,
                     "timeout": (2.0, 2.0), "sleep": sleeps.append}
    options.update(overrides)
    return WikipediaPageFetcher(rest_url=fake.rest_url, **options)


# URLs and titles ------------------------------------------------------------------------------


def test_nq_document_url_exact_form() -> None:
    assert nq_document_url("en", "Trade winds", 817251427) == (
        "https://en.wikipedia.org//w/index.php?title=Trade_winds&amp;oldid=817251427")
    assert nq_document_url("en", "Five Nights at Freddy's", 827108665) == (
        "https://en.wikipedia.org//w/index.php?title=Five_Nights_at_Freddy%27s&amp;oldid=827108665")
    assert nq_document_url("ja", "東京タワー", 1) == (
        "https://ja.wikipedia.org//w/index.php?title="
        "%E6%9D%B1%E4%BA%AC%E3%82%BF%E3%83%AF%E3%83%BC&amp;oldid=1")


@pytest.mark.realdata
def test_nq_document_url_matches_nq_dev(shared_data: Path) -> None:
    path = shared_data / "nq" / "nq_dev_original_first3.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    for row in rows:
        revision = int(parse_qs(urlsplit(row["document_url"]).query)["amp;oldid"][0])
        assert nq_document_url("en", row["document_title"], revision) == row["document_url"]


def test_quote_title_follows_mediawiki() -> None:
    assert quote_title("The Proud Family (soundtrack)") == "The_Proud_Family_(soundtrack)"
    assert quote_title("AC/DC") == "AC/DC"
    assert quote_title("Question?  & answer") == "Question%3F__%26_answer"
    assert article_url("en", "Trade winds") == "https://en.wikipedia.org/wiki/Trade_winds"


def test_title_forms() -> None:
    assert title_key("  trade  winds ") == "Trade_winds"
    assert display_title("trade_winds") == "Trade winds"
    assert title_key("東京タワー") == "東京タワー"
    assert title_key("ßeta") == "ßeta"  # "ß".upper() is "SS": left alone


# revision and redirect markers ----------------------------------------------------------------


def test_revision_from_etag_forms() -> None:
    assert revision_from_etag('W/"817251427/1b2f4e10-f4e6-11e7-bb0f-2b24aa3c9e9b"') == 817251427
    assert revision_from_etag('"817251427/1b2f4e10"') == 817251427
    assert revision_from_etag('"817251427"') == 817251427
    assert revision_from_etag("") is None and revision_from_etag('"abc/1"') is None


def test_revision_and_title_from_parsoid_html() -> None:
    assert revision_from_html(PARSOID_HEAD) == 817251427
    assert canonical_title(PARSOID_HEAD) == "Trade winds"
    assert revision_from_html("<html><head></head></html>") is None
    assert redirect_target(PARSOID_HEAD) is None
    redirect = '<link href="./Trade_winds#History" rel="mw:PageProp/redirect"/>'
    assert redirect_target(redirect) == "Trade winds"


# fetching -------------------------------------------------------------------------------------


def test_fetch_reads_revision_from_etag(fake: FakeWiki, sleeps: list[float]) -> None:
    page = fetcher(fake, sleeps).fetch("trade winds")
    assert isinstance(page, WikiPage)
    assert (page.title, page.lang, page.revision) == ("Trade winds", "en", 817251427)
    assert page.url == "https://en.wikipedia.org//w/index.php?title=Trade_winds&amp;oldid=817251427"
    assert "<p>The trade winds are the prevailing winds.</p>" in page.html
    assert fake.requests == ["/api/rest_v1/page/html/Trade_winds?redirect=false"]


def test_fetch_reads_revision_from_html_without_etag(fake: FakeWiki, sleeps: list[float]) -> None:
    page = fetcher(fake, sleeps).fetch("High School Musical 2")
    assert page.revision == 833368070
    assert page.url.endswith("title=High_School_Musical_2&amp;oldid=833368070")


def test_fetch_title_with_slash(fake: FakeWiki, sleeps: list[float]) -> None:
    page = fetcher(fake, sleeps).fetch("AC/DC")
    assert page.revision == 555 and page.title == "AC/DC"
    assert fake.requests == ["/api/rest_v1/page/html/AC%2FDC?redirect=false"]


def test_fetch_pinned_revision(fake: FakeWiki, sleeps: list[float]) -> None:
    assert fetcher(fake, sleeps).fetch("Trade winds", revision=817251427).revision == 817251427
    assert fake.requests[-1] == "/api/rest_v1/page/html/Trade_winds/817251427?redirect=false"
    with pytest.raises(PageError) as info:
        fetcher(fake, sleeps).fetch("Trade winds", revision=1)
    assert info.value.kind == "page_missing"


def test_missing_page(fake: FakeWiki, sleeps: list[float], tmp_path: Path) -> None:
    with pytest.raises(PageError) as info:
        fetcher(fake, sleeps, cache_dir=tmp_path).fetch("No such page")
    assert (info.value.kind, info.value.title) == ("page_missing", "No such page")
    assert isinstance(info.value.__cause__, HttpError)
    with pytest.raises(PageError):
        fetcher(fake, sleeps, cache_dir=tmp_path).fetch("No such page")
    assert len(fake.requests) == 1 and sleeps == []


def test_http_redirect_is_reported(fake: FakeWiki, sleeps: list[float]) -> None:
    with pytest.raises(PageError) as info:
        fetcher(fake, sleeps).fetch("Tradewinds")
    assert (info.value.kind, info.value.target) == ("page_redirected", "Trade winds")
    assert len(fake.requests) == 1  # not followed


def test_parsoid_redirect_page_is_reported(fake: FakeWiki, sleeps: list[float]) -> None:
    with pytest.raises(PageError) as info:
        fetcher(fake, sleeps).fetch("Trade wind")
    assert (info.value.kind, info.value.target) == ("page_redirected", "Trade winds")


def test_japanese_page(sleeps: list[float]) -> None:
    pages = [FakePage("東京タワー", "東京タワーは総合電波塔である。", 98765, 1)]
    with FakeWiki(pages, lang="ja") as fake:
        page = WikipediaPageFetcher("ja", fake.rest_url, per_minute=0).fetch("東京タワー")
        assert fake.requests == [
            "/api/rest_v1/page/html/%E6%9D%B1%E4%BA%AC%E3%82%BF%E3%83%AF%E3%83%BC?redirect=false"]
    assert (page.title, page.lang, page.revision) == ("東京タワー", "ja", 98765)
    assert page.url == nq_document_url("ja", "東京タワー", 98765)
    assert page.url.startswith("https://ja.wikipedia.org//w/index.php?title=%E6%9D%B1")


def test_default_rest_url_uses_language() -> None:
    assert WikipediaPageFetcher("ja", user_agent="t").rest_url == (
        "https://ja.wikipedia.org/api/rest_v1")


def test_fetch_retries_and_pauses(fake: FakeWiki, sleeps: list[float]) -> None:
    fake.fail("/page/html/", [(429, {"Retry-After": "0"}), 503])
    client = fetcher(fake, sleeps)
    assert client.fetch("Trade winds").revision == 817251427
    assert sleeps[0] == 30.0 and len(sleeps) == 2
    assert client.stats["rate_limited"] == 1 and client.stats["retries"] == 2


def test_other_errors_are_http_errors(fake: FakeWiki, sleeps: list[float]) -> None:
    fake.fail("/page/html/", [403])
    with pytest.raises(HttpError) as info:
        fetcher(fake, sleeps).fetch("Trade winds")
    assert info.value.kind == "http_403"


def test_rerun_is_served_from_cache(fake: FakeWiki, sleeps: list[float], tmp_path: Path) -> None:
    first = fetcher(fake, sleeps, cache_dir=tmp_path).fetch("Trade winds")
    again = fetcher(fake, sleeps, cache_dir=tmp_path)
    assert again.fetch("Trade winds") == first
    assert len(fake.requests) == 1 and again.stats["cache_hits"] == 1


def test_page_without_revision(sleeps: list[float]) -> None:
    with FakeWiki([FakePage("Bare", "No revision markers.", 7, etag=False, about=False)]) as fake:
        client = fetcher(fake, sleeps)
        with pytest.raises(PageError) as info:
            client.fetch("Bare")
        assert info.value.kind == "no_revision"
        with pytest.raises(ValueError):
            client.fetch("  ")


def test_page_error_pickles() -> None:
    err = pickle.loads(pickle.dumps(PageError("page_redirected", "Tradewinds", "Trade winds")))
    assert (err.kind, err.title, err.target) == ("page_redirected", "Tradewinds", "Trade winds")
