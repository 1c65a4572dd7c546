"""The WARC pipeline: with PAGESIGHT_WARC_OUT set, each captured page is also written to a
WARC file there: the main document as the server sent it (a ``response`` record: status,
headers, bytes) and the rendered DOM (a ``resource`` record, concurrent to it), so a
corpus can be re-extracted later (``scrapy extract FILE.warc.gz``) without re-crawling."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from http import HTTPStatus
from io import BytesIO
from pathlib import Path
from typing import BinaryIO

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from crawler.items import PageItem
from pipelines.extraction.sources import RECORD_KIND_HEADER, RENDERED_DOM
from pipelines.version import PAGESIGHT_VERSION

logger = logging.getLogger(__name__)

#: Content-Type of the rendered-DOM records (the DOM is serialized as UTF-8).
RENDERED_DOM_TYPE = "text/html; charset=utf-8"


@dataclass(frozen=True)
class WarcConfig:
    """Where WARC files go (empty: none are written)."""

    out_dir: str

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> WarcConfig:
        return cls(out_dir=settings.get("PAGESIGHT_WARC_OUT"))


def write_page(writer: WARCWriter, item: PageItem) -> int:
    """Write one captured page's records; returns how many."""
    capture = item.capture
    assert capture is not None
    written, concurrent = 0, None
    if capture.raw_html is not None and capture.raw_status is not None:
        status = capture.raw_status
        reason = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else ""
        headers = StatusAndHeaders(
            f"{status} {reason}".strip(), list((capture.raw_headers or {}).items()), protocol="HTTP/1.1"
        )
        response = writer.create_warc_record(
            item.url, "response", payload=BytesIO(capture.raw_html), http_headers=headers
        )
        writer.write_record(response)
        concurrent = response.rec_headers.get_header("WARC-Record-ID")
        written += 1
    extra = {RECORD_KIND_HEADER: RENDERED_DOM}
    if concurrent:
        extra["WARC-Concurrent-To"] = concurrent
    dom = writer.create_warc_record(
        capture.final_url or item.url,
        "resource",
        payload=BytesIO(capture.html.encode("utf-8")),
        warc_content_type=RENDERED_DOM_TYPE,
        warc_headers_dict=extra,
    )
    writer.write_record(dom)
    return written + 1


class WarcPipeline:
    """Appends every captured page to ``PAGESIGHT_WARC_OUT/pagesight-TIME.warc.gz``."""

    def __init__(self, crawler: Crawler, out_dir: Path):
        self.crawler = crawler
        self.out_dir = out_dir
        self.stream: BinaryIO | None = None
        self.writer: WARCWriter | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> WarcPipeline:
        config = WarcConfig.from_settings(crawler.settings)
        if not config.out_dir:
            raise NotConfigured("PAGESIGHT_WARC_OUT is empty")
        return cls(crawler, Path(config.out_dir))

    def open_spider(self, spider: Spider | None = None) -> None:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / f"pagesight-{datetime.now(UTC):%Y%m%dT%H%M%S}.warc.gz"
        self.stream = path.open("wb")
        self.writer = WARCWriter(self.stream, gzip=True)
        self.writer.write_record(
            self.writer.create_warcinfo_record(path.name, {"software": f"PageSight/{PAGESIGHT_VERSION}"})
        )
        logger.info("Writing WARC records to %s", path)

    def close_spider(self, spider: Spider | None = None) -> None:
        if self.stream is not None:
            self.stream.close()
            self.stream = None

    def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.capture is None or self.writer is None:
            return item
        records = write_page(self.writer, item)
        self.crawler.stats.inc_value("pagesight/warc/records", records)
        return item
