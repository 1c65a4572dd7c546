"""Serve one generated site on its own port: a threaded stdlib HTTP server in a thread."""

from __future__ import annotations

import contextlib
import logging
import re
import socket
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from crawler.demo.faults import Faults
from crawler.demo.model import Page, SiteModel

logger = logging.getLogger(__name__)

#: Seconds a connection may sit idle (e.g. before its request line) before it is dropped.
IDLE_TIMEOUT = 10.0

_META_CHARSET = re.compile(rb'<meta charset="[^"]*">\n?')
# Pushes a late <meta charset> past the 1024 bytes a browser's prescan reads.
_LATE_META_PADDING = b"<!-- " + b"padding " * 160 + b"-->\n"
#: The ``consent`` knob's banner: fixed over the lower half of the first screen (ASCII,
#: so that it fits every site's charset).
CONSENT_BANNER = (
    b'<div class="cookie-consent" role="dialog" style="position:fixed;left:0;right:0;bottom:0;'
    b'height:45vh;z-index:9999;background:#fff;border-top:4px solid #333;padding:24px;">'
    b"<h2>We value your privacy</h2><p>We use cookies to measure our audience and to personalise "
    b"content and ads. Choose Accept all to agree or Manage options to refuse.</p>"
    b"<button>Accept all</button> <button>Manage options</button></div>\n"
)


def served(page: Page, faults: Faults) -> tuple[str, bytes]:
    """The Content-Type and body ``page`` is served with under ``faults``."""
    content_type, body = page.content_type, page.body
    if not content_type.startswith("text/html") or page.status != 200:
        return content_type, body
    if faults.no_charset:
        content_type = "text/html"
    if faults.late_meta and (meta := _META_CHARSET.search(body)):
        body = _META_CHARSET.sub(b"", body, count=1).replace(
            b"</head>", _LATE_META_PADDING + meta.group(0) + b"</head>", 1
        )
    if faults.consent and not page.hang:
        body = body.replace(b"</body>", CONSENT_BANNER + b"</body>", 1)
    return content_type, body


class _SiteHTTPServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer that knows its site and can cut its open connections."""

    daemon_threads = True
    block_on_close = True  # server_close() joins the handler threads

    def __init__(self, address: tuple[str, int], model: SiteModel, faults: Faults) -> None:
        self.model = model
        self.faults = faults
        self.stopping = threading.Event()
        self.hits: Counter[str] = Counter()
        self._connections: set[socket.socket] = set()
        self._lock = threading.Lock()
        super().__init__(address, _SiteHandler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def cut_connections(self) -> None:
        """Wake every handler blocked on a socket by shutting its connection down."""
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by the other side
                connection.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        logger.debug("demo web: connection from %s failed", client_address, exc_info=True)


class _SiteHandler(BaseHTTPRequestHandler):
    """Answers GET and HEAD from the site model, with the configured faults."""

    server: _SiteHTTPServer
    protocol_version = "HTTP/1.0"
    server_version = "PageSightDemo/1.0"
    timeout = IDLE_TIMEOUT

    def do_GET(self) -> None:
        self._answer(send_body=True)

    def do_HEAD(self) -> None:
        self._answer(send_body=False)

    def _answer(self, send_body: bool) -> None:
        server = self.server
        with server._lock:
            server.hits[self.path] += 1
        delay = server.faults.latency_ms / 1000.0
        if delay and server.stopping.wait(delay):
            return
        page = server.model.pages.get(self.path, server.model.not_found)
        try:
            self._send(page, send_body)
        except (BrokenPipeError, ConnectionResetError):
            logger.debug("demo web: client left during %s", self.path)

    def _send(self, page: Page, send_body: bool) -> None:
        content_type, body = served(page, self.server.faults)
        self.send_response(page.status)
        self.send_header("Content-Type", content_type)
        if page.status == 503:
            self.send_header("Retry-After", "120")
        if not page.hang:
            self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if send_body:
            self.wfile.write(body)
            self.wfile.flush()
        if page.hang:
            # The rest of the document never comes: hold the connection until stop().
            self.server.stopping.wait()

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("demo web %s: " + format, self.server.model.spec.name, *args)


class SiteServer:
    """One site on ``host:port`` (port 0: a free port), served from a background thread."""

    def __init__(self, model: SiteModel, faults: Faults, host: str = "127.0.0.1", port: int = 0) -> None:
        self.model = model
        self._httpd = _SiteHTTPServer((host, port), model, faults)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.1},
            name=f"demo-web-{model.spec.name}",
            daemon=True,
        )
        self._stopped = False

    @property
    def base_url(self) -> str:
        """``http://host:port`` of this site, without a trailing slash."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def hits(self) -> Counter[str]:
        """Requests received so far, by request path (including the query string)."""
        with self._httpd._lock:
            return Counter(self._httpd.hits)

    def start(self) -> None:
        """Start answering requests."""
        self._thread.start()

    def stop(self) -> None:
        """Stop serving, release hanging and idle connections, join every thread. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        self._httpd.stopping.set()
        if self._thread.is_alive():
            self._httpd.shutdown()
        self._httpd.cut_connections()
        self._httpd.server_close()
        self._thread.join()
