"""Crawl with many worker processes over one Redis: a shared frontier (scrapy-redis'
priority queue and duplicate filter) whose requests are taken under leases and
acknowledged only after their feed line is written, shared stats, and a defined finish.

``PAGESIGHT_REDIS_URL`` switches it on (``DistributedAddon``); ``redis_from_settings``
is the one way to reach the crawl's Redis from other components (e.g. a near-duplicate
index with a Redis backend)."""

from crawler.distributed.config import RedisConfig, redis_from_settings

__all__ = ["RedisConfig", "redis_from_settings"]
