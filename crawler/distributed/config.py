"""The distributed crawl's settings, read once, and the connection to its Redis (redis and
scrapy-redis are imported only when a crawl has one: a one-process crawl never loads them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy.settings import BaseSettings

if TYPE_CHECKING:
    import redis


@dataclass(frozen=True)
class RedisConfig:
    """``PAGESIGHT_REDIS_*``: where the shared frontier lives, how long a lease lasts and
    how long the frontier must stay drained before a worker finishes."""

    url: str
    lease_seconds: float
    idle_close_seconds: float

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> RedisConfig:
        config = cls(
            url=settings.get("PAGESIGHT_REDIS_URL"),
            lease_seconds=settings.getfloat("PAGESIGHT_REDIS_LEASE_SECONDS"),
            idle_close_seconds=settings.getfloat("PAGESIGHT_REDIS_IDLE_CLOSE_SECONDS"),
        )
        if config.lease_seconds <= 0:
            raise ValueError(f"PAGESIGHT_REDIS_LEASE_SECONDS must be > 0, got {config.lease_seconds}")
        if config.idle_close_seconds < 0:
            raise ValueError(
                f"PAGESIGHT_REDIS_IDLE_CLOSE_SECONDS must be >= 0, got {config.idle_close_seconds}"
            )
        return config


def redis_from_settings(settings: BaseSettings) -> redis.Redis | None:
    """A client of the crawl's Redis (``PAGESIGHT_REDIS_URL``), or None when the crawl
    runs in one process. Components that want shared state (a duplicate index, a cache)
    call this from their ``from_crawler`` and fall back to memory on None."""
    url = RedisConfig.from_settings(settings).url
    if not url:
        return None
    from scrapy_redis.connection import get_redis

    client: redis.Redis = get_redis(
        url=url, socket_timeout=30, socket_connect_timeout=10, retry_on_timeout=True
    )
    return client
