"""``scrapy crawl``, with errors at the door: a bad argument or setting (an unknown or
misspelled ``-a`` name, a start URL that is not a URL, a missing URL file, a broken
checkpoint or gold file, a missing extractor package, no Chromium) prints one line saying
what is wrong and exits 2; the traceback is logged at DEBUG level only.

The spider's arguments are checked before anything is logged. Scrapy's start-up log (its
banner, versions, overridden settings and components: 15-109 lines) is held back until
the engine has started, so that a refused crawl shows its one line alone; with
``LOG_LEVEL=DEBUG`` the held lines are written on refusal too."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from scrapy import signals
from scrapy.commands.crawl import Command as ScrapyCrawlCommand
from scrapy.crawler import AsyncCrawlerProcess, Crawler, CrawlerProcess
from scrapy.settings import BaseSettings
from scrapy.spiderloader import get_spider_loader
from scrapy.utils.log import get_scrapy_root_handler, install_scrapy_root_handler
from scrapy.utils.reactor import _asyncio_reactor_path

from crawler.browser import BrowserNotFound
from crawler.commands import use_help_formatter

logger = logging.getLogger(__name__)

#: Exit status of a crawl refused at start-up (a usage error, as Scrapy's own).
STARTUP_ERROR_EXIT = 2


class Command(ScrapyCrawlCommand):
    # The process is made in run(), once the spider's arguments are known to be good
    # and with the start-up log held back (see the module docstring).
    requires_crawler_process = False

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        use_help_formatter(parser)

    def long_desc(self) -> str:
        from crawler.spiders.news import SPIDER_ARGUMENTS

        width = max(map(len, SPIDER_ARGUMENTS))
        arguments = "\n".join(
            f"  -a {name + '=…':<{width + 2}}  {what}" for name, what in SPIDER_ARGUMENTS.items()
        )
        return f"{super().long_desc()}.\n\nThe news spider's arguments (-a NAME=VALUE):\n\n{arguments}"

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            super().run(args, opts)  # Scrapy's usage errors
            return
        errors = startup_errors()
        try:
            check_spider_arguments(self.settings, args[0], opts.spargs)
        except errors as error:
            self.refuse(error)
            return
        held = HeldLog()
        logging.root.addHandler(held)
        self.crawler_process = crawler_process(self.settings)
        try:
            crawler = self._create_crawler(args[0])
        except errors as error:
            held.forget(self.settings)
            self.refuse(error)
            return
        crawler.signals.connect(
            lambda: held.let_through(self.settings), signal=signals.engine_started, weak=False
        )
        refused: list[BaseException] = []
        guard_startup(crawler, errors, refused)
        self.crawler_process.crawl(crawler, **opts.spargs)
        self.crawler_process.start()
        if refused:
            held.forget(self.settings)
            self.refuse(refused[0])
            return
        held.let_through(self.settings)
        if self.crawler_process.bootstrap_failed:
            self.exitcode = 1

    def refuse(self, error: BaseException) -> None:
        logger.debug("The crawl could not start", exc_info=error)
        lines = str(error).strip().splitlines() or [type(error).__name__]
        print(f"Error: {lines[0]}", file=sys.stderr)
        self.exitcode = STARTUP_ERROR_EXIT


def check_spider_arguments(settings: BaseSettings, spider_name: str, arguments: dict[str, Any]) -> None:
    """Make the spider once from its ``-a`` arguments alone, before anything is logged:
    its ``__init__`` refuses an unknown name or a bad value (ValueError). An unknown
    spider is left to Scrapy's own message."""
    try:
        spidercls = get_spider_loader(settings).load(spider_name)
    except KeyError:
        return
    spidercls(**arguments)


def crawler_process(settings: BaseSettings) -> CrawlerProcess | AsyncCrawlerProcess:
    """The process Scrapy's command line would make, without its root log handler (the
    caller's :class:`HeldLog` stands in until the engine starts)."""
    settings.set("LOG_INSTALL_ROOT_HANDLER", False, priority="cmdline")
    if (
        settings["TWISTED_REACTOR"] == _asyncio_reactor_path and not settings.getbool("FORCE_CRAWLER_PROCESS")
    ) or not settings.getbool("TWISTED_REACTOR_ENABLED"):
        return AsyncCrawlerProcess(settings)
    return CrawlerProcess(settings)


class HeldLog(logging.Handler):
    """Keeps every log record until :meth:`let_through` (the engine started: Scrapy's root
    handler is installed and the records go to it in order) or :meth:`forget` (the crawl
    was refused: they are forgotten, unless the log level is DEBUG)."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[logging.LogRecord] = []
        self.done = False

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def let_through(self, settings: BaseSettings) -> None:
        if self.done:
            return
        self.done = True
        logging.root.removeHandler(self)
        if settings.getbool("LOG_ENABLED"):
            install_scrapy_root_handler(settings)
        handler = get_scrapy_root_handler()
        for record in self.records if handler is not None else ():
            if record.levelno >= handler.level:
                handler.handle(record)
        self.records.clear()

    def forget(self, settings: BaseSettings) -> None:
        if logging.getLevelName(settings.get("LOG_LEVEL")) > logging.DEBUG:
            self.records.clear()
        self.let_through(settings)


def startup_errors() -> tuple[type[BaseException], ...]:
    """What a crawl's start-up raises for bad input or configuration (torch is imported
    only by the components that load a model)."""
    from models.common.checkpoint import CheckpointError

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
