"""The `news` spider: seeds from arguments, a URL file, or the bundled demo web."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.http import Response
from twisted.python.failure import Failure

from crawler.distributed.meta import RECRAWLED_META_KEY
from crawler.errors import describe_failure
from crawler.frontier import PRIORITY, VIA_FEED, VIA_SEED, VIA_SITEMAP, FollowLink
from crawler.items import STATUS_ERROR, STATUS_OK, STATUS_SKIPPED, PageItem
from crawler.middlewares import (
    CAPTURE_META_KEY,
    CAPTURE_RESULT_KEY,
    CAPTURE_SKIP_KEY,
    CAPTURE_TIMINGS_KEY,
)
from crawler.seeds import SeedListError, parse_feed, parse_sitemap, robots_sitemaps
from crawler.signals import demo_web_started, links_planned
from pipelines.urls import site_of
from pipelines.version import PAGESIGHT_VERSION

logger = logging.getLogger(__name__)

#: Request meta keys: how a page was reached, and the date its sitemap or feed gave.
VIA_META_KEY = "pagesight_via"
SEED_DATE_META_KEY = "pagesight_seed_date"


def parse_bool(value: str | bool, name: str) -> bool:
    """Spider argument ``name`` arrives as a string: 'false', '0', 'no', 'off' mean False."""
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"-a {name}={value}: not a boolean (true or false)")


def split_urls(urls: str | list[str] | None) -> list[str]:
    """A comma-separated argument (or a list) as a list of URLs."""
    if isinstance(urls, str):
        return [url.strip() for url in urls.split(",") if url.strip()]
    return list(urls or [])


def read_urls_file(path: str | Path) -> list[str]:
    """URLs from a file, one a line; blank lines and ``#`` comments are ignored.
    ValueError (naming the file) when it cannot be read."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise ValueError(f"urls_file {path}: cannot read it: {reason}") from error
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


#: The news spider's ``-a`` arguments and what each gives (``scrapy crawl -h`` lists them).
#: Names starting with ``_`` are the scheduler's (Scrapyd's ``_job``) and pass unread.
SPIDER_ARGUMENTS = {
    "start_urls": "comma-separated URLs to start from",
    "urls_file": "a file of URLs, one a line (# comments)",
    "follow": "follow links within the seeds' sites (default true)",
    "gold": "a gold file to score the crawl against (sets PAGESIGHT_GOLD)",
    "sitemap": "sitemap index, sitemap or news sitemap URLs, comma-separated",
    "sitemaps": "'robots': the sitemaps each seed site's robots.txt names",
    "feed": "RSS or Atom feed URLs, comma-separated",
}


class NewsSpider(Spider):
    """Renders and captures pages, following links within the seeds' sites.

    Arguments (``-a name=value``): :data:`SPIDER_ARGUMENTS`; any other name is refused
    (ValueError), except the scheduler's (``_job``…). With no URLs at
    all, the crawl turns ``PAGESIGHT_DEMO_WEB`` on: the demo web extension serves the
    bundled demo web on 127.0.0.1 and hands its home pages (and gold) over when the engine
    starts. Which links of a page are followed is decided after it is typed and extracted
    (:mod:`crawler.frontier`); the spider only says which may be (its sites).
    """

    name = "news"

    def __init__(
        self,
        start_urls: str | list[str] | None = None,
        urls_file: str | None = None,
        follow: str | bool = True,
        gold: str | None = None,
        sitemap: str | None = None,
        feed: str | None = None,
        sitemaps: str | None = None,
        **kwargs: Any,
    ):
        unknown = [name for name in kwargs if not name.startswith("_")]
        if unknown:
            raise ValueError(
                f"unknown spider argument -a {unknown[0]}: the news spider takes {', '.join(SPIDER_ARGUMENTS)}"
            )
        super().__init__(**kwargs)
        seeds = split_urls(start_urls)
        if urls_file:
            seeds += read_urls_file(urls_file)
        if sitemaps not in (None, "robots"):
            raise ValueError(f"sitemaps must be 'robots', got {sitemaps!r}")
        self.sitemap_urls: list[str] = split_urls(sitemap)
        self.feed_urls: list[str] = split_urls(feed)
        self.robots_sitemaps: bool = sitemaps == "robots"
        for url in seeds + self.sitemap_urls + self.feed_urls:
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https", "file") or (parts.scheme != "file" and not parts.netloc):
                raise ValueError(
                    f"start URL {url!r} is not an http(s) or file URL: give full URLs, "
                    "e.g. -a start_urls=https://example.com/"
                )
        self.seed_urls: list[str] = seeds
        self.follow: bool = parse_bool(follow, "follow")
        self.gold_path: str | None = gold
        self.allowed_sites: set[str] = {site_of(url) for url in seeds + self.sitemap_urls + self.feed_urls}

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> NewsSpider:
        spider: NewsSpider = super().from_crawler(crawler, *args, **kwargs)
        if spider.gold_path:
            crawler.settings.set("PAGESIGHT_GOLD", spider.gold_path, priority="spider")
        crawler.signals.connect(spider.schedule_links, signal=links_planned)
        if not (spider.seed_urls or spider.sitemap_urls or spider.feed_urls):
            crawler.settings.set("PAGESIGHT_DEMO_WEB", True, priority="spider")
            crawler.signals.connect(spider.add_seed_urls, signal=demo_web_started)
        return spider

    def add_seed_urls(self, seed_urls: list[str], **kwargs: Any) -> None:
        """Crawl these home pages too, and their sites (the demo web's, when it starts)."""
        self.seed_urls += seed_urls
        self.allowed_sites |= {site_of(url) for url in seed_urls}

    async def start(self) -> AsyncIterator[Request]:
        for url in self.sitemap_urls:
            yield self.list_request(url, self.parse_sitemap)
        for url in self.feed_urls:
            yield self.list_request(url, self.parse_feed)
        if self.robots_sitemaps:
            for url in dict.fromkeys(urljoin(seed, "/robots.txt") for seed in self.seed_urls):
                yield self.list_request(url, self.parse_robots)
        for url in self.seed_urls:
            yield self.page_request(url, VIA_SEED)

    def page_request(
        self, url: str, via: str, priority: int = 0, depth: int = 0, seed_date: str | None = None
    ) -> Request:
        """A request for one page, to be rendered and captured."""
        meta: dict[str, Any] = {CAPTURE_META_KEY: True, VIA_META_KEY: via, "depth": depth}
        if seed_date:
            meta[SEED_DATE_META_KEY] = seed_date
        return Request(url, callback=self.parse, errback=self.on_error, priority=priority, meta=meta)

    def follow_request(self, url: str, via: str, priority: int, depth: int) -> Request | None:
        """A request for a link the frontier chose, or None when it leaves the crawl's sites."""
        if site_of(url) not in self.allowed_sites:
            return None
        return self.page_request(url, via, priority, depth)

    def schedule_links(self, item: PageItem, links: list[FollowLink], depth: int) -> None:
        """Schedule the frontier's links (``links_planned``) that stay within the crawl's sites."""
        if not self.follow:
            return
        engine = self.crawler.engine
        assert engine is not None
        for link in links:
            request = self.follow_request(link.url, link.via, link.priority, depth)
            if request is not None:
                engine.crawl(request)
                self.crawler.stats.inc_value(f"pagesight/frontier/{link.via}")

    @staticmethod
    def list_request(url: str, callback: Any) -> Request:
        """A plain (not rendered) request for a sitemap, feed or robots.txt."""
        return Request(url, callback=callback, errback=NewsSpider.on_list_error, dont_filter=True)

    def seed_from_list(self, request: Request) -> None:
        """Schedule a request a seed list names through the engine: listed pages are seeds
        (depth 0), not links of the list, so they skip the depth middleware."""
        assert self.crawler.engine is not None
        self.crawler.engine.crawl(request)

    def parse_sitemap(self, response: Response) -> None:
        """A sitemap index's sitemaps, or a sitemap's pages (via ``sitemap``, with their dates)."""
        try:
            sitemap = parse_sitemap(response.body)
        except SeedListError as error:
            logger.warning("sitemap %s: %s", response.url, error)
            self.crawler.stats.inc_value("pagesight/seeds/sitemap_unreadable")
            return
        for entry in sitemap.entries:
            url = urljoin(response.url, entry.url)  # the protocol wants absolute URLs; some lists are not
            if sitemap.is_index:
                self.seed_from_list(self.list_request(url, self.parse_sitemap))
            elif site_of(url) in self.allowed_sites:
                self.crawler.stats.inc_value("pagesight/seeds/sitemap")
                self.seed_from_list(
                    self.page_request(url, VIA_SITEMAP, PRIORITY[VIA_SITEMAP], seed_date=entry.date)
                )

    def parse_feed(self, response: Response) -> None:
        """An RSS or Atom feed's pages (via ``feed``, with their dates)."""
        try:
            entries = parse_feed(response.body)
        except SeedListError as error:
            logger.warning("feed %s: %s", response.url, error)
            self.crawler.stats.inc_value("pagesight/seeds/feed_unreadable")
            return
        for entry in entries:
            url = urljoin(response.url, entry.url)
            if site_of(url) in self.allowed_sites:
                self.crawler.stats.inc_value("pagesight/seeds/feed")
                self.seed_from_list(
                    self.page_request(url, VIA_FEED, PRIORITY[VIA_FEED], seed_date=entry.date)
                )

    def parse_robots(self, response: Response) -> None:
        """The sitemaps a robots.txt names."""
        for url in robots_sitemaps(response.body):
            self.seed_from_list(self.list_request(urljoin(response.url, url), self.parse_sitemap))

    @staticmethod
    def on_list_error(failure: Failure) -> None:
        request = failure.request  # type: ignore[attr-defined]
        logger.warning("seed list %s: %s", request.url, describe_failure(failure).reason)

    def parse(self, response: Response) -> Iterator[PageItem | Request]:
        item = self.new_item(
            response.url if response.request is None else response.request.url, response.meta
        )
        item.http_status = response.status
        item.content_type = (response.headers.get("Content-Type") or b"").decode("latin-1") or None
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

    def error_line(self, request: Request, reason: str) -> PageItem:
        """The error line of a page whose callback raised (:mod:`crawler.lines`)."""
        item = self.new_item(request.url, request.meta)
        item.status, item.error = STATUS_ERROR, reason
        self.crawler.stats.inc_value(f"pagesight/items/{STATUS_ERROR}")
        return item

    @staticmethod
    def new_item(url: str, meta: dict[str, Any]) -> PageItem:
        return PageItem(
            url=url,
            site=site_of(url),
            status=STATUS_OK,
            fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
            depth=meta.get("depth", 0),
            recrawled=meta.get(RECRAWLED_META_KEY, False),
            via=meta.get(VIA_META_KEY),
            seed_date=meta.get(SEED_DATE_META_KEY),
            provenance={"pagesight": PAGESIGHT_VERSION},
        )
