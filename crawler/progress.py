"""Progress of a long crawl: pages done and scheduled, pages/s, errors and page types so
far; a live tqdm line on a terminal, a periodic log line otherwise (CI logs)."""

from __future__ import annotations

import logging
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings
from tqdm import tqdm
from twisted.internet.task import LoopingCall

from crawler.items import STATUS_ERROR, PageItem

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ProgressConfig:
    """Seconds between progress log lines (0: off), and whether to draw a live line."""

    interval: float
    live: bool

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> ProgressConfig:
        return cls(
            interval=settings.getfloat("PAGESIGHT_PROGRESS_INTERVAL"),
            live=settings.getbool("PAGESIGHT_PROGRESS_LIVE") and sys.stderr.isatty(),
        )


@dataclass
class Progress:
    """What the crawl has done so far."""

    started: float
    scheduled: int = 0
    done: int = 0
    errors: int = 0
    page_types: Counter[str] | None = None

    def add(self, item: PageItem) -> None:
        self.done += 1
        self.errors += item.status == STATUS_ERROR
        if item.page_type:
            self.page_types = self.page_types or Counter()
            self.page_types[item.page_type] += 1

    def pages_per_s(self, now: float) -> float:
        elapsed = now - self.started
        return self.done / elapsed if elapsed > 0 else 0.0

    def summary(self, now: float) -> str:
        """``12.3 pages/s, 4 errors, article 80, list 20``."""
        types = ", ".join(f"{name} {count}" for name, count in (self.page_types or Counter()).most_common())
        return f"{self.pages_per_s(now):.2f} pages/s, {self.errors} errors" + (f", {types}" if types else "")


class ProgressExtension:
    """Counts scheduled requests (``request_scheduled`` less ``request_dropped``:
    duplicates) and finished pages
    (``item_scraped``); shows them in a tqdm line when stderr is a terminal, else logs
    them every ``PAGESIGHT_PROGRESS_INTERVAL`` seconds."""

    def __init__(self, config: ProgressConfig):
        self.config = config
        self.progress = Progress(started=time.monotonic())
        self.bar: tqdm[Any] | None = None
        self.ticker = LoopingCall(self.log_line)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ProgressExtension:
        config = ProgressConfig.from_settings(crawler.settings)
        if config.interval <= 0:
            raise NotConfigured("PAGESIGHT_PROGRESS_INTERVAL is 0")
        extension = cls(config)
        crawler.signals.connect(extension.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(extension.request_scheduled, signal=signals.request_scheduled)
        crawler.signals.connect(extension.request_dropped, signal=signals.request_dropped)
        crawler.signals.connect(extension.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def spider_opened(self, spider: Spider) -> None:
        self.progress.started = time.monotonic()
        if self.config.live:
            self.bar = tqdm(total=0, unit="page", desc="crawl", dynamic_ncols=True, file=sys.stderr)
        else:
            self.ticker.start(self.config.interval, now=False)

    def request_scheduled(self, request: Request, spider: Spider) -> None:
        self.progress.scheduled += 1
        if self.bar is not None:
            self.bar.total = self.progress.scheduled
            self.bar.refresh()

    def request_dropped(self, request: Request, spider: Spider) -> None:
        """The scheduler refused it (a duplicate): it was counted as scheduled."""
        self.progress.scheduled -= 1

    def item_scraped(self, item: Any, spider: Spider) -> None:
        if not isinstance(item, PageItem):
            return
        self.progress.add(item)
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix_str(self.progress.summary(time.monotonic()), refresh=False)

    def log_line(self) -> None:
        progress = self.progress
        logger.info(
            "Progress: %d pages done of %d scheduled; %s",
            progress.done,
            progress.scheduled,
            progress.summary(time.monotonic()),
        )

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.bar is not None:
            self.bar.close()
        if self.ticker.running:
            self.ticker.stop()
        self.log_line()
