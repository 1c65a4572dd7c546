"""The baseline of benchmarks/crawl.py: a bare scrapy-playwright spider that only takes a
full-page screenshot of each URL (no boxes, no storage, no settling or scrolling)."""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import scrapy
from scrapy_playwright.page import PageMethod


class BareScreenshotSpider(scrapy.Spider):
    name = "bare-screenshot"

    def __init__(self, urls_file: str, width: str = "1366", height: str = "768", **kwargs: Any):
        super().__init__(**kwargs)
        self.urls = Path(urls_file).read_text(encoding="utf-8").split()
        self.viewport = {"width": int(width), "height": int(height)}

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in self.urls:
            yield scrapy.Request(
                url,
                meta={
                    "playwright": True,
                    "playwright_context": "bare",
                    "playwright_context_kwargs": {"viewport": self.viewport, "device_scale_factor": 1},
                    "playwright_page_methods": [PageMethod("screenshot", full_page=True, type="png")],
                },
                callback=self.parse,
            )

    def parse(self, response: scrapy.http.Response) -> Iterator[dict[str, Any]]:
        png = response.meta["playwright_page_methods"][0].result
        # The capture feed's shape of a screenshot's size (and a field the project's feed keeps).
        yield {"url": response.url, "screenshot": {"bytes": len(png)}}
