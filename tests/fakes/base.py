"""What every fake HTTP server of the tests shares: a loopback server in a daemon thread,
a request log and a queue of scripted faults per path substring.

Faults every fake understands (:data:`CONNECTION_FAULTS`), for hostile-server tests:

* "reset": TCP reset, no response; "hang": stall ``hang_seconds``, then answer;
* "truncate": Content-Length larger than the body, half of it sent, then close (a short body);
* "short_gzip": the same with the body gzip-encoded (Content-Length counts compressed bytes);
* "cut_gzip": a gzip-encoded body without Content-Length, cut in the middle of the gzip
  stream by closing the connection (only the missing end-of-stream shows the loss);
* "gzip_bomb": HTTP 200 ``Content-Encoding: gzip`` whose body inflates to ``bomb_bytes``;
* "endless": HTTP 200 without Content-Length, ``endless_chunk`` bytes at a time until the
  client goes away (at most ``endless_limit`` bytes);
* "slowloris": the normal answer, its body sent one byte every ``slow_interval`` seconds;
* "redirect_loop": HTTP 302 into a two-URL loop (``/__redirect_loop/a`` <-> ``.../b``) that
  every later request of it continues.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import socket
import struct
import sys
import threading
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CONNECTION_FAULTS = ("reset", "hang", "truncate", "short_gzip", "cut_gzip", "gzip_bomb",
                     "endless", "slowloris", "redirect_loop")
LOOP_PREFIX = "/__redirect_loop/"


@functools.lru_cache(maxsize=4)
def gzip_bomb(decoded_bytes: int) -> bytes:
    """A gzip member of ``decoded_bytes`` zero bytes (about 1000 times smaller)."""
    return gzip.compress(bytes(decoded_bytes), compresslevel=9, mtime=0)


class FakeHttpServer:
    """Subclasses set ``server_class``, ``handler_class`` and ``string_faults``."""

    server_class: Any = None
    handler_class: Any = None
    string_faults: frozenset[str] = frozenset()
    bomb_bytes: int = 64 << 20
    endless_chunk: int = 64 << 10
    endless_limit: int = 1 << 30
    slow_interval: float = 0.05

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

    def _begin(self, path: str, user_agent: str, pop: bool = True):
        """Record a request and pop the first fault scripted for it (when ``pop``)."""
        with self._lock:
            self.requests.append(path)
            self.user_agents.append(user_agent)
            if not pop:
                return None
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
    """GET handler applying the connection faults every fake shares
    (:data:`CONNECTION_FAULTS`); ``respond(fault)`` gives the ``(status, headers, body)``
    otherwise."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - BaseHTTPRequestHandler API
        fake = self.server.fake
        looping = self.path.startswith(LOOP_PREFIX)
        fault = fake._begin(self.path, self.headers.get("User-Agent", ""), pop=not looping)
        if looping or fault == "redirect_loop":
            self._redirect_loop()
            return
        if fault == "reset":
            self._reset()
            return
        if fault == "hang" and fake._stop.wait(fake.hang_seconds):
            self.close_connection = True
            return
        if fault == "gzip_bomb":
            headers = {"Content-Type": "text/html", "Content-Encoding": "gzip"}
            self._send(200, headers, gzip_bomb(fake.bomb_bytes), truncate=False)
            return
        if fault == "endless":
            self._endless()
            return
        if fault == "slowloris":
            self._slowloris(*self.respond(None))
            return
        if fault == "short_gzip":
            status, headers, body = self.respond(None)
            headers = {**headers, "Content-Encoding": "gzip"}
            self._send(status, headers, gzip.compress(body, mtime=0), truncate=True)
            return
        if fault == "cut_gzip":
            status, headers, body = self.respond(None)
            packed = gzip.compress(body, mtime=0)
            self._close_delimited(status, {**headers, "Content-Encoding": "gzip"},
                                  packed[: len(packed) // 2])
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

    def _redirect_loop(self) -> None:
        """302 from anywhere into the loop, and from each loop URL to the other one."""
        target = LOOP_PREFIX + ("b" if self.path == LOOP_PREFIX + "a" else "a")
        self._send(302, {"Location": target, "Content-Type": "text/plain"}, b"", truncate=False)

    def _close_delimited(self, status: int, headers: dict[str, str], body: bytes) -> None:
        """An answer without Content-Length whose end is the connection's close."""
        self.close_connection = True
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except (ConnectionError, TimeoutError, OSError):
            return

    def _endless(self) -> None:
        """An HTTP 200 body without Content-Length that never ends (until the client leaves)."""
        fake = self.server.fake
        self.close_connection = True
        chunk = b"<p>" + b"x" * max(0, fake.endless_chunk - 3)
        sent = 0
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Connection", "close")
            self.end_headers()
            while sent < fake.endless_limit and not fake._stop.is_set():
                self.wfile.write(chunk)
                sent += len(chunk)
        except (ConnectionError, TimeoutError, OSError):
            return

    def _slowloris(self, status: int, headers: dict[str, str], body: bytes) -> None:
        """The answer with its body sent one byte every ``slow_interval`` seconds."""
        fake = self.server.fake
        self.close_connection = True
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.flush()
            for index in range(len(body)):
                if fake._stop.wait(fake.slow_interval):
                    return
                self.wfile.write(body[index:index + 1])
                self.wfile.flush()
        except (ConnectionError, TimeoutError, OSError):
            return

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
