"""The extraction pipeline: rendered HTML + page type + boxes + screenshot → title, text,
items, metadata."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

import pipelines.extraction  # noqa: F401  (registers the built-in extractors)
from crawler.items import PARTIAL_LOAD_WARNING, PageCapture, PageItem
from models.pagetype.labels import LabelMapping
from pipelines.evaluation.scoring import page_type_label, page_type_mapping
from pipelines.extraction.encoding import decode_html
from pipelines.extraction.page import PAGE_TYPES, Extraction, Extractor, Page
from pipelines.extraction.partial import RenderShortfall, render_shortfall
from pipelines.extraction.registry import build_extractor
from pipelines.feedline import add_extractor_provenance, apply_extraction, settle_page_kind
from pipelines.steps import record_step_failure

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ExtractConfig:
    """The extraction pipeline's settings, read once."""

    enabled: bool
    extractor: str
    forced_page_type: str | None
    label_mapping: LabelMapping

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> ExtractConfig:
        forced = settings.get("PAGESIGHT_PAGE_TYPE") or None
        if forced is not None and forced not in PAGE_TYPES:
            raise ValueError(
                f"PAGESIGHT_PAGE_TYPE must be one of {', '.join(PAGE_TYPES)} or empty, got {forced!r}"
            )
        return cls(
            enabled=settings.getbool("PAGESIGHT_EXTRACT_ENABLED"),
            extractor=settings.get("PAGESIGHT_EXTRACTOR"),
            forced_page_type=forced,
            label_mapping=page_type_mapping(settings),
        )


class ExtractPipeline:
    """Runs the extractor named by PAGESIGHT_EXTRACTOR (built once from the settings) on
    each captured page, off the reactor thread. PAGESIGHT_PAGE_TYPE forces a page type
    instead of the classifier's. Items without a capture (errors, skipped pages) pass
    through untouched; an extractor that finds nothing or raises leaves a warning."""

    def __init__(self, crawler: Crawler, extractor: Extractor, config: ExtractConfig):
        self.crawler = crawler
        self.extractor = extractor
        self.config = config

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ExtractPipeline:
        config = ExtractConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("PAGESIGHT_EXTRACT_ENABLED is off")
        return cls(crawler, build_extractor(config.extractor, crawler.settings), config)

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.capture is None:
            return item
        page_type = self.config.forced_page_type or page_type_label(self.config.label_mapping, item.page_type)
        html: str = item.capture.html
        boxes: list[dict[str, Any]] | None = item.capture.boxes
        stats = self.crawler.stats
        try:  # two documents parsed when the render was cut off: off the reactor thread
            sent_html = await asyncio.to_thread(_sent_html_if_render_fell_short, item.capture)
        except Exception as error:  # one page's failure must not lose its line
            record_step_failure(item, "extract", error, stats)
            return item
        if sent_html is not None:
            html, boxes = sent_html.html, None
            reason = (
                f"extract: render cut off ({sent_html.shortfall.rendered} of {sent_html.shortfall.sent} "
                "words), extracted from the server's bytes"
            )
            if not self.config.forced_page_type and item.page_type is not None:
                # The classifier saw the cut-off render: its type says nothing of the bytes.
                page_type, item.page_type, item.page_type_score = None, None, None
                reason += ", page type from their HTML"
            item.page_kind_probabilities = None  # read off the same cut-off render
            settle_page_kind(item)
            item.warnings.append(reason)
            stats.inc_value("pagesight/extract/from_sent_bytes")
        page = Page(
            html=html,
            url=item.url,
            page_type=page_type if page_type in PAGE_TYPES else None,
            boxes=boxes,
            screenshot=item.capture.screenshot_png,
        )
        item.extractor = self.extractor.name
        add_extractor_provenance(item.provenance, self.extractor)
        started = time.perf_counter()
        try:
            extraction: Extraction | None = await asyncio.to_thread(self.extractor.extract, page)
        except Exception as error:  # one page's failure must not lose its line
            record_step_failure(item, "extract", error, stats)
            return item
        finally:
            item.timings_ms["extract"] = round((time.perf_counter() - started) * 1000, 1)
        if extraction is None:
            item.warnings.append(f"extract: {self.extractor.name} found no main content")
            stats.inc_value("pagesight/extract/empty")
            return item
        apply_extraction(item, extraction)
        stats.inc_value("pagesight/extract/ok")
        stats.inc_value(f"pagesight/extract/{extraction.page_type}")
        return item


@dataclass(frozen=True)
class _SentHtml:
    html: str
    shortfall: RenderShortfall


def _sent_html_if_render_fell_short(capture: PageCapture) -> _SentHtml | None:
    """The server's document, decoded, when the render was cut off at the load deadline
    before most of its text (``pipelines/extraction/partial.py``)."""
    if PARTIAL_LOAD_WARNING not in capture.warnings or not capture.raw_html:
        return None
    sent = decode_html(capture.raw_html, capture.encoding)
    shortfall = render_shortfall(capture.html, sent)
    return None if shortfall is None else _SentHtml(sent, shortfall)
