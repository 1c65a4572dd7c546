"""``scrapy crawl``, with errors at the door: a bad argument or setting (a start URL
that is not a URL, a missing URL file, a broken checkpoint or gold file, a missing
extractor package, no Chromium) prints one line saying what is wrong and exits 2; the
traceback is logged at DEBUG level only."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.crawler import Crawler

from crawler.browser import BrowserNotFound

logger = logging.getLogger(__name__)

#: Exit status of a crawl refused at start-up (a usage error, as Scrapy's own).
STARTUP_ERROR_EXIT = 2


class Command(ScrapyCrawlCommand):
    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            super().run(args, opts)  # Scrapy's usage errors
            return
        assert self.crawler_process
        errors = startup_errors()
        try:
            crawler = self._create_crawler(args[0])
        except errors as error:
            self.refuse(error)
            return
        refused: list[BaseException] = []
        guard_startup(crawler, errors, refused)
        self.crawler_process.crawl(crawler, **opts.spargs)
        self.crawler_process.start()
        if refused:
            self.refuse(refused[0])
        elif self.crawler_process.bootstrap_failed:
            self.exitcode = 1

    def refuse(self, error: BaseException) -> None:
        logger.debug("The crawl could not start", exc_info=error)
        lines = str(error).strip().splitlines() or [type(error).__name__]
        print(f"Error: {lines[0]}", file=sys.stderr)
        self.exitcode = STARTUP_ERROR_EXIT


def startup_errors() -> tuple[type[BaseException], ...]:
    """What a crawl's start-up raises for bad input or configuration (torch is imported
    only by the components that load a model)."""
    from models.errors import CheckpointError

    return (ValueError, OSError, ImportError, CheckpointError, BrowserNotFound)


def guard_startup(
    crawler: Crawler, errors: tuple[type[BaseException], ...], refused: list[BaseException]
) -> None:
    """Wrap the crawler's start so that a start-up error is kept in ``refused`` instead
    of escaping into the event loop (where asyncio prints it as a 30-line traceback)."""
    crawl_async = crawler.crawl_async

    async def crawl_or_refuse(*args: Any, **kwargs: Any) -> None:
        try:
            await crawl_async(*args, **kwargs)
        except errors as error:
            refused.append(error)

    crawler.crawl_async = crawl_or_refuse  # type: ignore[method-assign]
