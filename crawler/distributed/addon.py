"""Switches a crawl to the shared Redis frontier when ``PAGESIGHT_REDIS_URL`` is set."""

from __future__ import annotations

from scrapy.settings import BaseSettings

from crawler.distributed.config import RedisConfig


class DistributedAddon:
    """Sets scrapy-redis' scheduler settings (our ``LeaseScheduler`` and ``LeaseQueue``,
    scrapy-redis' duplicate filter, a frontier that persists when a worker leaves, stats
    shared in Redis) from
    ``PAGESIGHT_REDIS_URL``; nothing when it is empty. A Redis it cannot reach stops the
    crawl at the door (``scrapy crawl`` prints one line)."""

    def update_settings(self, settings: BaseSettings) -> None:
        config = RedisConfig.from_settings(settings)
        if not config.url:
            return
        import redis

        try:
            redis.Redis.from_url(config.url, socket_connect_timeout=10).ping()
        except (redis.RedisError, ValueError) as error:  # ValueError: not a redis:// URL
            raise ValueError(
                f"PAGESIGHT_REDIS_URL {config.url}: cannot reach Redis ({error}); start one with `make redis`"
            ) from error
        settings.set("SCHEDULER", "crawler.distributed.scheduler.LeaseScheduler", priority="addon")
        settings.set("SCHEDULER_QUEUE_CLASS", "crawler.distributed.queue.LeaseQueue", priority="addon")
        settings.set("DUPEFILTER_CLASS", "scrapy_redis.dupefilter.RFPDupeFilter", priority="addon")
        settings.set("SCHEDULER_PERSIST", True, priority="addon")
        settings.set("REDIS_URL", config.url, priority="addon")
        settings.set("STATS_CLASS", "crawler.distributed.stats.SharedStatsCollector", priority="addon")
