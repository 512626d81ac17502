"""transforms.clients.breaker: N consecutive items lost to connection failures stop a run;
anything that shows the endpoint answers resets the count."""

from __future__ import annotations

import pickle

import pytest

from transforms.clients.breaker import ConsecutiveFailures, EndpointFailing
from transforms.clients.http_json import HttpError
from transforms.clients.preflight import EndpointUnavailable
from transforms.clients.wayback.errors import WaybackError


def refused(n: int = 0) -> WaybackError:
    return WaybackError("connection_refused", f"http://127.0.0.1:9/web/{n}id_/x", "refused")


def test_the_limit_th_consecutive_connection_failure_stops() -> None:
    breaker = ConsecutiveFailures("the archive", 3, "captures")
    breaker.failure(refused(1))
    breaker.failure(HttpError("server_error", "http://x/api", 503))
    with pytest.raises(EndpointFailing) as info:
        breaker.failure(HttpError("timeout", "http://x/api"))
    message = str(info.value)
    assert message.startswith("the archive failed 3 captures in a row with connection "
                              "failures (last: timeout: http://x/api)")
    assert "--max-consecutive-failures 0" in message and "\n" not in message
    assert isinstance(info.value, EndpointUnavailable)


def test_an_answer_resets_the_count() -> None:
    breaker = ConsecutiveFailures("the search API", 2)
    for outcome in range(10):
        breaker.failure(refused(outcome))
        if outcome % 2:
            breaker.success()
        else:
            breaker.failure(HttpError("http_404", "http://x/page", 404))  # it answered
    assert breaker.count == 0


def test_other_failures_are_not_counted() -> None:
    breaker = ConsecutiveFailures("the search API", 1)
    for kind in ("http_404", "rate_limited", "body_too_large", "bad_response", "page_missing"):
        breaker.failure(HttpError(kind, "http://x"))
    breaker.failure(ValueError("no kind at all"))
    assert breaker.count == 0


def test_limit_zero_never_stops() -> None:
    breaker = ConsecutiveFailures("the archive", 0)
    for n in range(1000):
        breaker.failure(refused(n))
    assert breaker.count == 1000


def test_a_long_error_keeps_its_cause_and_the_error_pickles() -> None:
    cause = "Caused by NewConnectionError: [Errno 111] Connection refused"
    breaker = ConsecutiveFailures("the search API", 1)
    with pytest.raises(EndpointFailing) as info:
        breaker.failure(HttpError("connection_error", "http://x/api?" + "q=1&" * 200, None,
                                  cause))
    assert cause in str(info.value) and len(str(info.value)) < 800
    clone = pickle.loads(pickle.dumps(info.value))
    assert type(clone) is EndpointFailing and str(clone) == str(info.value)
