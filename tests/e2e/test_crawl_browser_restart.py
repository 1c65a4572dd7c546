"""The browser is restarted every PAGESIGHT_BROWSER_RESTART_PAGES pages, and no page is
cut off by it: each ends as an ok line, and no Chromium is left."""

import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.crawling import processes_with_marker, run_crawl

#: These tests start a real Chromium.
pytestmark = pytest.mark.e2e


def stat(log: str, name: str) -> int | None:
    found = re.search(rf"'{re.escape(name)}': (\d+)", log)
    return int(found.group(1)) if found else None


def test_the_browser_is_restarted_between_pages(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    for n in range(7):
        (site / f"page-{n}.html").write_text(
            f"<html><body><h1>Page {n}</h1><p>text of page {n}</p></body></html>"
        )
    handler = lambda *a, **kw: SimpleHTTPRequestHandler(*a, directory=str(site), **kw)  # noqa: E731
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    urls = [f"{base}/page-{n}.html" for n in range(7)]
    try:
        run = run_crawl(
            tmp_path / "crawl",
            "start_urls=" + ",".join(urls),
            "follow=false",
            settings={
                "ROBOTSTXT_OBEY": False,
                "PAGESIGHT_BROWSER_RESTART_PAGES": 3,
                "ITEM_PIPELINES": {"pipelines.store.StorePipeline": 100},
            },
        )
    finally:
        server.shutdown()
        server.server_close()
    assert run.returncode == 0, run.log[-3000:]
    assert sorted(record["url"] for record in run.records) == sorted(urls)
    assert all(record["status"] == "ok" and record["html"] for record in run.records), run.log[-3000:]
    assert stat(run.log, "pagesight/browser/restarts") == 2  # before the 4th and the 7th page
    assert stat(run.log, "playwright/browser_count") == 3
    assert run.log.count("Browser restarted after 3 pages") == 2
    assert processes_with_marker(run.marker) == []
