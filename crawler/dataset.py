"""Screenshot datasets for the page-type classifier, captured through the crawler itself.

A set of labelled pages (a WCXB-style folder, a gold JSONL, the demo web) is crawled by
the `news` spider with capture and storage only; the screenshots and their labels are
then written as a manifest (``manifest.jsonl``) that ``scrapy train-classifier`` reads.
Labels are the sources' own page types (WCXB's seven, or article/list); the training
label mapping turns them into classes.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Request

from models.common.splits import ROLES, load_split
from pipelines.artifacts import ArtifactError, read_local_artifact
from pipelines.evaluation.wcxb import read_wcxb

logger = logging.getLogger(__name__)

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class LabeledPage:
    """A page to capture, with its label, the site it belongs to (for splits), the data
    set it comes from (for per-source metrics) and, for pages outside WCXB dev's split,
    its own split role."""

    url: str
    label: str
    site: str
    source: str
    role: str | None = None


def wcxb_pages(root: Path, base_url: str, role: str | None = None) -> list[LabeledPage]:
    """WCXB pages (``html/NNNN.html.gz``) as served under ``base_url``, labelled by the
    WCXB reader's page type (``_internal.page_type.primary``) and sited by its domain;
    with ``role``, only those whose domain the one split puts in that role (e.g. the 186
    validation pages a re-stamp re-measures on, not all 1,497)."""
    split = load_split() if role else None
    return [
        LabeledPage(
            url=f"{base_url}/{record.file_id}.html",
            label=record.known_page_type,
            site=record.domain,
            source="wcxb",
        )
        for record in read_wcxb(root)
        if record.has_html and (split is None or split.role(record.domain) == role)
    ]


def gold_pages(gold_path: Path, source: str = "gold", role: str | None = None) -> list[LabeledPage]:
    """Pages of a gold JSONL that carry a page type (``site`` defaults to the URL's host),
    all in split role ``role`` (None: their sites' role in the WCXB dev split)."""
    pages = []
    with gold_path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                url = record["url"]
            except (json.JSONDecodeError, KeyError) as exc:
                raise ValueError(f"{gold_path}:{number}: not a gold line ({exc})") from exc
            if record.get("page_type"):
                site = record.get("site") or urlsplit(url).netloc
                pages.append(LabeledPage(url, record["page_type"], site, source, role))
    return pages


def demo_seed_roles(spec: str) -> list[tuple[int, str | None]]:
    """``"11:train,12:train,13:validation"`` → demo web seeds and their split roles (a
    seed without ``:ROLE`` has none); ValueError naming the bad part."""
    seeds: list[tuple[int, str | None]] = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        seed, _, role = part.partition(":")
        if not seed.isdigit() or (role and role not in ROLES):
            raise ValueError(f"{part!r}: a demo seed is SEED or SEED:ROLE, ROLE one of {', '.join(ROLES)}")
        seeds.append((int(seed), role or None))
    return seeds


def styled_pages(root: Path, base_url: str) -> list[LabeledPage]:
    """The generated styled sites of a ``build-styled-sites`` folder (``pages.jsonl``) as
    served under ``base_url``, with their themes' split roles."""
    from crawler.styled import read_styled_pages

    return [
        LabeledPage(f"{base_url}/{page.path}", page.label, page.site, f"styled-{page.theme}", page.role)
        for page in read_styled_pages(root)
    ]


def abort_external_requests(request: Request) -> bool:
    """PLAYWRIGHT_ABORT_REQUEST predicate: abort every request that leaves this machine.

    Archived pages reference CSS, scripts and trackers on hosts that cannot be reached
    offline; waiting for them would only delay the load event.
    """
    return urlsplit(request.url).hostname not in LOOPBACK_HOSTS and not request.url.startswith(
        ("data:", "blob:", "about:")
    )


class _ArchiveHandler(SimpleHTTPRequestHandler):
    """Serves ``NNNN.html`` from ``NNNN.html.gz`` (or plain files) of a folder, as HTML.

    With ``declare_charset`` off it sends ``text/html`` without a charset, as many small
    sites do, so the browser (or the crawl's own decoding) has to find it.
    """

    declare_charset = True

    def do_GET(self) -> None:
        name = Path(urlsplit(self.path).path).name
        body = self._read(name) if name else None
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        charset = _charset_param(body) if self.declare_charset else ""
        self.send_header("Content-Type", f"text/html{charset}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _read(self, name: str) -> bytes | None:
        """``name.gz`` gunzipped, else ``name``; None when neither can be read (missing,
        a folder, a name too long for the file system)."""
        folder = Path(self.directory)
        for candidate in (folder / f"{name}.gz", folder / name):
            try:
                return read_local_artifact(candidate)
            except ArtifactError as error:
                logger.debug("archive server: %s", error)
        return None

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("archive server: " + format, *args)


def _charset_param(body: bytes) -> str:
    """``; charset=utf-8`` when the bytes are UTF-8; else let the browser sniff <meta>."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return ""
    return "; charset=utf-8"


class _QuietStaticHandler(SimpleHTTPRequestHandler):
    """Serves a folder tree as it is (``index.html`` for a directory URL)."""

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("static server: " + format, *args)


@contextmanager
def serve_static_folder(folder: Path) -> Iterator[str]:
    """Serve a folder tree (generated static sites) on 127.0.0.1; yields the base URL."""
    with serve_handler(lambda *a, **kw: _QuietStaticHandler(*a, directory=str(folder), **kw)) as base_url:
        yield base_url


@contextmanager
def serve_html_folder(folder: Path, declare_charset: bool = True) -> Iterator[str]:
    """Serve a folder of (gzipped) HTML files on 127.0.0.1; yields the base URL.

    ``declare_charset=False`` serves every page as bare ``text/html``.
    """
    handler = type("ArchiveHandler", (_ArchiveHandler,), {"declare_charset": declare_charset})
    with serve_handler(functools.partial(handler, directory=str(folder))) as base_url:
        yield base_url


class _QuietServer(ThreadingHTTPServer):
    """A browser that drops a connection mid-answer (a page closed early) is no error."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        logger.debug("local server: connection from %s ended early", client_address, exc_info=True)


@contextmanager
def serve_handler(handler: Callable[..., SimpleHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on 127.0.0.1 in a thread; yields the base URL."""
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def feed_outcomes(feed_paths: list[Path]) -> dict[str, dict[str, Any]]:
    """The last feed line of each URL across feeds (a retry's line replaces the first)."""
    latest: dict[str, dict[str, Any]] = {}
    for feed_path in feed_paths:
        if not feed_path.is_file():
            continue
        with feed_path.open(encoding="utf-8") as feed:
            for line in feed:
                record = json.loads(line)
                latest[record["url"]] = record
    return latest


def failed_pages(pages: list[LabeledPage], feed_paths: list[Path]) -> list[LabeledPage]:
    """Pages with an error line or no line at all (skipped pages are not retried)."""
    latest = feed_outcomes(feed_paths)
    return [
        page
        for page in pages
        if page.url not in latest or latest[page.url]["status"] not in ("ok", "skipped")
    ]


def write_manifest(pages: list[LabeledPage], feed_paths: list[Path], out_dir: Path) -> Counter[str]:
    """Join the crawl's feed lines with their labels into ``out_dir/manifest.jsonl``.

    Each line names the screenshot (``image``), and the rendered HTML (``html``) and
    element boxes (``boxes``) of the same visit, all relative to ``out_dir``. Returns
    counts of outcomes (ok, skipped, error, missing).
    """
    latest = feed_outcomes(feed_paths)
    outcomes: Counter[str] = Counter()
    lines = []
    for page in pages:
        record = latest.get(page.url)
        if record is None:
            outcomes["missing"] += 1
            continue
        outcomes[record["status"]] += 1
        if record["status"] != "ok" or not record.get("screenshot"):
            logger.warning("Not in the dataset: %s (%s)", page.url, record.get("error"))
            continue
        entry = {
            "image": _relative(record["screenshot"]["uri"], out_dir),
            "label": page.label,
            "site": page.site,
            "url": page.url,
            "source": page.source,
        }
        if page.role is not None:
            entry["role"] = page.role
        for artifact in ("html", "boxes"):
            if record.get(artifact):
                entry[artifact] = _relative(record[artifact]["uri"], out_dir)
        lines.append(entry)
    with (out_dir / "manifest.jsonl").open("w", encoding="utf-8") as manifest:
        for entry in lines:
            manifest.write(json.dumps(entry, ensure_ascii=False) + "\n")
    return outcomes


def _relative(uri: str, out_dir: Path) -> str:
    return str(Path(urlsplit(uri).path).resolve().relative_to(out_dir.resolve()))
