"""transforms.clients.wayback.memento: reading Memento headers as web.archive.org writes them."""

from __future__ import annotations

import pytest

from transforms.clients.wayback.memento import (
    Memento,
    http_date_timestamp,
    memento_of,
    parse_link_header,
    replay_url_timestamp,
)

ORIGINAL = "https://www.bbc.co.uk/news/world-europe-1"
LINK = (f'<{ORIGINAL}>; rel="original", '
        f'<https://web.archive.org/web/timemap/link/{ORIGINAL}>; rel="timemap"; '
        'type="application/link-format", '
        f'<https://web.archive.org/web/20150101000000/{ORIGINAL}>; rel="first memento"; '
        'datetime="Thu, 01 Jan 2015 00:00:00 GMT", '
        f'<https://web.archive.org/web/20150622093000/{ORIGINAL}>; rel="memento"; '
        'datetime="Mon, 22 Jun 2015 09:30:00 GMT", '
        f'<https://web.archive.org/web/20200101000000/{ORIGINAL}>; rel="last memento"; '
        'datetime="Wed, 01 Jan 2020 00:00:00 GMT"')


def test_a_link_header_keeps_commas_inside_its_dates() -> None:
    entries = parse_link_header(LINK)
    assert [sorted(rel) for _, rel, _ in entries] == [
        ["original"], ["timemap"], ["first", "memento"], ["memento"], ["last", "memento"]]
    assert entries[3][2] == "Mon, 22 Jun 2015 09:30:00 GMT"


def test_the_served_capture_comes_from_memento_datetime() -> None:
    headers = {"memento-datetime": "Mon, 22 Jun 2015 09:30:00 GMT", "LINK": LINK}
    assert memento_of(headers) == Memento(
        "20150622093000", f"https://web.archive.org/web/20150622093000/{ORIGINAL}", ORIGINAL)


@pytest.mark.parametrize("declared", [None, "yesterday"])
def test_without_a_usable_memento_datetime_the_memento_link_says(declared: str | None) -> None:
    headers = {"Link": LINK, **({"Memento-Datetime": declared} if declared else {})}
    assert memento_of(headers).timestamp == "20150622093000"


def test_an_answer_without_memento_headers_is_the_archives_own() -> None:
    assert memento_of({"Content-Type": "text/html"}) is None
    assert memento_of({"Link": f'<{ORIGINAL}>; rel="original"'}) is None


def test_dates_and_replay_urls_give_timestamps() -> None:
    assert http_date_timestamp("Mon, 22 Jun 2015 11:30:00 +0200") == "20150622093000"
    assert http_date_timestamp("not a date") is None and http_date_timestamp("") is None
    assert replay_url_timestamp(f"http://a/web/20150622093000id_/{ORIGINAL}") == (
        "20150622093000")
    assert replay_url_timestamp(f"http://a/web/20151322093000/{ORIGINAL}") is None
