"""The extraction pipeline: rendered HTML + page type + boxes → title, text, items, metadata."""

from __future__ import annotations

import asyncio
import logging
import time

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

import pipelines.extraction  # noqa: F401  (registers the built-in extractors)
from crawler.items import PageItem
from models.labels import DEFAULT_LABEL_MAPPING, LabelMappingError, load_label_mapping
from pipelines.extraction.page import PAGE_TYPES, Extraction, Extractor, Page
from pipelines.extraction.registry import get_extractor

logger = logging.getLogger(__name__)


class ExtractPipeline:
    """Runs the extractor named by PAGESIGHT_EXTRACTOR on each captured page, off the
    reactor thread. PAGESIGHT_PAGE_TYPE forces a page type instead of the classifier's.
    Items without a capture (errors, skipped pages) pass through untouched."""

    def __init__(self, crawler: Crawler, extractor: Extractor, forced_page_type: str | None):
        self.crawler = crawler
        self.extractor = extractor
        self.forced_page_type = forced_page_type

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ExtractPipeline:
        settings = crawler.settings
        if not settings.getbool("PAGESIGHT_EXTRACT_ENABLED", True):
            raise NotConfigured("PAGESIGHT_EXTRACT_ENABLED is off")
        extractor = get_extractor(settings.get("PAGESIGHT_EXTRACTOR", "iawce"))
        forced = settings.get("PAGESIGHT_PAGE_TYPE") or None
        if forced is not None and forced not in PAGE_TYPES:
            raise ValueError(
                f"PAGESIGHT_PAGE_TYPE must be one of {', '.join(PAGE_TYPES)} or empty, got {forced!r}"
            )
        return cls(crawler, extractor, forced)

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.capture is None:
            return item
        page = Page(
            html=item.capture.html,
            url=item.url,
            page_type=self.forced_page_type or _known_page_type(item.page_type),
            boxes=item.capture.boxes,
        )
        started = time.perf_counter()
        extraction: Extraction | None = await asyncio.to_thread(self.extractor.extract, page)
        item.timings_ms["extract"] = round((time.perf_counter() - started) * 1000, 1)
        item.extractor = self.extractor.name
        stats = self.crawler.stats
        if extraction is None:
            item.error = f"extract: {self.extractor.name} found no main content"
            stats.inc_value("pagesight/extract/empty")
            return item
        apply_extraction(item, extraction)
        stats.inc_value("pagesight/extract/ok")
        stats.inc_value(f"pagesight/extract/{extraction.page_type}")
        return item


def apply_extraction(item: PageItem, extraction: Extraction) -> None:
    """Copy an extraction's fields onto the feed item."""
    item.title = extraction.title
    item.text = extraction.text
    item.markdown = extraction.markdown
    item.items = [vars(entry) for entry in extraction.items] or None
    item.author = extraction.author
    item.published = extraction.published
    item.language = extraction.language
    item.canonical_url = extraction.canonical_url
    if item.page_type is None:
        item.page_type = extraction.page_type


_EXTRACTION_TYPES = load_label_mapping(DEFAULT_LABEL_MAPPING)


def _known_page_type(page_type: str | None) -> str | None:
    """The classifier's label as an extraction type (article/list) through the default
    label mapping (WCXB's listing, collection → list); None lets the extractor decide."""
    if page_type is None:
        return None
    try:
        return _EXTRACTION_TYPES.label_of(page_type)
    except LabelMappingError:
        return None
