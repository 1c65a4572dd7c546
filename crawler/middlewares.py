"""The capture middleware: page requests become Playwright visits that keep a screenshot,
the rendered HTML, the main document's raw bytes and the element boxes."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import partial
from typing import Any

from playwright.async_api import ViewportSize
from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.settings import BaseSettings
from scrapy_playwright.page import PageMethod

from crawler.capture import CaptureOptions, MainDocument, capture_page, prepare_page
from crawler.errors import PageTooLarge
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


@dataclass(frozen=True)
class CaptureConfig:
    """The capture middleware's settings, read once (defaults live in settings/)."""

    options: CaptureOptions
    max_html_bytes: int

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> CaptureConfig:
        """The config; ValueError when the main document's fetch could outlast the load."""
        document_timeout = settings.getfloat("PAGESIGHT_DOCUMENT_TIMEOUT")
        load_timeout = settings.getfloat("PAGESIGHT_PAGE_TIMEOUT")
        if not 0 < document_timeout < load_timeout:
            raise ValueError(
                f"PAGESIGHT_DOCUMENT_TIMEOUT={document_timeout:g} must be above 0 and below "
                f"PAGESIGHT_PAGE_TIMEOUT={load_timeout:g}: lower it with -s PAGESIGHT_DOCUMENT_TIMEOUT=…"
            )
        return cls(
            options=CaptureOptions(
                max_screenshot_height=settings.getint("PAGESIGHT_MAX_SCREENSHOT_HEIGHT"),
                network_idle_timeout=settings.getfloat("PAGESIGHT_NETWORK_IDLE_TIMEOUT"),
                scroll_steps=settings.getint("PAGESIGHT_SCROLL_STEPS"),
                scroll_always=settings.getbool("PAGESIGHT_SCROLL_ALWAYS"),
                max_boxes=settings.getint("PAGESIGHT_MAX_BOXES"),
                timeout=settings.getfloat("PAGESIGHT_CAPTURE_TIMEOUT"),
                load_timeout=load_timeout,
                document_timeout=document_timeout,
                screenshot_timeout=settings.getfloat("PAGESIGHT_SCREENSHOT_TIMEOUT"),
                fallback_screens=settings.getint("PAGESIGHT_SCREENSHOT_FALLBACK_SCREENS"),
                max_page_height_for_full_shot=settings.getint("PAGESIGHT_SCREENSHOT_MAX_PAGE_HEIGHT"),
                fast_png=settings.getbool("PAGESIGHT_SCREENSHOT_FAST_PNG"),
                fonts_timeout=settings.getfloat("PAGESIGHT_FONTS_TIMEOUT"),
                hide_overlays=settings.getbool("PAGESIGHT_HIDE_OVERLAYS"),
                overlay_min_share=settings.getfloat("PAGESIGHT_OVERLAY_MIN_SHARE"),
                viewport=ViewportSize(
                    width=settings.getint("PAGESIGHT_VIEWPORT_WIDTH"),
                    height=settings.getint("PAGESIGHT_VIEWPORT_HEIGHT"),
                ),
            ),
            max_html_bytes=settings.getint("PAGESIGHT_MAX_HTML_BYTES"),
        )


class CaptureMiddleware:
    """Turns requests marked ``meta["pagesight_capture"]`` into Playwright visits.

    Everything put into request meta here is plain data (no live page), and it is put
    there only when the request is about to be downloaded, so scheduled requests stay
    picklable. The page is opened and closed by scrapy-playwright on every path.
    """

    def __init__(self, crawler: Crawler, config: CaptureConfig):
        self.crawler = crawler
        self.config = config
        self.context_kwargs = {
            "viewport": dict(config.options.viewport),
            "device_scale_factor": 1,
            "ignore_https_errors": True,
            "accept_downloads": True,
        }

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CaptureMiddleware:
        return cls(crawler, CaptureConfig.from_settings(crawler.settings))

    def process_request(self, request: Request, spider: Spider | None = None) -> None:
        if not request.meta.get(CAPTURE_META_KEY):
            return None
        options = self.config.options
        document = MainDocument()
        request.meta["playwright"] = True
        request.meta["playwright_include_page"] = False
        request.meta.setdefault("playwright_context", "pagesight")
        request.meta.setdefault("playwright_context_kwargs", self.context_kwargs)
        # Navigation returns once the document starts arriving; capture_page waits for
        # its load event up to PAGESIGHT_PAGE_TIMEOUT and keeps what came by then.
        request.meta["playwright_page_goto_kwargs"] = {
            "wait_until": "commit",
            "timeout": options.load_timeout * 1000,
        }
        request.meta["playwright_page_init_callback"] = partial(
            prepare_page, document=document, options=options
        )
        request.meta["playwright_page_methods"] = [PageMethod(capture_page, options, document)]
        return None

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        if not request.meta.get(CAPTURE_META_KEY):
            return response
        request.meta.pop("playwright_page_init_callback", None)
        methods = request.meta.pop("playwright_page_methods", None) or []
        result: dict[str, Any] | None = methods[0].result if methods else None
        stats = self.crawler.stats
        if not result or "skip" in result:
            reason = result["skip"] if result else "not rendered (download)"
            response.meta[CAPTURE_SKIP_KEY] = reason
            stats.inc_value("pagesight/capture/skipped")
            return response
        # The HTML the capture serialized with its boxes and screenshot (the handler's own is
        # of a blank tab).
        response = response.replace(
            url=result["final_url"], body=result["html"].encode("utf-8"), encoding="utf-8"
        )
        html = response.text
        html_bytes = len(html.encode("utf-8"))
        if html_bytes > self.config.max_html_bytes:
            stats.inc_value("pagesight/capture/too_large")
            raise PageTooLarge(
                f"page too large: {html_bytes} bytes of HTML > PAGESIGHT_MAX_HTML_BYTES={self.config.max_html_bytes}"
            )
        response.meta[CAPTURE_RESULT_KEY] = PageCapture(
            html=html,
            screenshot_png=result["screenshot_png"],
            boxes=result["boxes"],
            viewport_width=result["viewport_width"],
            page_height=result["page_height"],
            screenshot_height=result["screenshot_height"],
            final_url=result["final_url"],
            raw_html=result["raw_html"],
            raw_status=result.get("raw_status"),
            raw_headers=result.get("raw_headers"),
            encoding=result["encoding"],
            encoding_source=result["encoding_source"],
            warnings=list(result["warnings"]),
        )
        timings = dict(result["timings_ms"])
        latency = request.meta.get("download_latency")
        if latency is not None:
            timings["render_total"] = round(latency * 1000, 1)
        response.meta[CAPTURE_TIMINGS_KEY] = timings
        stats.inc_value("pagesight/capture/ok")
        stats.inc_value(
            "pagesight/capture/scrolled" if result["scrolled"] else "pagesight/capture/not_scrolled"
        )
        for reaction in result["scroll_reactions"]:
            stats.inc_value(f"pagesight/capture/scroll_reactions/{reaction}")
        for warning in result["warnings"]:
            stats.inc_value(f"pagesight/capture/warnings/{warning.split(':', 1)[0]}")
        return response

    def process_exception(
        self, request: Request, exception: BaseException, spider: Spider | None = None
    ) -> None:
        # Drop the spent page method and callback so that a retried copy of the request
        # starts clean.
        request.meta.pop("playwright_page_methods", None)
        request.meta.pop("playwright_page_init_callback", None)
        if request.meta.get(CAPTURE_META_KEY):
            self.crawler.stats.inc_value("pagesight/capture/failed")
        return None
