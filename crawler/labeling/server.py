"""The labeling web app: a small HTTP server on 127.0.0.1 that answers only requests
carrying its random token (``?token=...`` or an ``X-Token`` header).

Routes: ``/`` the app; ``/page/N/html`` the stored rendered HTML, served with a Content
Security Policy that runs none of its scripts (the page stays as captured);
``/page/N/screenshot`` the capture's screenshot; ``/api/pages``; ``POST /api/mark``,
``/api/type``, ``/api/skip``, ``/api/clear`` (undo a page's labels), ``/api/train``;
``/api/predict?index=N``.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from html import escape, unescape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urljoin, urlsplit
from urllib.request import url2pathname

from crawler.labeling.session import LabelError, LabelSession
from pipelines.artifacts import read_artifact

logger = logging.getLogger(__name__)

APP_HTML = resources.files("crawler.labeling").joinpath("app.html")
#: The stored page runs no script and loads nothing but its own images and styles; its
#: base may only be the one :func:`frozen_page` gives it (``{origin}``).
FROZEN_PAGE_CSP = "script-src 'none'; object-src 'none'; frame-src 'none'; base-uri {origin}"
_PAGE_ROUTE = re.compile(r"^/page/(\d+)/(html|screenshot)$")
_HEAD = re.compile(r"<head\b[^>]*>", re.IGNORECASE)
_BASE_HREF = re.compile(r"""<base\b[^>]*?\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE)


class LabelServer(ThreadingHTTPServer):
    """The HTTP server of one session."""

    daemon_threads = True

    def __init__(self, session: LabelSession, port: int = 0):
        super().__init__(("127.0.0.1", port), _Handler)
        self.session = session
        self.token = secrets.token_urlsafe(24)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/?token={self.token}"


def frozen_page(html: str, url: str) -> tuple[str, str]:
    """The stored HTML as the app shows it, and its Content Security Policy.

    Served from the app's address, the page's relative URLs (``/static/site.css``) would
    point at the app: a ``<base>`` first in its head points them at the page's own
    address (or where the page's own base pointed), so its styles and images load and its
    fixed overlays cover what they covered in the capture. The base goes into the head,
    so the XPaths of the body's elements stay those of the capture.
    """
    head = _HEAD.search(html)
    if head is None:
        return html, FROZEN_PAGE_CSP.format(origin="'none'")
    head_end = html.lower().find("</head>", head.end())
    own = _BASE_HREF.search(html, head.end(), head_end if head_end >= 0 else len(html))
    base = urljoin(url, unescape(next(g for g in own.groups() if g is not None))) if own else url
    parts = urlsplit(base)
    if parts.scheme not in ("http", "https"):
        return html, FROZEN_PAGE_CSP.format(origin="'none'")
    tag = f'<base href="{escape(base)}">'
    return html[: head.end()] + tag + html[head.end() :], FROZEN_PAGE_CSP.format(
        origin=f"{parts.scheme}://{parts.netloc}"
    )


@contextmanager
def serving(session: LabelSession, port: int = 0) -> Iterator[LabelServer]:
    """Serve ``session`` in a background thread while the block runs."""
    server = LabelServer(session, port)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    server: LabelServer

    def do_GET(self) -> None:
        if not self._authorized():
            return
        route = urlsplit(self.path).path
        query = parse_qs(urlsplit(self.path).query)
        session = self.server.session
        try:
            if route == "/":
                self._send(200, APP_HTML.read_bytes(), "text/html; charset=utf-8")
            elif route == "/api/pages":
                self._json(200, session.overview())
            elif route == "/api/predict":
                self._json(200, session.predict(int(query.get("index", ["-1"])[0])))
            elif match := _PAGE_ROUTE.match(route):
                page = session.page(int(match.group(1)))
                if match.group(2) == "html":
                    html, csp = frozen_page(read_artifact(page.html.get("uri", "")).decode("utf-8"), page.url)
                    headers = {"Content-Security-Policy": csp}
                    self._send(200, html.encode("utf-8"), "text/html; charset=utf-8", headers)
                else:
                    self._send_screenshot(page.screenshot)
            else:
                self._json(404, {"error": f"no route {route}"})
        except LabelError as error:
            self._json(400, {"error": str(error)})

    def do_POST(self) -> None:
        if not self._authorized():
            return
        route = urlsplit(self.path).path
        session = self.server.session
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if route == "/api/mark":
                self._json(200, session.mark_main(int(body["index"]), str(body["path"])))
            elif route == "/api/type":
                session.mark_type(int(body["index"]), str(body["page_type"]))
                self._json(200, {"ok": True})
            elif route == "/api/skip":
                session.skip(int(body["index"]))
                self._json(200, {"ok": True})
            elif route == "/api/clear":
                session.clear(int(body["index"]))
                self._json(200, {"ok": True})
            elif route == "/api/train":
                self._json(200, session.train())
            else:
                self._json(404, {"error": f"no route {route}"})
        except (LabelError, KeyError, ValueError) as error:
            self._json(400, {"error": str(error)})

    def _authorized(self) -> bool:
        query = parse_qs(urlsplit(self.path).query)
        given = self.headers.get("X-Token") or (query.get("token") or [""])[0]
        if secrets.compare_digest(given, self.server.token):
            return True
        self._json(403, {"error": "missing or wrong token: open the URL scrapy label printed"})
        return False

    def _send_screenshot(self, reference: dict[str, Any] | None) -> None:
        uri = urlsplit((reference or {}).get("uri", ""))
        path = Path(url2pathname(uri.path)) if uri.scheme in ("file", "") and uri.path else None
        if path is None or not path.is_file():
            self._json(404, {"error": "no stored screenshot for this page"})
            return
        self._send(200, path.read_bytes(), "image/png")

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data, ensure_ascii=False).encode("utf-8"), "application/json")

    def _send(
        self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("label server: " + format, *args)
