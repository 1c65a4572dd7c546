"""The classification pipeline: screenshot → page_type, page_type_score."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from crawler.items import PageItem
from models.pagetype.classifier import PageTypeClassifier
from pipelines.extraction.metadata import page_address
from pipelines.steps import record_step_failure
from pipelines.version import short_hash

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ClassifyConfig:
    """Whether to classify, read once (the classifier reads its own settings:
    :class:`models.pagetype.classifier.ClassifierConfig`)."""

    enabled: bool
    forced_page_type: str
    min_score: float

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> ClassifyConfig:
        return cls(
            enabled=settings.getbool("PAGESIGHT_CLASSIFY_ENABLED"),
            forced_page_type=settings.get("PAGESIGHT_PAGE_TYPE"),
            min_score=settings.getfloat("PAGESIGHT_CLASSIFIER_MIN_SCORE"),
        )


class ClassifyPipeline:
    """Loads the page-type model once per crawl and classifies every captured page in a
    worker thread. A missing or broken checkpoint stops the crawl at start-up
    (CheckpointError), never mid-crawl. Items without a screenshot pass through; a
    failure on one page is a warning on its line. A page whose probability is below
    PAGESIGHT_CLASSIFIER_MIN_SCORE keeps no page type: the extractor's HTML fallback
    decides it."""

    def __init__(
        self, crawler: Crawler, classifier: PageTypeClassifier, checkpoint_hash: str, min_score: float
    ):
        self.crawler = crawler
        self.classifier = classifier
        self.checkpoint_hash = checkpoint_hash
        self.min_score = min_score

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ClassifyPipeline:
        config = ClassifyConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("PAGESIGHT_CLASSIFY_ENABLED is off")
        if config.forced_page_type:
            raise NotConfigured("PAGESIGHT_PAGE_TYPE forces the page type")
        classifier = PageTypeClassifier.from_settings(crawler.settings)
        logger.info(
            "Page-type classifier: %s %s from %s",
            classifier.model_name,
            classifier.labels,
            classifier.checkpoint,
        )
        return cls(crawler, classifier, short_hash(classifier.checkpoint), config.min_score)

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.capture is None:
            return item
        started = time.perf_counter()
        try:
            label, score = await asyncio.to_thread(
                self.classifier.predict_page,
                item.capture.screenshot_png,
                item.capture.boxes,
                page_address(item.capture.html, item.capture.final_url or item.url),
            )
        except Exception as error:  # one page's failure must not lose its line
            record_step_failure(item, "classify", error, self.crawler.stats)
            return item
        item.timings_ms["classify"] = round((time.perf_counter() - started) * 1000, 1)
        item.provenance.setdefault("checkpoints", {})["classifier"] = self.checkpoint_hash
        if score < self.min_score:
            logger.debug("Page type left to the HTML: %s is %s at %.3f only", item.url, label, score)
            self.crawler.stats.inc_value("pagesight/classify/unsure")
            return item
        item.page_type = label
        item.page_type_score = round(score, 4)
        self.crawler.stats.inc_value(f"pagesight/classify/{label}")
        return item
