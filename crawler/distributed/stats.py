"""Stats shared by the workers: each keeps its own (its log, its report), and every
counter it increments is added to one Redis hash, the crawl's totals."""

from __future__ import annotations

from typing import Any

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.statscollectors import MemoryStatsCollector
from scrapy_redis.defaults import STATS_KEY

from crawler.distributed.config import redis_from_settings


class SharedStatsCollector(MemoryStatsCollector):
    """Scrapy's in-memory stats, with every ``inc_value`` also added to the Redis hash
    ``STATS_KEY`` (scrapy-redis' ``%(spider)s:stats``, e.g. ``news:stats``): read the
    whole crawl's counters with ``redis-cli HGETALL news:stats``. Set by
    ``DistributedAddon``. (scrapy-redis' own ``RedisStatsCollector`` stores every stat
    as an integer, which breaks Scrapy's timestamps and elapsed time.)"""

    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        self.server = redis_from_settings(crawler.settings)
        self.key_template: str = crawler.settings.get("STATS_KEY", STATS_KEY)
        self.spider_name: str = crawler.spidercls.name if crawler.spidercls else "scrapy"

    def inc_value(self, key: str, count: int = 1, start: int = 0, spider: Spider | None = None) -> None:
        super().inc_value(key, count, start, spider)
        if self.server is not None and isinstance(count, int):
            self.server.hincrby(self.key_template % {"spider": self.spider_name}, key, count)

    def shared(self) -> dict[str, int]:
        """The crawl's counters, all workers together."""
        if self.server is None:
            return {}
        raw: dict[Any, Any] = self.server.hgetall(self.key_template % {"spider": self.spider_name})
        return {(k.decode() if isinstance(k, bytes) else k): int(v) for k, v in raw.items()}
