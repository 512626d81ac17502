"""Shared helpers of the Wayback client tests: a story capture and a quiet client."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakes.wayback_server import FakeWayback
from transforms.clients.wayback.cdx import CdxCapture
from transforms.clients.wayback.client import WaybackClient

STORY_URL = "https://www.bbc.co.uk/news/world-europe-1"
STORY_TS = "20150601120000"
STORY_HTML = b"<html><head><title>Story</title></head><body><p>Body</p></body></html>"


def html(n: int) -> bytes:
    return f"<html><body><p>story {n}</p></body></html>".encode()


def make_client(base_url: str, sleeps: list[float], **overrides: object) -> WaybackClient:
    """Client with no rate limiting, recorded (not real) sleeps and short timeouts."""
    options: dict = {
        "cdx_per_minute": 0,
        "fetches_per_minute": 0,
        "max_retries": 3,
        "rate_limit_pause": 30.0,
        "timeout": (2.0, 2.0),
        "sleep": sleeps.append,
    }
    options.update(overrides)
    return WaybackClient(base_url, **options)


def story_capture(fake: FakeWayback) -> CdxCapture:
    return CdxCapture.from_dict(fake.capture(STORY_URL, STORY_TS).row())


def query_of(path: str) -> dict[str, list[str]]:
    return parse_qs(urlsplit(path).query)


CDX_HEADER = ["urlkey", "timestamp", "original", "mimetype", "statuscode", "digest"]


def cdx_row(name: str, timestamp: str = "20160101000000", **changes: Any) -> list[Any]:
    """A well-formed CDX row for ``https://www.bbc.co.uk/news/<name>`` with fields replaced."""
    fields = {"urlkey": f"uk,co,bbc)/news/{name}", "timestamp": timestamp,
              "original": f"https://www.bbc.co.uk/news/{name}", "mimetype": "text/html",
              "statuscode": "200", "digest": "D" * 32, **changes}
    return [fields[field] for field in CDX_HEADER]


def cdx_page(rows: list[Any], resume_key: str | None = None) -> str:
    """A CDX ``output=json`` body: the header, the rows and the resume-key trailer."""
    table = [CDX_HEADER, *rows]
    if resume_key:
        table += [[], [resume_key]]
    return json.dumps(table)


class ScriptedCdx(FakeWayback):
    """A fake archive whose CDX answers are scripted bodies, chosen by ``resumeKey``."""

    def __init__(self, pages: dict[str | None, str]) -> None:
        self.pages = pages
        super().__init__()

    def route(self, path: str) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(path)
        if parts.path != "/cdx/search/cdx":
            return super().route(path)
        key = parse_qs(parts.query).get("resumeKey", [None])[0]
        return 200, {"Content-Type": "application/json"}, self.pages[key].encode("utf-8")
