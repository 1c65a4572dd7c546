"""The `news` spider: seeds from arguments, a URL file, or the bundled demo web."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlsplit

from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.linkextractors import LinkExtractor
from twisted.python.failure import Failure

from crawler.errors import describe_failure
from crawler.items import STATUS_ERROR, STATUS_OK, STATUS_SKIPPED, PageItem
from crawler.middlewares import (
    CAPTURE_META_KEY,
    CAPTURE_RESULT_KEY,
    CAPTURE_SKIP_KEY,
    CAPTURE_TIMINGS_KEY,
)
from pipelines.evaluation.urls import site_of

logger = logging.getLogger(__name__)


def parse_bool(value: str | bool) -> bool:
    """Spider arguments arrive as strings: 'false', '0', 'no', 'off' mean False."""
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"not a boolean: {value!r}")


def read_urls_file(path: str | Path) -> list[str]:
    """URLs from a file, one a line; blank lines and ``#`` comments are ignored."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


class NewsSpider(Spider):
    """Renders and captures pages, following links within the seeds' sites.

    Arguments (``-a name=value``): ``start_urls`` (comma-separated), ``urls_file`` (one
    URL a line), ``follow`` (default true; false crawls only the given pages), ``gold``
    (a gold file the scoring pipeline reads). With no URLs at all, the bundled demo web
    is served on 127.0.0.1 and crawled, and its gold is used.
    """

    name = "news"

    def __init__(
        self,
        start_urls: str | list[str] | None = None,
        urls_file: str | None = None,
        follow: str | bool = True,
        gold: str | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        if isinstance(start_urls, str):
            start_urls = [u.strip() for u in start_urls.split(",") if u.strip()]
        seeds = list(start_urls or [])
        if urls_file:
            seeds += read_urls_file(urls_file)
        for url in seeds:
            if urlsplit(url).scheme not in ("http", "https", "file"):
                raise ValueError(f"not an http(s) or file URL: {url!r}")
        self.seed_urls: list[str] = seeds
        self.follow: bool = parse_bool(follow)
        self.gold_path: str | None = gold
        self.demo = None
        self.allowed_sites: set[str] = set()
        self.link_extractor: LinkExtractor  # built in from_crawler, from the settings

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> NewsSpider:
        spider: NewsSpider = super().from_crawler(crawler, *args, **kwargs)
        settings = crawler.settings
        if not spider.seed_urls:
            spider.start_demo_web()
        spider.allowed_sites = {site_of(url) for url in spider.seed_urls}
        spider.link_extractor = LinkExtractor(
            deny_extensions=settings.getlist("PAGESIGHT_DENY_EXTENSIONS"), unique=True
        )
        crawler.signals.connect(spider.on_closed, signal=signals.spider_closed)
        return spider

    def start_demo_web(self) -> None:
        """Serve the bundled demo web and take its home pages as seeds, its gold as gold."""
        from crawler.demo import DemoWeb, Faults

        settings = self.crawler.settings
        self.demo = DemoWeb(
            seed=settings.getint("PAGESIGHT_DEMO_SEED"),
            articles_per_site=settings.getint("PAGESIGHT_DEMO_ARTICLES_PER_SITE"),
            faults=Faults.parse(settings.get("PAGESIGHT_DEMO_FAULTS", "")),
        )
        self.demo.start()
        self.seed_urls = list(self.demo.seed_urls)
        if self.gold_path is None:
            gold_path = Path(settings.get("PAGESIGHT_DEMO_GOLD"))
            gold_path.parent.mkdir(parents=True, exist_ok=True)
            self.demo.write_gold(gold_path)
            self.gold_path = str(gold_path)
        logger.info("Serving the demo web: %s (gold: %s)", ", ".join(self.seed_urls), self.gold_path)

    def on_closed(self, spider: Spider, reason: str) -> None:
        if self.demo is not None:
            self.demo.stop()

    async def start(self) -> AsyncIterator[Request]:
        for url in self.seed_urls:
            yield self.page_request(url)

    def page_request(self, url: str) -> Request:
        """A request for one page, to be rendered and captured."""
        return Request(
            url,
            callback=self.parse,
            errback=self.on_error,
            meta={CAPTURE_META_KEY: True},
        )

    def parse(self, response: Response) -> Iterator[PageItem | Request]:
        item = self.new_item(response.request.url, response.meta)
        item.http_status = response.status
        item.content_type = response.headers.get("Content-Type", b"").decode("latin-1") or None
        item.timings_ms.update(response.meta.get(CAPTURE_TIMINGS_KEY, {}))
        capture = response.meta.get(CAPTURE_RESULT_KEY)
        if capture is None:
            item.status = STATUS_SKIPPED
            item.error = response.meta.get(CAPTURE_SKIP_KEY, "not captured")
            self.crawler.stats.inc_value("pagesight/items/skipped")
            yield item
            return
        item.capture = capture
        item.final_url = capture.final_url
        item.encoding, item.encoding_source = capture.encoding, capture.encoding_source
        item.warnings.extend(capture.warnings)
        self.crawler.stats.inc_value("pagesight/items/ok")
        yield item
        if self.follow:
            yield from self.follow_links(response)

    def follow_links(self, response: Response) -> Iterator[Request]:
        """Requests for links that stay within the seeds' sites."""
        seen: set[str] = set()
        for link in self.link_extractor.extract_links(response):
            url = urldefrag(link.url).url
            if url not in seen and site_of(url) in self.allowed_sites:
                seen.add(url)
                yield self.page_request(url)

    def on_error(self, failure: Failure) -> PageItem:
        request = failure.request  # type: ignore[attr-defined]
        outcome = describe_failure(failure)
        item = self.new_item(request.url, request.meta)
        item.status = STATUS_SKIPPED if outcome.skipped else STATUS_ERROR
        item.error = outcome.reason
        item.http_status = outcome.http_status
        self.crawler.stats.inc_value(f"pagesight/items/{item.status}")
        self.crawler.stats.inc_value(f"pagesight/errors/{outcome.kind}")
        logger.info("%s %s: %s", item.status, request.url, outcome.reason)
        return item

    @staticmethod
    def new_item(url: str, meta: dict[str, Any]) -> PageItem:
        return PageItem(
            url=url,
            site=site_of(url),
            status=STATUS_OK,
            fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
            depth=meta.get("depth", 0),
        )
