"""transforms.clients.search_backends against the in-process fake wiki / web search server."""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from filters.nq.search_hits import SearchHit, top_wikipedia_hit, wikipedia_title
from tests.fakes.wiki_server import FakePage, FakeWiki
from transforms.clients.http_json import HttpError, HttpResult
from transforms.clients.search_backends import (
    BING_WEB_MAPPING,
    GOOGLE_CSE_MAPPING,
    MediaWikiSearch,
    ResultMapping,
    SearchBackend,
    SearchConfigError,
    WebSearch,
    clean_snippet,
    json_path,
    search_backend_from_options,
)

PAGES = [
    FakePage("Trade winds", "The trade winds are winds that blow toward the equator.", 11, 1),
    FakePage("Monsoon", "A monsoon is a seasonal change in winds and trade routes.", 12, 2),
    FakePage("Westerlies", "The westerlies are prevailing winds in the middle latitudes.", 13, 3),
    FakePage("Wind", "Wind is the flow of gases; winds drive trade ships.", 14, 4),
    FakePage("Sea breeze", "A sea breeze is a wind from the sea.", 15, 5),
    FakePage("Polar easterlies", "The polar easterlies are dry winds.", 16, 6),
    FakePage("Jet stream", "Jet streams are fast winds in the atmosphere.", 17, 7),
    FakePage("Five Nights at Freddy's", 'A horror game; "Freddy" & friends.', 18, 8),
    FakePage("The Proud Family (soundtrack)", "Soundtrack of the Proud Family.", 19, 9),
]
JA_PAGES = [
    FakePage("東京タワー", "東京タワーは東京都港区芝公園にある総合電波塔である。", 101, 1),
    FakePage("東京スカイツリー", "東京スカイツリーは墨田区にある電波塔である。", 102, 2),
]
WEB_QUERY = "what purpose did seasonal monsoon winds have on trade"
WEB_RESULTS = [
    ("https://www.britannica.com/science/monsoon", "Monsoon | Britannica", "Monsoon,  a major\n"
     "wind system"),
    ("https://en.wikipedia.org/wiki/Talk:Monsoon", "Talk:Monsoon", "discussion"),
    ("https://en.wikipedia.org/wiki/Trade_winds", "Trade winds - Wikipedia", "The trade winds"),
    ("https://en.wikipedia.org/wiki/Monsoon", "Monsoon - Wikipedia", "A monsoon is"),
    ("https://example.org/a", "A", "a"),
    ("https://example.org/b", "B", "b"),
    ("https://example.org/c", "C", "c"),
]


@pytest.fixture
def fake() -> Iterator[FakeWiki]:
    with FakeWiki(PAGES, web_results={WEB_QUERY: WEB_RESULTS}, api_key="k-123") as server:
        yield server


@pytest.fixture
def search_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEARCH_API_KEY", "k-123")
    monkeypatch.setenv("SEARCH_ENGINE_ID", "cx-1")


@pytest.fixture
def sleeps() -> list[float]:
    return []


def http_options(sleeps: list[float], **overrides: object) -> dict:
    options: dict = {"per_minute": 0, "max_retries": 2, "rate_limit_pause": 30.0,
                     "timeout": (2.0, 2.0), "sleep": sleeps.append}
    options.update(overrides)
    return options


def query_of(path: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(path).query).items()}


# MediaWiki search -----------------------------------------------------------------------------


def test_mediawiki_returns_top5_in_rank_order(fake: FakeWiki, sleeps: list[float]) -> None:
    backend = MediaWikiSearch(api_url=fake.api_url, **http_options(sleeps))
    hits = backend.search("trade winds")
    assert [hit.rank for hit in hits] == [1, 2, 3, 4, 5]
    assert [hit.title for hit in hits] == fake_order(fake, "trade winds")[:5]
    assert hits[0].title == "Trade winds"
    assert hits[0].url == "https://en.wikipedia.org/wiki/Trade_winds"
    assert isinstance(backend, SearchBackend)


def fake_order(fake: FakeWiki, query: str) -> list[str]:
    return [page.title for page in fake.ranked(query, 10)]


def test_mediawiki_sends_documented_parameters(fake: FakeWiki, sleeps: list[float]) -> None:
    MediaWikiSearch(api_url=fake.api_url, **http_options(sleeps)).search("trade winds")
    assert query_of(fake.requests[0]) == {
        "action": "query", "list": "search", "srsearch": "trade winds", "srlimit": "5",
        "srprop": "snippet", "format": "json", "formatversion": "2", "maxlag": "5", "utf8": "1",
    }
    assert fake.user_agents[0].startswith("qa-dataset-toolkit/")


def test_mediawiki_k_limits_results(fake: FakeWiki, sleeps: list[float]) -> None:
    hits = MediaWikiSearch(api_url=fake.api_url, **http_options(sleeps)).search("winds", k=2)
    assert len(hits) == 2 and query_of(fake.requests[0])["srlimit"] == "2"


def test_mediawiki_snippets_are_cleaned(fake: FakeWiki, sleeps: list[float]) -> None:
    (hit,) = MediaWikiSearch(api_url=fake.api_url, **http_options(sleeps)).search("freddy horror")
    assert hit.snippet == 'A horror game; "Freddy" & friends.'
    assert hit.url == "https://en.wikipedia.org/wiki/Five_Nights_at_Freddy%27s"
    assert wikipedia_title(hit.url) == "Five_Nights_at_Freddy's"


def test_clean_snippet() -> None:
    raw = ('The <span class="searchmatch">trade</span> <span class="searchmatch">winds'
           '</span> &quot;blow&quot; &amp;\n  more &lt;b&gt;')
    assert clean_snippet(raw) == 'The trade winds "blow" & more <b>'


def test_mediawiki_urls_keep_parentheses(fake: FakeWiki, sleeps: list[float]) -> None:
    (hit,) = MediaWikiSearch(api_url=fake.api_url, **http_options(sleeps)).search("soundtrack")
    assert hit.url == "https://en.wikipedia.org/wiki/The_Proud_Family_(soundtrack)"


def test_mediawiki_japanese(sleeps: list[float]) -> None:
    with FakeWiki(JA_PAGES, lang="ja") as fake:
        backend = MediaWikiSearch(lang="ja", api_url=fake.api_url, **http_options(sleeps))
        hits = backend.search("東京タワー 高さ")
        assert "srsearch=%E6%9D%B1%E4%BA%AC" in fake.requests[0]
    assert hits[0].title == "東京タワー"
    assert hits[0].url == "https://ja.wikipedia.org/wiki/%E6%9D%B1%E4%BA%AC%E3%82%BF%E3%83%AF%E3%83%BC"
    assert wikipedia_title(hits[0].url, "ja") == "東京タワー"
    assert top_wikipedia_hit(hits, "ja") == hits[0]
    assert top_wikipedia_hit(hits, "en") is None


def test_mediawiki_default_api_url_uses_language() -> None:
    backend = MediaWikiSearch(lang="ja", user_agent="t", per_minute=0)
    assert backend.api_url == "https://ja.wikipedia.org/w/api.php"


def test_mediawiki_maxlag_pause_then_success(fake: FakeWiki, sleeps: list[float]) -> None:
    fake.fail("/w/api.php", ["maxlag", 429])
    backend = MediaWikiSearch(api_url=fake.api_url, **http_options(sleeps))
    assert backend.search("trade winds")[0].title == "Trade winds"
    assert sleeps == [30.0, 30.0]
    assert backend.stats["rate_limited"] == 2


def test_mediawiki_503_then_success(fake: FakeWiki, sleeps: list[float]) -> None:
    fake.fail("/w/api.php", [503])
    backend = MediaWikiSearch(api_url=fake.api_url, **http_options(sleeps))
    assert backend.search("monsoon")[0].title == "Monsoon"
    assert backend.stats["retries"] == 1


def test_mediawiki_rerun_hits_cache(fake: FakeWiki, sleeps: list[float], tmp_path: Path) -> None:
    first = MediaWikiSearch(api_url=fake.api_url, **http_options(sleeps, cache_dir=tmp_path))
    hits = first.search("trade winds")
    second = MediaWikiSearch(api_url=fake.api_url, **http_options(sleeps, cache_dir=tmp_path))
    assert second.search("trade winds") == hits
    assert len(fake.requests) == 1 and second.stats["cache_hits"] == 1


def test_mediawiki_errors(fake: FakeWiki, sleeps: list[float]) -> None:
    forbidden = MediaWikiSearch(api_url=f"{fake.base_url}/customsearch/v1", **http_options(sleeps))
    with pytest.raises(HttpError) as info:
        forbidden.search("x")
    assert info.value.kind == "http_403"
    not_json = MediaWikiSearch(api_url=f"{fake.rest_url}/page/html/Wind", **http_options(sleeps))
    with pytest.raises(HttpError) as info:
        not_json.search("x")
    assert info.value.kind == "bad_response"


# web search -----------------------------------------------------------------------------------


def test_web_search_google_format_and_top_wikipedia_hit(
    fake: FakeWiki, search_env: None, sleeps: list[float]
) -> None:
    backend = WebSearch(f"{fake.base_url}/customsearch/v1", **http_options(sleeps))
    hits = backend.search(WEB_QUERY)
    assert [hit.url for hit in hits] == [url for url, _, _ in WEB_RESULTS[:5]]
    assert [hit.rank for hit in hits] == [1, 2, 3, 4, 5]
    assert hits[0].snippet == "Monsoon, a major wind system"
    chosen = top_wikipedia_hit(hits)
    assert chosen is not None and chosen.rank == 3 and chosen.title == "Trade winds - Wikipedia"
    assert query_of(fake.requests[0]) == {"q": WEB_QUERY, "num": "5", "cx": "cx-1", "key": "k-123"}


def test_web_search_keeps_top_k_when_engine_returns_more(
    fake: FakeWiki, search_env: None, sleeps: list[float]
) -> None:
    mapping = {"results": "items", "url": "link", "title": "title", "snippet": "snippet",
               "count_param": None, "engine_id_param": "cx"}
    backend = WebSearch(f"{fake.base_url}/customsearch/v1", mapping=mapping,
                        **http_options(sleeps))
    hits = backend.search(WEB_QUERY, k=5)
    assert len(hits) == 5 and "num" not in query_of(fake.requests[0])
    assert hits[-1].url == "https://example.org/a"


def test_web_search_no_items(fake: FakeWiki, search_env: None, sleeps: list[float]) -> None:
    backend = WebSearch(f"{fake.base_url}/customsearch/v1", **http_options(sleeps))
    assert backend.search("zzzz qqqq") == []


def test_web_search_missing_key_names_the_variable(
    monkeypatch: pytest.MonkeyPatch, fake: FakeWiki
) -> None:
    monkeypatch.delenv("SEARCH_API_KEY", raising=False)
    monkeypatch.setenv("SEARCH_ENGINE_ID", "cx-1")
    with pytest.raises(SearchConfigError, match="SEARCH_API_KEY"):
        WebSearch(f"{fake.base_url}/customsearch/v1")
    monkeypatch.setenv("MY_KEY", "k-123")
    monkeypatch.delenv("SEARCH_ENGINE_ID")
    with pytest.raises(SearchConfigError, match="SEARCH_ENGINE_ID"):
        WebSearch(f"{fake.base_url}/customsearch/v1", api_key_env="MY_KEY")
    assert WebSearch(api_key_env="MY_KEY", engine_id="cx-2").engine_id == "cx-2"
    assert fake.requests == []


def test_web_search_wrong_key_is_permanent_and_redacted(
    fake: FakeWiki, monkeypatch: pytest.MonkeyPatch, sleeps: list[float], tmp_path: Path
) -> None:
    monkeypatch.setenv("SEARCH_API_KEY", "wrong-secret")
    monkeypatch.setenv("SEARCH_ENGINE_ID", "cx-1")
    backend = WebSearch(f"{fake.base_url}/customsearch/v1",
                        **http_options(sleeps, cache_dir=tmp_path))
    with pytest.raises(HttpError) as info:
        backend.search(WEB_QUERY)
    assert info.value.kind == "http_403" and len(fake.requests) == 1
    assert "wrong-secret" not in str(info.value)


def test_web_search_cache_never_holds_the_key(
    fake: FakeWiki, search_env: None, sleeps: list[float], tmp_path: Path
) -> None:
    first = WebSearch(f"{fake.base_url}/customsearch/v1",
                      **http_options(sleeps, cache_dir=tmp_path))
    hits = first.search(WEB_QUERY)
    second = WebSearch(f"{fake.base_url}/customsearch/v1",
                       **http_options(sleeps, cache_dir=tmp_path))
    assert second.search(WEB_QUERY) == hits and len(fake.requests) == 1
    for path in tmp_path.rglob("*"):
        assert "k-123" not in str(path)
        assert not path.is_file() or b"k-123" not in path.read_bytes()


def test_web_search_bing_mapping_uses_header_key(
    fake: FakeWiki, monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    monkeypatch.setenv("BING_KEY", "k-123")
    monkeypatch.delenv("SEARCH_ENGINE_ID", raising=False)
    backend = WebSearch(f"{fake.base_url}/v7.0/search", api_key_env="BING_KEY", mapping="bing",
                        params={"mkt": "en-US"}, **http_options(sleeps))
    hits = backend.search("westerlies")
    assert hits[0] == SearchHit("https://en.wikipedia.org/wiki/Westerlies", "Westerlies",
                                hits[0].snippet, 1)
    assert query_of(fake.requests[0]) == {"mkt": "en-US", "q": "westerlies", "count": "5"}
    assert backend.mapping is BING_WEB_MAPPING


def test_result_mapping_from_values() -> None:
    assert ResultMapping.from_value("google_cse") is GOOGLE_CSE_MAPPING
    as_json = json.dumps({"results": "data.hits", "url": "u", "title": "t", "snippet": "s.text"})
    mapping = ResultMapping.from_value(as_json)
    assert (mapping.results, mapping.snippet, mapping.key_param) == ("data.hits", "s.text", "key")
    with pytest.raises(SearchConfigError, match="bogus"):
        ResultMapping.from_value({"results": "r", "url": "u", "title": "t", "snippet": "s",
                                  "bogus": 1})


def test_json_path() -> None:
    data = {"webPages": {"value": [1, 2]}, "x": 3}
    assert json_path(data, "webPages.value") == [1, 2]
    assert json_path(data, "webPages.missing") is None and json_path(data, "x.y") is None


def test_web_search_nested_mapping_skips_results_without_url(
    monkeypatch: pytest.MonkeyPatch, sleeps: list[float]
) -> None:
    monkeypatch.setenv("SEARCH_API_KEY", "k")
    mapping = ResultMapping(results="data.hits", url="doc.href", title="doc.name",
                            snippet="text", count_param=None)
    backend = WebSearch("http://unused", mapping=mapping, **http_options(sleeps))
    body = {"data": {"hits": [{"doc": {"name": "no url"}},
                              {"doc": {"href": "https://en.wikipedia.org/wiki/Wind",
                                       "name": "Wind"}, "text": "Wind is"}]}}
    backend.http.get = lambda *a, **k: HttpResult(  # type: ignore[method-assign]
        200, {}, json.dumps(body).encode(), False)
    assert backend.search("wind") == [
        SearchHit("https://en.wikipedia.org/wiki/Wind", "Wind", "Wind is", 2)]


# factory --------------------------------------------------------------------------------------


def test_factory_builds_mediawiki_and_web(
    fake: FakeWiki, search_env: None, sleeps: list[float]
) -> None:
    backend = search_backend_from_options(
        "mediawiki", "ja", api_url=fake.api_url, cache_dir=None, index_dir="/x",
        **http_options(sleeps))
    assert isinstance(backend, MediaWikiSearch) and backend.lang == "ja"
    web = search_backend_from_options("web", "en", endpoint=f"{fake.base_url}/customsearch/v1",
                                      **http_options(sleeps))
    assert isinstance(web, WebSearch) and web.search(WEB_QUERY)[0].rank == 1
    web.close()
    backend.close()


def test_factory_imports_local_backend_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("transforms.clients.local_search")

    class LocalSearch:
        def __init__(self, index_dir: str) -> None:
            self.index_dir = index_dir

    module.LocalSearch = LocalSearch  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "transforms.clients.local_search", module)
    backend = search_backend_from_options("local", "en", index_dir="/idx", per_minute=5)
    assert isinstance(backend, LocalSearch) and backend.index_dir == "/idx"
    with pytest.raises(SearchConfigError, match="index_dir"):
        search_backend_from_options("local")


def test_factory_rejects_unknown_backend() -> None:
    with pytest.raises(SearchConfigError, match="mediawiki"):
        search_backend_from_options("bing")
