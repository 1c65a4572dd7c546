"""Extraction of one page outside a crawl (``scrapy extract``): read an HTML file or fetch
a URL, extract, format the result.

A URL is fetched as raw HTML with urllib: no browser, so content that scripts build is
missing. The crawl renders pages; use it for script-built sites.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pipelines.artifacts import ArtifactError, read_local_artifact
from pipelines.extraction.encoding import decode_html, non_html_reason
from pipelines.extraction.page import Extraction, Extractor, Page

FORMATS = ("json", "text", "markdown")
PAGE_TYPE_CHOICES = ("article", "list", "auto")


class SourceError(Exception):
    """A file that cannot be read, a URL that cannot be fetched, or bytes that are not HTML."""


def read_source(source: str, timeout: float = 30.0, user_agent: str = "PageSight") -> tuple[str, str]:
    """HTML text and page URL of ``source``: an HTML file (``.gz`` too), a ``file://`` URI
    or an http(s) URL. A file's page URL is "" (links stay as written)."""
    scheme = urlsplit(source).scheme.lower()
    if scheme in ("http", "https"):
        return _fetch(source, timeout, user_agent), source
    path = Path(unquote(urlsplit(source).path) if scheme == "file" else source)
    try:
        body = read_local_artifact(path)
    except ArtifactError as error:
        raise SourceError(str(error)) from error
    refuse_non_html(body, str(path))
    return decode_html(body), ""


def refuse_non_html(body: bytes, where: str) -> None:
    """SourceError when ``body`` is not an HTML document."""
    reason = non_html_reason(body)
    if reason is not None:
        raise SourceError(f"{where} is {reason}: give an HTML file (.html or .html.gz) or an http(s) URL")


def extract_source(
    source: str,
    extractor: Extractor,
    page_type: str = "auto",
    url: str | None = None,
    timeout: float = 30.0,
    user_agent: str = "PageSight",
) -> Extraction | None:
    """Extract one page with ``extractor``; ``page_type`` "auto" lets the extractor decide,
    ``url`` overrides the page URL that relative links resolve against."""
    if page_type not in PAGE_TYPE_CHOICES:
        raise ValueError(f"page type must be one of {', '.join(PAGE_TYPE_CHOICES)}, got {page_type!r}")
    html, source_url = read_source(source, timeout, user_agent)
    page = Page(html=html, url=url or source_url, page_type=None if page_type == "auto" else page_type)
    return extractor.extract(page)


def format_extraction(extraction: Extraction, output_format: str) -> str:
    """The extraction as pretty JSON, its plain text, or its Markdown."""
    if output_format == "json":
        return json.dumps(extraction.to_dict(), ensure_ascii=False, indent=2)
    if output_format == "text":
        return extraction.text
    if output_format == "markdown":
        return extraction.markdown
    raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {output_format!r}")


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
