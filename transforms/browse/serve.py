"""Serve a written site over HTTP on 127.0.0.1 only (``release browse --serve``).

The site needs no server (open ``index.html``); this is for machines where a browser cannot
read the files directly. Only the site's directory is served, never on another interface.
"""

from __future__ import annotations

import functools
import os
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from transforms.core.interrupt import Interrupted

HOST = "127.0.0.1"


class SiteHandler(SimpleHTTPRequestHandler):
    """Static files of the site, with headers that keep the browser from sniffing types or
    sending referrers."""

    def end_headers(self) -> None:
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()


def make_server(site_dir: str, port: int = 8000) -> ThreadingHTTPServer:
    """An HTTP server of ``site_dir`` bound to 127.0.0.1:``port`` (0: any free port); the
    directory may be written after the port is bound."""
    handler = functools.partial(SiteHandler, directory=os.path.abspath(site_dir))
    return ThreadingHTTPServer((HOST, port), handler)


def serve(site_dir: str, port: int = 8000, server: ThreadingHTTPServer | None = None) -> None:
    """Serve ``site_dir`` on http://127.0.0.1:``port``/ (or through ``server``, from
    ``make_server``) until interrupted (Ctrl-C)."""
    server = server or make_server(site_dir, port)
    try:
        if not os.path.isfile(os.path.join(site_dir, "index.html")):
            raise FileNotFoundError(f"{site_dir} holds no index.html: write the site first")
        print(f"serving {site_dir} at http://{HOST}:{server.server_address[1]}/ "
              "(Ctrl-C stops)", flush=True)
        server.serve_forever()
    except (KeyboardInterrupt, Interrupted):  # the way to stop serving: exit 0
        pass
    finally:
        server.server_close()
