"""What every fake HTTP server of the tests shares: a loopback server in a daemon thread,
a request log and a queue of scripted faults per path substring."""

from __future__ import annotations

import contextlib
import socket
import struct
import sys
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeHttpServer:
    """Subclasses set ``server_class``, ``handler_class`` and ``string_faults``."""

    server_class: Any = None
    handler_class: Any = None
    string_faults: frozenset[str] = frozenset()

    def _init_server(self) -> None:
        self.requests: list[str] = []
        self.user_agents: list[str] = []
        self._faults: list[tuple[str, list[Any]]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = None
        self._thread: threading.Thread | None = None

    def start(self):
        """Bind a free port on 127.0.0.1 and serve in a daemon thread."""
        self._server = self.server_class(("127.0.0.1", 0), self.handler_class)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Wake hung handlers, stop serving and close the socket."""
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def fail(self, path_substring: str, responses: Sequence[Any]) -> None:
        """Queue faults for the next requests whose path contains ``path_substring``
        (the fault kinds are documented by each fake)."""
        for fault in responses:
            if isinstance(fault, str) and fault not in self.string_faults:
                raise ValueError(f"unknown fault {fault!r}")
        with self._lock:
            self._faults.append((path_substring, list(responses)))

    def _begin(self, path: str, user_agent: str):
        """Record a request and pop the first fault scripted for it."""
        with self._lock:
            self.requests.append(path)
            self.user_agents.append(user_agent)
            for substring, queue in self._faults:
                if queue and substring in path:
                    return queue.pop(0)
        return None


class QuietServer(ThreadingHTTPServer):
    """A threading HTTP server that does not report the client disconnects tests provoke."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class FaultInjectingHandler(BaseHTTPRequestHandler):
    """GET handler applying the connection faults every fake shares ("reset", "hang",
    "truncate"); ``respond(fault)`` gives the ``(status, headers, body)`` otherwise."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - BaseHTTPRequestHandler API
        fake = self.server.fake
        fault = fake._begin(self.path, self.headers.get("User-Agent", ""))
        if fault == "reset":
            self._reset()
            return
        if fault == "hang" and fake._stop.wait(fake.hang_seconds):
            self.close_connection = True
            return
        self._send(*self.respond(fault), truncate=fault == "truncate")

    def respond(self, fault: Any) -> tuple[int, dict[str, str], bytes]:
        raise NotImplementedError

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - base signature
        """Keep test output quiet."""

    def _reset(self) -> None:
        """Abort the connection with a TCP RST (SO_LINGER 0) before any response."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()

    def _send(self, status: int, headers: dict[str, str], body: bytes, truncate: bool) -> None:
        declared = len(body)
        if truncate:  # announce more bytes than are sent, then close
            declared, body = len(body) + max(16, len(body)), body[: len(body) // 2]
            self.close_connection = True
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(declared))
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except (ConnectionError, TimeoutError):
            self.close_connection = True
