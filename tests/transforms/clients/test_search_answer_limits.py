"""A search answer is read at most ``max_answer_bytes`` and parsed without a bomb (issue 35
§12: answers under the 10 MB body cap, many small objects that ``json`` turns into many
dicts, pushed a build to 2.8 GB). Asserted on what the client reads and parses, against a
local server on 127.0.0.1, never on the machine's RSS or speed."""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from transforms.clients import search_backends
from transforms.clients.http_json import HttpError, PoliteHttp
from transforms.clients.search_backends import (
    MAX_ANSWER_BYTES,
    SEARCH_ANSWER_TOO_LARGE,
    MediaWikiSearch,
    WebSearch,
)

CAP = 64 * 1024
SMALL = {"query": {"search": [{"title": "Trade winds", "snippet": "The <b>trade</b> winds"}]}}


def many_objects(size: int) -> bytes:
    """An answer of ``size`` bytes of tiny objects, a valid first hit at the end."""
    item = b'{"a":0},'
    return (b'{"query":{"search":[' + item * (size // len(item))
            + b'{"title":"T","snippet":"s"}]}}')


class Answers:
    """A local server answering every GET with ``body`` (no Content-Length unless
    ``declare``; gzip ``Content-Encoding`` when ``encoding``)."""

    def __init__(self) -> None:
        self.body, self.declare, self.encoding = b"", False, ""
        answers = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                if answers.encoding:
                    self.send_header("Content-Encoding", answers.encoding)
                if answers.declare:
                    self.send_header("Content-Length", str(len(answers.body)))
                self.end_headers()
                try:
                    for start in range(0, len(answers.body), 1 << 16):
                        self.wfile.write(answers.body[start:start + (1 << 16)])
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading at its cap

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/w/api.php"


@pytest.fixture
def answers() -> Iterator[Answers]:
    served = Answers()
    thread = threading.Thread(target=served.server.serve_forever, daemon=True)
    thread.start()
    yield served
    served.server.shutdown()
    served.server.server_close()


def _search(answers: Answers, **options) -> MediaWikiSearch:
    return MediaWikiSearch(api_url=answers.url, user_agent="t", per_minute=0, max_retries=0,
                           sleep=lambda _: None, **options)


def test_an_answer_past_the_cap_stops_reading_and_is_never_parsed(answers, monkeypatch):
    parsed: list[int] = []
    real = search_backends.safe_json.loads
    monkeypatch.setattr(search_backends.safe_json, "loads",
                        lambda body: parsed.append(len(body)) or real(body))
    answers.body = many_objects(4 << 20)  # 4 MB, no Content-Length: read until the cap
    with pytest.raises(HttpError) as failed:
        _search(answers, max_answer_bytes=CAP).search("trade winds")
    assert failed.value.kind == SEARCH_ANSWER_TOO_LARGE and not failed.value.retryable
    assert f"read at most {CAP} bytes" in failed.value.message
    assert parsed == []  # nothing of it was turned into objects
    answers.body = json.dumps(SMALL).encode()
    (hit,) = _search(answers, max_answer_bytes=CAP).search("trade winds")
    assert hit.title == "Trade winds" and parsed == [len(answers.body)]


def test_the_default_cap_is_far_below_the_body_cap(answers):
    assert MAX_ANSWER_BYTES == 1 << 20
    assert PoliteHttp("t", per_minute=0).limits.max_decoded_bytes > 10 * MAX_ANSWER_BYTES
    answers.body, answers.declare = many_objects(10_000_000), True  # the 10 MB
    with pytest.raises(HttpError) as failed:
        _search(answers).search("trade winds")
    assert failed.value.kind == SEARCH_ANSWER_TOO_LARGE
    answers.body = many_objects(MAX_ANSWER_BYTES - 1000)  # under the cap: parsed
    with pytest.raises(HttpError, match="bad_response"):  # hits without a title
        _search(answers).search("trade winds")


def test_a_gzip_answer_is_capped_once_decoded(answers):
    answers.body, answers.encoding = gzip.compress(many_objects(4 << 20)), "gzip"
    assert len(answers.body) < CAP
    with pytest.raises(HttpError) as failed:
        _search(answers, max_answer_bytes=CAP).search("trade winds")
    assert failed.value.kind == SEARCH_ANSWER_TOO_LARGE


def test_a_nesting_bomb_and_rows_of_the_wrong_shape_are_bad_responses(answers):
    answers.body = b'{"query":{"search":' + b"[" * 50_000 + b"]" * 50_000 + b"}}"
    with pytest.raises(HttpError, match="bad_response.*nested"):
        _search(answers).search("trade winds")
    for rows in ([{"snippet": "no title"}], [5], {"title": "not a list"}):
        answers.body = json.dumps({"query": {"search": rows}}).encode()
        with pytest.raises(HttpError, match="bad_response"):
            _search(answers).search("trade winds")


def test_a_cached_answer_past_the_cap_is_refused(answers, tmp_path):
    answers.body = json.dumps({"query": {"search": [
        {"title": f"T{i}", "snippet": "s" * 200} for i in range(400)]}}).encode()
    assert len(answers.body) > CAP
    first = _search(answers, cache_dir=tmp_path).search("trade winds", 5)
    assert [h.title for h in first] == ["T0", "T1", "T2", "T3", "T4"]
    with pytest.raises(HttpError) as failed:
        _search(answers, cache_dir=tmp_path, max_answer_bytes=CAP).search("trade winds", 5)
    assert failed.value.kind == SEARCH_ANSWER_TOO_LARGE and failed.value.from_cache


def test_web_search_answers_are_capped_too(answers, monkeypatch):
    monkeypatch.setenv("SEARCH_API_KEY", "k")
    answers.body = b'{"webPages":{"value":[' + b'{"a":0},' * 40_000 + b"{}]}}"
    web = WebSearch(answers.url, mapping="bing", user_agent="t", per_minute=0,
                    max_retries=0, max_answer_bytes=CAP)
    with pytest.raises(HttpError) as failed:
        web.search("trade winds")
    assert failed.value.kind == SEARCH_ANSWER_TOO_LARGE
