"""The near-duplicate pipeline: each ok line's text → its 64-bit simhash, and the URL of
an earlier page of the crawl within PAGESIGHT_NEARDUP_DISTANCE bits (the index is
:mod:`pipelines.neardup`; in a distributed crawl its tables are in the crawl's Redis, so
a page is compared with every worker's pages)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from crawler.distributed import redis_from_settings
from crawler.distributed.neardup import NEARDUP_KEY, RedisFingerprintStore
from crawler.items import STATUS_OK, PageItem
from pipelines.evaluation.scoring import text_fingerprint
from pipelines.neardup import NearDuplicateIndex

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class NearDuplicateConfig:
    """The near-duplicate pipeline's settings, read once."""

    enabled: bool
    distance: int

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> NearDuplicateConfig:
        return cls(
            enabled=settings.getbool("PAGESIGHT_NEARDUP_ENABLED"),
            distance=settings.getint("PAGESIGHT_NEARDUP_DISTANCE"),
        )


class NearDuplicatePipeline:
    """Fingerprints every ok line with text; flags one within the distance of an earlier one."""

    def __init__(self, crawler: Crawler, index: NearDuplicateIndex):
        self.crawler = crawler
        self.index = index

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> NearDuplicatePipeline:
        config = NearDuplicateConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("PAGESIGHT_NEARDUP_ENABLED is off")
        client = redis_from_settings(crawler.settings)
        if client is None:
            return cls(crawler, NearDuplicateIndex(config.distance))
        # The tables' layout depends on the distance: workers that disagree do not mix.
        prefix = f"{NEARDUP_KEY % {'spider': crawler.spidercls.name}}:{config.distance}"
        logger.info("near-duplicate tables shared in Redis under %s:*", prefix)
        return cls(crawler, NearDuplicateIndex(config.distance, RedisFingerprintStore(client, prefix)))

    def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.status != STATUS_OK or not item.text or not item.text.strip():
            return item
        fingerprint = text_fingerprint(item.text)
        item.simhash = f"{fingerprint:016x}"
        item.near_duplicate_of = self.index.add(fingerprint, item.url)
        if item.near_duplicate_of is not None:
            self.crawler.stats.inc_value("pagesight/neardup/flagged")
            logger.info("near-duplicate: %s of %s", item.url, item.near_duplicate_of)
        return item
