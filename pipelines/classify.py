"""The classification pipeline: screenshot, boxes, address and HTML → page_type,
page_type_score, and the kind classifier's probabilities behind page_kind and
page_kind_score (:mod:`models.pagetype.kinds`)."""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from crawler.items import PageCapture, PageItem
from models.common.checkpoint import CheckpointError
from models.pagetype.classifier import SHIPPED_KIND_CHECKPOINT, PageTypeClassifier, load_classifier
from models.pagetype.kinds import KindLabelsError, check_kind_labels
from pipelines.extraction.metadata import page_address
from pipelines.feedline import settle_page_kind
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
    #: The kind classifier's checkpoint; "" for none (PAGESIGHT_PAGE_KIND_ENABLED off).
    kind_checkpoint: str

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> ClassifyConfig:
        kinds = settings.getbool("PAGESIGHT_PAGE_KIND_ENABLED")
        return cls(
            enabled=settings.getbool("PAGESIGHT_CLASSIFY_ENABLED"),
            forced_page_type=settings.get("PAGESIGHT_PAGE_TYPE"),
            min_score=settings.getfloat("PAGESIGHT_CLASSIFIER_MIN_SCORE"),
            kind_checkpoint=(settings.get("PAGESIGHT_PAGE_KIND_CHECKPOINT") or str(SHIPPED_KIND_CHECKPOINT))
            if kinds
            else "",
        )


class ClassifyPipeline:
    """Loads the page-type model (and the kind model) once per crawl and classifies every
    captured page in a worker thread. A missing or broken checkpoint stops the crawl at
    start-up (CheckpointError), never mid-crawl. Items without a screenshot pass through;
    a failure on one page is a warning on its line. A page whose probability is below
    PAGESIGHT_CLASSIFIER_MIN_SCORE keeps no page type: the extractor's HTML fallback
    decides it, and the page kind follows the type then
    (:func:`pipelines.feedline.settle_page_kind`)."""

    def __init__(
        self,
        crawler: Crawler,
        classifier: PageTypeClassifier,
        checkpoint_hash: str,
        min_score: float,
        kind_classifier: PageTypeClassifier | None = None,
    ):
        self.crawler = crawler
        self.classifier = classifier
        self.checkpoint_hash = checkpoint_hash
        self.min_score = min_score
        self.kind_classifier = kind_classifier
        self.kind_hash = short_hash(kind_classifier.checkpoint) if kind_classifier is not None else None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ClassifyPipeline:
        config = ClassifyConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("PAGESIGHT_CLASSIFY_ENABLED is off")
        if config.forced_page_type:
            raise NotConfigured("PAGESIGHT_PAGE_TYPE forces the page type")
        classifier = PageTypeClassifier.from_settings(crawler.settings)
        kind_classifier = None
        if config.kind_checkpoint:
            kind_classifier = load_classifier(
                config.kind_checkpoint, str(classifier.device), "PAGESIGHT_PAGE_KIND_CHECKPOINT"
            )
            try:
                check_kind_labels(kind_classifier.labels, config.kind_checkpoint)
            except KindLabelsError as error:
                raise CheckpointError(str(error)) from None
        for role, model in (("Page-type", classifier), ("Page-kind", kind_classifier)):
            if model is not None:
                logger.info(
                    "%s classifier: %s %s from %s", role, model.model_name, model.labels, model.checkpoint
                )
        return cls(crawler, classifier, short_hash(classifier.checkpoint), config.min_score, kind_classifier)

    def _classify(self, capture: PageCapture, url: str) -> tuple[str, float, str]:
        """The page type, its probability and the page's address (which the kind model
        reads too: one scan of the HTML's head)."""
        address = page_address(capture.html, capture.final_url or url)
        label, score = self.classifier.predict_page(
            capture.screenshot_png, capture.boxes, address, capture.html
        )
        return label, score, address

    @staticmethod
    def _kinds(kind_classifier: PageTypeClassifier, capture: PageCapture, address: str) -> dict[str, float]:
        """Every kind's probability."""
        return kind_classifier.page_probabilities(
            capture.screenshot_png, capture.boxes, address, capture.html
        )

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.capture is None:
            return item
        started = time.perf_counter()
        try:
            label, score, address = await asyncio.to_thread(self._classify, item.capture, item.url)
        except Exception as error:  # one page's failure must not lose its line
            record_step_failure(item, "classify", error, self.crawler.stats)
            return item
        if self.kind_classifier is not None:
            try:  # a kind model's failure costs the line its kind, not its type
                item.page_kind_probabilities = await asyncio.to_thread(
                    self._kinds, self.kind_classifier, item.capture, address
                )
            except Exception as error:
                record_step_failure(item, "page_kind", error, self.crawler.stats)
        item.timings_ms["classify"] = round((time.perf_counter() - started) * 1000, 1)
        checkpoints = item.provenance.setdefault("checkpoints", {})
        checkpoints["classifier"] = self.checkpoint_hash
        if item.page_kind_probabilities is not None:
            checkpoints["page_kind"] = self.kind_hash
        if score < self.min_score:
            logger.debug("Page type left to the HTML: %s is %s at %.3f only", item.url, label, score)
            self.crawler.stats.inc_value("pagesight/classify/unsure")
        else:
            item.page_type = label
            item.page_type_score = round(score, 4)
            self.crawler.stats.inc_value(f"pagesight/classify/{label}")
        settle_page_kind(item)
        if item.page_kind is not None:
            self.crawler.stats.inc_value(f"pagesight/classify/kind/{item.page_kind}")
        return item
