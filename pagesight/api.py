"""The Python API: :func:`extract`, one page's HTML to the record the crawl writes as one
feed line (``crawler.items.FEED_FIELDS``), the same record ``pagesight extract`` prints."""

from __future__ import annotations

from functools import cache
from typing import Any

from scrapy.settings import Settings

from pipelines.extraction import build_extractor
from pipelines.extraction.page import Extractor
from pipelines.extraction.sources import SourcePage, page_of_bytes
from pipelines.extraction.standalone import feed_record


def extract(
    html: str | bytes, url: str | None = None, *, extractor: str | None = None, page_type: str = "auto"
) -> dict[str, Any]:
    """The feed record of the page ``html`` (bytes are decoded as the crawl decodes them,
    and are an error line when they are no HTML), whose relative links resolve against
    ``url``. ``extractor`` (default: the project's ``PAGESIGHT_EXTRACTOR``) is built once
    per process and name: its checkpoints load on the first call. ``page_type`` is
    article, list, or auto to decide from the HTML. A page where nothing is found is a
    record with ``text`` None and the crawl's warning, as in the feed."""
    page_url = url or ""
    page = page_of_bytes(page_url, html) if isinstance(html, bytes) else SourcePage(page_url, html)
    return feed_record(page, _extractor(extractor or _settings().get("PAGESIGHT_EXTRACTOR")), page_type)


@cache
def _settings() -> Settings:
    """The project's settings (``settings``), as the ``pagesight`` command reads them."""
    settings = Settings()
    settings.setmodule("settings", priority="project")
    return settings


@cache
def _extractor(name: str) -> Extractor:
    return build_extractor(name, _settings())
