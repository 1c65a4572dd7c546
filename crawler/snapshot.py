"""Capturing a few given pages through the crawl itself (the `news` spider with
``follow=false`` and only the store pipeline), for commands that need a page's render
(element boxes) outside a crawl: ``scrapy predict-element`` and ``scrapy label``.

Local HTML files are served on 127.0.0.1 first, so that they render like any page.
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from urllib.parse import quote, urlsplit

from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings

from crawler.dataset import serve_html_folder

FEED_NAME = "capture-feed.jsonl"


def capture_only(settings: Settings, out: Path) -> Path:
    """Set a crawl up to store captures under ``out/store`` and its feed as ``out/FEED_NAME``
    (no classification, extraction or scoring); returns the feed path."""
    feed = out / FEED_NAME
    settings.setdict(
        {
            "ITEM_PIPELINES": {"pipelines.store.StorePipeline": 100},
            "PAGESIGHT_STORE_URI": str(out / "store"),
            "FEEDS": {str(feed): {"format": "jsonlines", "encoding": "utf8", "overwrite": True}},
            "PAGESIGHT_REPORT_DIR": "",
        },
        priority="cmdline",
    )
    return feed


def page_urls(sources: list[str], stack: ExitStack) -> list[str]:
    """http(s) URLs of ``sources`` (URLs or HTML files); files are served from their folder
    (one server per folder) for as long as ``stack`` is open. A file that does not exist is a ValueError."""
    urls, served = [], {}
    for source in sources:
        if urlsplit(source).scheme in ("http", "https"):
            urls.append(source)
            continue
        path = Path(source.removeprefix("file://"))
        if not path.is_file():
            raise ValueError(f"{source}: not an http(s) URL and no such file")
        folder = path.resolve().parent
        if folder not in served:
            served[folder] = stack.enter_context(serve_html_folder(folder))
        base = served[folder]
        name = path.name.removesuffix(".gz")
        urls.append(f"{base}/{quote(name)}")
    return urls


def crawl_pages(process: CrawlerProcess, urls: list[str]) -> None:
    """Render and store ``urls`` (no link following); blocks until the crawl ends."""
    process.crawl("news", start_urls=urls, follow="false")
    process.start()
