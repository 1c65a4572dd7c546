"""Extraction outside a crawl (``scrapy extract``, ``pagesight extract``, the Python API
``pagesight.extract``): read one page (an HTML file, standard input or a URL) and turn a
page into its feed record, one line of the crawl's feed (``crawler.items.FEED_FIELDS``),
so that one page, a folder, a WARC file and the API all give the one schema.

This is glue around the extractors, not an algorithm: it builds the crawl's
``PageItem`` with the crawl's own :mod:`pipelines.feedline`.

A URL is fetched as raw HTML with urllib: no browser, so content that scripts build is
missing. The crawl renders pages; use it for script-built sites.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping
from datetime import UTC, datetime
from email.message import Message
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from crawler.items import FEED_FIELDS, STATUS_ERROR, STATUS_OK, PageItem
from pipelines.artifacts import ArtifactError, read_local_artifact
from pipelines.evaluation.scoring import text_fingerprint
from pipelines.extraction.encoding import decode_html, non_html_reason
from pipelines.extraction.page import Extractor, Page
from pipelines.extraction.sources import SourcePage
from pipelines.feedline import add_extractor_provenance, apply_extraction
from pipelines.neardup import NearDuplicateIndex
from pipelines.urls import site_of
from pipelines.version import PAGESIGHT_VERSION

FORMATS = ("json", "text", "markdown")
PAGE_TYPE_CHOICES = ("article", "list", "auto")
#: The source that names standard input.
STDIN = "-"


class SourceError(Exception):
    """A file that cannot be read, a URL that cannot be fetched, or bytes that are not HTML."""


def read_source(source: str, timeout: float = 30.0, user_agent: str = "PageSight") -> tuple[str, str]:
    """HTML text and page URL of ``source``: an HTML file (``.gz`` too) or a ``file://``
    URI (URL: the file's ``file://`` URI, as in a folder's feed), an http(s) URL, or
    ``-``, standard input (URL "": its links stay as written)."""
    if source == STDIN:
        body = sys.stdin.buffer.read()
        refuse_non_html(body, "standard input")
        return decode_html(body), ""
    scheme = urlsplit(source).scheme.lower()
    if scheme in ("http", "https"):
        return _fetch(source, timeout, user_agent), source
    path = Path(unquote(urlsplit(source).path) if scheme == "file" else source)
    try:
        body = read_local_artifact(path)
    except ArtifactError as error:
        raise SourceError(str(error)) from error
    refuse_non_html(body, str(path))
    return decode_html(body), path.resolve().as_uri()


def refuse_non_html(body: bytes, where: str) -> None:
    """SourceError when ``body`` is not an HTML document."""
    reason = non_html_reason(body)
    if reason is not None:
        raise SourceError(f"{where} is {reason}: give an HTML file (.html or .html.gz) or an http(s) URL")


def feed_record(
    page: SourcePage,
    extractor: Extractor,
    page_type: str = "auto",
    index: NearDuplicateIndex | None = None,
) -> dict[str, Any]:
    """``page`` as one feed line, the crawl's shape: extracted (page type ``auto``: the
    extractor decides), its text fingerprinted (and, given the ``index`` of the pages
    before it, checked for a near-duplicate among them), or an error line. An extractor
    that finds nothing leaves the crawl's warning and no text (:func:`record_failure`)."""
    if page_type not in PAGE_TYPE_CHOICES:
        raise ValueError(f"page type must be one of {', '.join(PAGE_TYPE_CHOICES)}, got {page_type!r}")
    item = PageItem(
        url=page.url,
        site=site_of(page.url),
        fetched_at=page.fetched_at or datetime.now(UTC).isoformat(timespec="seconds"),
        extractor=extractor.name,
        provenance={"pagesight": PAGESIGHT_VERSION},
    )
    add_extractor_provenance(item.provenance, extractor)
    if page.html is None:
        item.status, item.error = STATUS_ERROR, page.error
    else:
        try:
            extraction = extractor.extract(
                Page(html=page.html, url=page.url, page_type=None if page_type == "auto" else page_type)
            )
        except Exception as error:  # one page's failure is its line, not the batch's end
            item.status, item.error = STATUS_ERROR, f"extract: {type(error).__name__}: {error}"
        else:
            if extraction is None:
                item.warnings.append(f"extract: {extractor.name} found no main content")
            else:
                apply_extraction(item, extraction)
    if item.status == STATUS_OK and item.text and item.text.strip():
        fingerprint = text_fingerprint(item.text)
        item.simhash = f"{fingerprint:016x}"
        if index is not None:
            item.near_duplicate_of = index.add(fingerprint, item.url)
    return {name: getattr(item, name) for name in FEED_FIELDS}


def record_failure(record: Mapping[str, Any]) -> str | None:
    """Why a feed record counts as a failed page (its error, or no main content found),
    or None: a page fails alike alone, in a folder or in a WARC file."""
    if record["status"] == STATUS_ERROR:
        return str(record["error"])
    if record["text"] is None:
        return "no main content found"
    return None


def format_record(record: Mapping[str, Any], output_format: str) -> str:
    """One page's output: its feed line (JSON on one line, as in a feed), or its plain
    text or Markdown ("" when nothing was found)."""
    if output_format == "json":
        return json.dumps(record, ensure_ascii=False)
    if output_format in ("text", "markdown"):
        return str(record[output_format] or "")
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {output_format!r}")


def discard_stdout() -> None:
    """Once the reader of standard output has gone (``… | head``): point it at the null
    device, so that Python's flush at exit raises no second BrokenPipeError."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _fetch(url: str, timeout: float, user_agent: str) -> str:
    request = urllib.request.Request(url, headers={"User-Agent": user_agent, "Accept": "text/html,*/*;q=0.5"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
            headers: Message = response.headers
    except urllib.error.HTTPError as error:
        raise SourceError(f"cannot fetch {url}: HTTP {error.code} {error.reason}") from error
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise SourceError(f"cannot fetch {url}: {reason}") from error
    refuse_non_html(body, url)
    return decode_html(body, headers.get_content_charset())
