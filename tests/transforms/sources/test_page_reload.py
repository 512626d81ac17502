"""A refresh's pages travel without their content until they are known to be new or
changed; their content is read again from their source, and must be what was digested
(transforms.sources.page_reload)."""

import io
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from transforms.core.accounting import DEAD_LETTER, TALLY
from transforms.sources.page_files import iter_warc_pages
from transforms.sources.page_reload import (
    CHANGED_DURING_RUN,
    UNREADABLE,
    ReloadPages,
    light_page,
)
from transforms.sources.pages import CapturedPage

PAGE = b"<html><body><p>Saved.</p></body></html>"


def _reload(page: CapturedPage, warc: bool = False) -> tuple[list, list, list]:
    """(pages, tallies, dead-letter reasons) of ReloadPages on one light page."""
    pages, tallies, dead = [], [], []
    for item in ReloadPages(warc).process(page):
        if isinstance(item, CapturedPage):
            pages.append(item)
        elif item.tag == TALLY:
            tallies.append(item.value[0])
        elif item.tag == DEAD_LETTER:
            dead.append(item.value["reason"])
    return pages, tallies, dead


def _html(tmp_path: Path) -> CapturedPage:
    path = tmp_path / "a.html"
    path.write_bytes(PAGE)
    return CapturedPage("https://www.bbc.co.uk/news/uk-1", "20200101000000", PAGE, str(path))


def test_a_light_page_keeps_its_digest_and_drops_its_content(tmp_path):
    page = _html(tmp_path)
    light = light_page(page)
    assert (light.content, light.payload_digest()) == (b"", page.payload_digest())
    assert (light.url, light.timestamp, light.source) == (page.url, page.timestamp,
                                                          page.source)


def test_an_unchanged_page_file_is_read_again(tmp_path):
    page = _html(tmp_path)
    [again], tallies, dead = _reload(light_page(page))
    assert (again.content, again.payload_digest(), tallies, dead) == (
        PAGE, page.payload_digest(), [], [])


def test_a_page_file_changed_or_gone_since_its_read_is_dead_lettered(tmp_path):
    page = _html(tmp_path)
    light = light_page(page)
    Path(page.source).write_bytes(PAGE + b"<!-- edited -->")
    assert _reload(light) == ([], [f"input.reload_failed.{CHANGED_DURING_RUN}"],
                              [CHANGED_DURING_RUN])
    Path(page.source).unlink()
    assert _reload(light) == ([], [f"input.reload_failed.{UNREADABLE}"], [UNREADABLE])


def test_a_warc_record_is_read_again_at_its_offset(tmp_path):
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True)
    for number in range(3):
        headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")],
                                   protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record(
            f"https://www.bbc.co.uk/news/uk-{number}", "response",
            payload=io.BytesIO(PAGE + str(number).encode()), http_headers=headers,
            warc_headers_dict={"WARC-Date": "2017-03-16T21:07:02Z"}))
    path = tmp_path / "a.warc.gz"
    path.write_bytes(buffer.getvalue())
    pages = list(iter_warc_pages(io.BytesIO(buffer.getvalue()), str(path)))
    for page in pages:
        [again], tallies, dead = _reload(light_page(page), warc=True)
        assert (again.content, again.url, tallies, dead) == (page.content, page.url, [], [])
