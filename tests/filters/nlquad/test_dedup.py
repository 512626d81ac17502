from filters.nlquad.dedup import capture_preference, content_preference


def _best(captures, published):
    return min(captures, key=lambda c: capture_preference(published, *c))


def test_capture_nearest_after_publication_wins():
    published = "2017-03-16T21:07:02Z"
    captures = [
        ("20190101000000", False, "https://www.bbc.com/news/x-1?ocid=a"),
        ("20170316220000", False, "http://www.bbc.co.uk/news/x-1"),
        ("20170316210000", False, "http://www.bbc.co.uk/news/x-1#early"),
    ]
    assert _best(captures, published)[0] == "20170316220000"


def test_amp_loses_to_regular_capture():
    captures = [("20170316220000", True, "amp"), ("20180101000000", False, "regular")]
    assert _best(captures, "2017-03-16T21:07:02Z")[2] == "regular"


def test_unknown_publication_prefers_earliest_and_is_deterministic():
    captures = [("20180101000000", False, "b"), ("20170101000000", False, "a")]
    assert _best(captures, "")[2] == "a"
    assert _best(list(reversed(captures)), "")[2] == "a"


def test_content_duplicates_keep_earliest_publication():
    assert min([("2019-01-01T00:00:00Z", "https://z"), ("2018-01-01T00:00:00Z", "https://a")],
               key=lambda c: content_preference(*c))[1] == "https://a"
    assert content_preference("", "u") > content_preference("2020-01-01T00:00:00Z", "u")
