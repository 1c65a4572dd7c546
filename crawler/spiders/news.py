"""The `news` spider: seeds from arguments, a URL file, or the bundled demo web."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlsplit

from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.http import Response, TextResponse
from scrapy.linkextractors import LinkExtractor
from scrapy.settings import BaseSettings
from twisted.python.failure import Failure

from crawler.distributed.queue import RECRAWLED_META_KEY
from crawler.errors import describe_failure
from crawler.items import STATUS_ERROR, STATUS_OK, STATUS_SKIPPED, PageItem
from crawler.middlewares import (
    CAPTURE_META_KEY,
    CAPTURE_RESULT_KEY,
    CAPTURE_SKIP_KEY,
    CAPTURE_TIMINGS_KEY,
)
from crawler.signals import demo_web_started
from pipelines.urls import site_of
from pipelines.version import PAGESIGHT_VERSION

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
    """URLs from a file, one a line; blank lines and ``#`` comments are ignored.
    ValueError (naming the file) when it cannot be read."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise ValueError(f"urls_file {path}: cannot read it: {reason}") from error
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


@dataclass(frozen=True)
class SpiderConfig:
    """The spider's settings, read once."""

    deny_extensions: list[str]

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> SpiderConfig:
        return cls(deny_extensions=settings.getlist("PAGESIGHT_DENY_EXTENSIONS"))


class NewsSpider(Spider):
    """Renders and captures pages, following links within the seeds' sites.

    Arguments (``-a name=value``): ``start_urls`` (comma-separated), ``urls_file`` (one
    URL a line), ``follow`` (default true; false crawls only the given pages), ``gold``
    (a gold file: sets ``PAGESIGHT_GOLD``). With no URLs at all, the crawl turns
    ``PAGESIGHT_DEMO_WEB`` on: the demo web extension serves the bundled demo web on
    127.0.0.1 and hands its home pages (and gold) over when the engine starts.
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
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https", "file") or (parts.scheme != "file" and not parts.netloc):
                raise ValueError(
                    f"start URL {url!r} is not an http(s) or file URL: give full URLs, "
                    "e.g. -a start_urls=https://example.com/"
                )
        self.seed_urls: list[str] = seeds
        self.follow: bool = parse_bool(follow)
        self.gold_path: str | None = gold
        self.allowed_sites: set[str] = {site_of(url) for url in seeds}
        self.link_extractor: LinkExtractor  # built in from_crawler, from the settings

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> NewsSpider:
        spider: NewsSpider = super().from_crawler(crawler, *args, **kwargs)
        config = SpiderConfig.from_settings(crawler.settings)
        spider.link_extractor = LinkExtractor(deny_extensions=config.deny_extensions, unique=True)
        if spider.gold_path:
            crawler.settings.set("PAGESIGHT_GOLD", spider.gold_path, priority="spider")
        if not spider.seed_urls:
            crawler.settings.set("PAGESIGHT_DEMO_WEB", True, priority="spider")
            crawler.signals.connect(spider.add_seed_urls, signal=demo_web_started)
        return spider

    def add_seed_urls(self, seed_urls: list[str], **kwargs: Any) -> None:
        """Crawl these home pages too, and their sites (the demo web's, when it starts)."""
        self.seed_urls += seed_urls
        self.allowed_sites |= {site_of(url) for url in seed_urls}

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
        if self.follow and isinstance(response, TextResponse):
            yield from self.follow_links(response)

    def follow_links(self, response: TextResponse) -> Iterator[Request]:
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
            recrawled=meta.get(RECRAWLED_META_KEY, False),
            provenance={"pagesight": PAGESIGHT_VERSION},
        )
