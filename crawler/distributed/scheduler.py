"""scrapy-redis' scheduler with leases: a request is acknowledged only after its feed
line is written (and flushed), leases of the living are renewed, leases of the dead
expire and their requests are crawled again, and a worker finishes once the shared
frontier has stayed empty, with no lease outstanding, for a set time."""

from __future__ import annotations

import logging
import time
from typing import Any

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider
from scrapy.extensions.feedexport import FeedExporter
from scrapy_redis.scheduler import Scheduler
from twisted.internet.task import LoopingCall

from crawler.distributed.config import RedisConfig
from crawler.distributed.meta import LEASE_META_KEY
from crawler.distributed.queue import LeaseQueue

logger = logging.getLogger(__name__)


class LeaseScheduler(Scheduler):  # type: ignore[misc]
    """Set by ``DistributedAddon`` with ``SCHEDULER_QUEUE_CLASS`` =
    ``crawler.distributed.queue.LeaseQueue``. Stats: ``pagesight/distributed/acked``,
    ``…/put_back`` (expired leases requeued), ``…/orphaned`` (requests that ended
    without an item, acknowledged when the worker went idle)."""

    queue: LeaseQueue
    crawler: Crawler
    config: RedisConfig
    drained_since: float | None  # when the frontier was last seen drained (monotonic)
    renewal: LoopingCall

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LeaseScheduler:
        scheduler: LeaseScheduler = super().from_crawler(crawler)
        scheduler.crawler = crawler
        scheduler.config = RedisConfig.from_settings(crawler.settings)
        scheduler.drained_since = None
        scheduler.renewal = LoopingCall(scheduler.keep_leases)
        crawler.signals.connect(scheduler.item_done, signal=signals.item_scraped)
        crawler.signals.connect(scheduler.item_failed, signal=signals.item_dropped)
        crawler.signals.connect(scheduler.item_failed, signal=signals.item_error)
        crawler.signals.connect(scheduler.spider_idle, signal=signals.spider_idle)
        return scheduler

    def open(self, spider: Spider) -> None:
        super().open(spider)
        if not isinstance(self.queue, LeaseQueue):
            raise ValueError(
                "LeaseScheduler needs SCHEDULER_QUEUE_CLASS = crawler.distributed.queue.LeaseQueue"
            )
        self.queue.lease_seconds = self.config.lease_seconds
        self.renewal.start(self.config.lease_seconds / 3, now=False)
        logger.info(
            "Distributed crawl on %s as worker %s: %d queued, %d leased",
            self.config.url,
            self.queue.worker,
            len(self.queue),
            self.queue.outstanding(),
        )

    def close(self, reason: str) -> None:
        if self.renewal.running:
            self.renewal.stop()
        super().close(reason)

    def enqueue_request(self, request: Request) -> bool:
        """Queue a request; a leased one coming back (a retry, a redirect) is queued
        first, then its old lease acknowledged: it is never out of Redis."""
        lease = request.meta.pop(LEASE_META_KEY, None)
        queued: bool = super().enqueue_request(request)
        if lease is not None:
            self.queue.ack(lease)
        return queued

    def keep_leases(self) -> None:
        self.queue.renew()
        put_back = self.queue.put_back_expired()
        if put_back:
            self.stats.inc_value("pagesight/distributed/put_back", put_back)
            logger.info("Put back %d requests whose lease expired (their worker stopped)", put_back)

    def item_done(self, item: Any, response: Any, spider: Spider) -> None:
        """After the feed exporter wrote the line (its handler was connected first):
        flush the feeds, then acknowledge the lease."""
        request = getattr(response, "request", None)
        lease = None if request is None else request.meta.get(LEASE_META_KEY)
        if lease is None:
            return
        self.flush_feeds()
        self.queue.ack(lease)
        self.stats.inc_value("pagesight/distributed/acked")

    def item_failed(self, item: Any, response: Any, spider: Spider, **kwargs: Any) -> None:
        """A dropped or failed item has no line to wait for: acknowledge it."""
        request = getattr(response, "request", None)
        lease = None if request is None else request.meta.get(LEASE_META_KEY)
        if lease is not None:
            self.queue.ack(lease)

    def flush_feeds(self) -> None:
        """Push the written lines out of Python's buffers, so that a SIGKILL after the
        acknowledgement cannot lose them."""
        for extension in self.crawler.extensions.middlewares:
            if isinstance(extension, FeedExporter):
                for slot in extension.slots:
                    if slot.file is not None:
                        slot.file.flush()

    def spider_idle(self, spider: Spider) -> None:
        """Keep the worker until the shared frontier has been empty with no lease
        outstanding for ``PAGESIGHT_REDIS_IDLE_CLOSE_SECONDS``."""
        if self.queue.held:  # idle engine: these requests ended without an item
            self.stats.inc_value("pagesight/distributed/orphaned", len(self.queue.held))
            for lease in list(self.queue.held):
                self.queue.ack(lease)
        self.keep_leases()
        if len(self.queue) or self.queue.outstanding():
            self.drained_since = None
            raise DontCloseSpider
        now = time.monotonic()
        if self.drained_since is None:
            self.drained_since = now
        if now - self.drained_since < self.config.idle_close_seconds:
            raise DontCloseSpider
        logger.info(
            "The shared frontier has been empty with no lease outstanding for %.0f s: finished",
            now - self.drained_since,
        )
