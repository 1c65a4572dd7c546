"""The capture middleware: page requests become Playwright visits that keep a screenshot,
the rendered HTML and the element boxes."""

from __future__ import annotations

import logging
from typing import Any

from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.settings import BaseSettings
from scrapy_playwright.page import PageMethod

from crawler.capture import CaptureOptions, capture_page
from crawler.items import PageCapture

logger = logging.getLogger(__name__)

#: Request meta key a spider sets to ask for a capture.
CAPTURE_META_KEY = "pagesight_capture"
#: Response meta key under which the capture (a PageCapture) is handed to the spider.
CAPTURE_RESULT_KEY = "pagesight_capture_result"
#: Response meta key with the reason a page was not captured (non-HTML, HTTP error…).
CAPTURE_SKIP_KEY = "pagesight_capture_skip"
#: Response meta key with the capture's timings in milliseconds.
CAPTURE_TIMINGS_KEY = "pagesight_timings_ms"


class PageTooLarge(Exception):
    """The rendered HTML is larger than PAGESIGHT_MAX_HTML_BYTES."""


def capture_options(settings: BaseSettings) -> CaptureOptions:
    """Capture options from PAGESIGHT_* settings."""
    return CaptureOptions(
        max_screenshot_height=settings.getint("PAGESIGHT_MAX_SCREENSHOT_HEIGHT", 8000),
        network_idle_timeout=settings.getfloat("PAGESIGHT_NETWORK_IDLE_TIMEOUT", 3.0),
        scroll_steps=settings.getint("PAGESIGHT_SCROLL_STEPS", 6),
        max_boxes=settings.getint("PAGESIGHT_MAX_BOXES", 4000),
        timeout=settings.getfloat("PAGESIGHT_CAPTURE_TIMEOUT", 60.0),
    )


class CaptureMiddleware:
    """Turns requests marked ``meta["pagesight_capture"]`` into Playwright visits.

    Everything put into request meta here is plain data (no live page), and it is put
    there only when the request is about to be downloaded, so scheduled requests stay
    picklable. The page is opened and closed by scrapy-playwright on every path.
    """

    def __init__(self, crawler: Crawler, options: CaptureOptions, max_html_bytes: int):
        settings = crawler.settings
        self.crawler = crawler
        self.options = options
        self.max_html_bytes = max_html_bytes
        self.page_timeout_ms = settings.getfloat("PAGESIGHT_PAGE_TIMEOUT", 30) * 1000
        self.context_kwargs = {
            "viewport": {
                "width": settings.getint("PAGESIGHT_VIEWPORT_WIDTH", 1366),
                "height": settings.getint("PAGESIGHT_VIEWPORT_HEIGHT", 768),
            },
            "device_scale_factor": 1,
            "ignore_https_errors": True,
            "accept_downloads": True,
        }

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CaptureMiddleware:
        return cls(
            crawler,
            capture_options(crawler.settings),
            crawler.settings.getint("PAGESIGHT_MAX_HTML_BYTES", 20_000_000),
        )

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        if not request.meta.get(CAPTURE_META_KEY):
            return None
        request.meta["playwright"] = True
        request.meta["playwright_include_page"] = False
        request.meta.setdefault("playwright_context", "pagesight")
        request.meta.setdefault("playwright_context_kwargs", self.context_kwargs)
        request.meta["playwright_page_goto_kwargs"] = {
            "wait_until": "load",
            "timeout": self.page_timeout_ms,
        }
        request.meta["playwright_page_methods"] = [PageMethod(capture_page, self.options)]
        return None

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        if not request.meta.get(CAPTURE_META_KEY):
            return response
        methods = request.meta.pop("playwright_page_methods", None) or []
        result: dict[str, Any] | None = methods[0].result if methods else None
        stats = self.crawler.stats
        if not result or "skip" in result:
            reason = result["skip"] if result else "not rendered (download)"
            response.meta[CAPTURE_SKIP_KEY] = reason
            stats.inc_value("pagesight/capture/skipped")
            return response
        html = response.text
        html_bytes = len(html.encode("utf-8"))
        if html_bytes > self.max_html_bytes:
            stats.inc_value("pagesight/capture/too_large")
            raise PageTooLarge(
                f"page too large: {html_bytes} bytes of HTML > PAGESIGHT_MAX_HTML_BYTES={self.max_html_bytes}"
            )
        response.meta[CAPTURE_RESULT_KEY] = PageCapture(
            html=html,
            screenshot_png=result["screenshot_png"],
            boxes=result["boxes"],
            viewport_width=result["viewport_width"],
            page_height=result["page_height"],
            screenshot_height=result["screenshot_height"],
        )
        timings = dict(result["timings_ms"])
        latency = request.meta.get("download_latency")
        if latency is not None:
            timings["render_total"] = round(latency * 1000, 1)
        response.meta[CAPTURE_TIMINGS_KEY] = timings
        stats.inc_value("pagesight/capture/ok")
        return response

    def process_exception(
        self, request: Request, exception: BaseException, spider: Spider | None = None
    ) -> None:
        # Drop the spent page method so that a retried copy of the request starts clean.
        request.meta.pop("playwright_page_methods", None)
        if request.meta.get(CAPTURE_META_KEY):
            self.crawler.stats.inc_value("pagesight/capture/failed")
        return None
