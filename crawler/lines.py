"""One feed line per scheduled page, whatever its spider callback raises.

Scrapy logs a callback's exception ("Spider error processing") and the page's item is
never made, so its URL has no line. :class:`LineGuardMiddleware` (a spider middleware)
turns such an exception on a page request into an error line made by the spider
(``error_line(request, reason)``), unless that page's line was already yielded. The item
pipelines are guarded the same way (:mod:`pipelines.steps`), and a failed download is
an error line through the spider's errback."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable
from typing import Any, Protocol

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.http import Request, Response

from crawler.items import PageItem
from crawler.middlewares import CAPTURE_META_KEY

logger = logging.getLogger(__name__)

#: Response meta key set once a page's line has left its callback.
LINE_YIELDED_META_KEY = "pagesight_line_yielded"


class LineSpider(Protocol):
    def error_line(self, request: Request, reason: str) -> PageItem: ...


class LineGuardMiddleware:
    """Marks each page whose callback yielded its line; gives a page whose callback
    raised before that an error line (``spider: Exception: message``)."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> LineGuardMiddleware:
        return cls(crawler)

    def process_spider_output(
        self, response: Response, result: Iterable[Any], spider: Spider | None = None
    ) -> Iterable[Any]:
        for output in result:
            self._note(response, output)
            yield output

    async def process_spider_output_async(
        self, response: Response, result: AsyncIterator[Any], spider: Spider | None = None
    ) -> AsyncIterator[Any]:
        async for output in result:
            self._note(response, output)
            yield output

    @staticmethod
    def _note(response: Response, output: Any) -> None:
        if isinstance(output, PageItem):
            response.meta[LINE_YIELDED_META_KEY] = True

    def process_spider_exception(
        self, response: Response, exception: Exception, spider: Spider | None = None
    ) -> list[PageItem] | None:
        request = response.request
        spider = spider or self.crawler.spider
        if (
            request is None
            or not request.meta.get(CAPTURE_META_KEY)
            or response.meta.get(LINE_YIELDED_META_KEY)
            or not hasattr(spider, "error_line")
        ):
            return None
        lines = str(exception).strip().splitlines()
        reason = f"spider: {type(exception).__name__}" + (f": {lines[0]}" if lines else "")
        logger.warning("%s on %s; its line says so", reason, request.url, exc_info=exception)
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value("pagesight/spider/failed")
        response.meta[LINE_YIELDED_META_KEY] = True
        line: LineSpider = spider  # type: ignore[assignment]
        return [line.error_line(request, reason)]
