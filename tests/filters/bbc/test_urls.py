import pytest

from filters.bbc.urls import classify_bbc_url, is_article_url


@pytest.mark.parametrize(
    ("url", "kind", "key"),
    [
        ("http://www.bbc.co.uk/news/world-us-canada-52241221", "article", "news/52241221"),
        ("https://www.bbc.com/news/world-us-canada-52241221?ocid=x#top", "article",
         "news/52241221"),
        ("https://bbc.co.uk:443/news/amp/health-54622059", "article", "news/54622059"),
        ("https://www.bbc.co.uk/news/articles/cden3j9d1r7o", "article",
         "news/articles/cden3j9d1r7o"),
        ("https://www.bbc.co.uk/news/uk-politics-4382032/", "article", "news/4382032"),
        ("https://www.bbc.co.uk/news/av/uk-england-dorset-61896381", "video_page", ""),
        ("https://www.bbc.co.uk/news/live/world-europe-60000001", "live_page", ""),
        ("https://www.bbc.co.uk/news/world", "index_page", ""),
        ("https://www.bbc.co.uk/news", "index_page", ""),
        ("https://www.bbc.co.uk/news/topics/cyz0z8w0ydwt/coronavirus", "index_page", ""),
        ("https://www.bbc.co.uk/sport/football/scores-fixtures", "not_article_url", ""),
        ("https://www.bbc.com/mundo/noticias-54622059", "not_article_url", ""),
        ("https://www.bbc.co.uk/news/resources/idt-sh/long_read", "not_article_url", ""),
        ("https://example.com/news/world-52241221", "not_article_url", ""),
        ("https://www.bbc.co.uk/news/world-123", "not_article_url", ""),
    ],
)
def test_classification(url, kind, key):
    result = classify_bbc_url(url)
    assert result.kind == kind
    assert result.asset_key == key
    assert is_article_url(url) == (kind == "article")


def test_variants_share_key_and_canonical_url():
    variants = [
        "http://www.bbc.co.uk/news/health-54622059",
        "https://www.bbc.com/news/health-54622059?ocid=socialflow",
        "https://www.bbc.co.uk/news/amp/health-54622059",
    ]
    classes = [classify_bbc_url(u) for u in variants]
    assert {c.asset_key for c in classes} == {"news/54622059"}
    assert {c.canonical_url for c in classes} == {"https://www.bbc.co.uk/news/health-54622059"}
    assert [c.is_amp for c in classes] == [False, False, True]
