"""Stop a run whose endpoint fails persistently, instead of grinding through every item.

Every item a client handles (a search, a page, a CDX query, a capture) already has its own
retries. When ``limit`` items in a row still fail with a connection kind
(:data:`CONNECTION_KINDS`: refused or reset connections, timeouts, deadlines, 5xx: the
endpoint does not answer usefully), it is down, and trying each remaining item would only
spend its retries and backoff on every one. :meth:`ConsecutiveFailures.failure` then raises
:class:`EndpointFailing`, which the Beam stage lets escape: the job fails with the reason,
nothing is published. Any other outcome (a success, a 404, a malformed answer) shows that
the endpoint answers and resets the count.

Build one per ``DoFn`` in ``setup()``: Beam pickles DoFns and runs them in other processes,
so nothing here is process-global; each worker counts its own items. ``limit`` 0 never
stops. No Beam dependency.
"""

from __future__ import annotations

from transforms.clients.preflight import EndpointUnavailable

CONNECTION_KINDS = frozenset({"connection_error", "connection_refused", "timeout",
                              "deadline_exceeded", "server_error"})
DEFAULT_LIMIT = 5  # items in a row; each has already spent its retries
OPTION = "--max-consecutive-failures"


class EndpointFailing(EndpointUnavailable):
    """``limit`` consecutive items failed with a connection kind: the run stops. The message
    is one line (runners that report a worker's error as text keep only that)."""


class ConsecutiveFailures:
    """Count consecutive items of one endpoint lost to connection failures.

    ``endpoint`` names it in the error (``the MediaWiki search API``); ``unit`` names its
    items (``searches``). Call :meth:`success` or :meth:`failure` once per item."""

    def __init__(self, endpoint: str, limit: int, unit: str = "requests",
                 kinds: frozenset[str] = CONNECTION_KINDS) -> None:
        self.endpoint = endpoint
        self.limit = max(0, int(limit))
        self.unit = unit
        self.kinds = kinds
        self.count = 0

    def success(self) -> None:
        """An item that got an answer: the endpoint works."""
        self.count = 0

    def failure(self, error: BaseException) -> None:
        """An item that failed for good with ``error`` (its ``kind`` says how): counted when
        it is a connection kind, else the count restarts. Raises :class:`EndpointFailing`
        when the count reaches the limit."""
        kind = getattr(error, "kind", None)
        if kind not in self.kinds:
            self.count = 0
            return
        self.count += 1
        if self.limit and self.count >= self.limit:
            raise EndpointFailing(self.message(error))

    def message(self, error: BaseException) -> str:
        """The one-line reason the run stops."""
        last = " ".join(str(error).split())
        if len(last) > 500:  # keep the cause, which requests puts at the end
            last = f"{last[:200]} ... {last[-280:]}"
        return (f"{self.endpoint} failed {self.count} {self.unit} in a row with connection "
                f"failures (last: {last}); the run stopped instead of trying every remaining "
                f"one. Check the network and the endpoint, or pass {OPTION} 0 to never stop")
