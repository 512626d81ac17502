"""Shared helpers of the Wayback client tests: a story capture and a quiet client."""

from __future__ import annotations

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
        "fetch_per_minute": 0,
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
