"""The classification pipeline: screenshot → page_type, page_type_score."""

from __future__ import annotations

import asyncio
import logging
import time

import torch
from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from crawler.items import PageItem
from models.checkpoint import load_classifier
from models.classifier import PageTypeClassifier

logger = logging.getLogger(__name__)


class ClassifyPipeline:
    """Loads the page-type model once per crawl and classifies every captured page in a
    worker thread. A missing or broken checkpoint stops the crawl at start-up
    (CheckpointError), never mid-crawl. Items without a screenshot pass through."""

    def __init__(self, crawler: Crawler, classifier: PageTypeClassifier):
        self.crawler = crawler
        self.classifier = classifier

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ClassifyPipeline:
        settings = crawler.settings
        if not settings.getbool("PAGESIGHT_CLASSIFY_ENABLED", True):
            raise NotConfigured("PAGESIGHT_CLASSIFY_ENABLED is off")
        if settings.get("PAGESIGHT_PAGE_TYPE"):
            raise NotConfigured("PAGESIGHT_PAGE_TYPE forces the page type")
        path = settings.get("PAGESIGHT_CLASSIFIER_CHECKPOINT")
        torch.set_num_threads(settings.getint("PAGESIGHT_CLASSIFIER_THREADS", 1))
        classifier = load_classifier(path, device=settings.get("PAGESIGHT_CLASSIFIER_DEVICE", "cpu"))
        logger.info("Page-type classifier: %s %s from %s", classifier.model_name, classifier.labels, path)
        return cls(crawler, classifier)

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.capture is None:
            return item
        started = time.perf_counter()
        label, score = await asyncio.to_thread(
            self.classifier.predict_page, item.capture.screenshot_png, item.capture.boxes
        )
        item.timings_ms["classify"] = round((time.perf_counter() - started) * 1000, 1)
        item.page_type = label
        item.page_type_score = round(score, 4)
        self.crawler.stats.inc_value(f"pagesight/classify/{label}")
        return item
