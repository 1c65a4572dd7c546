"""A renderer crash ends as an error line; the rest of the crawl goes on."""

import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.crawling import processes_with_marker, run_crawl

#: These tests start a real Chromium.
pytestmark = pytest.mark.e2e


def test_renderer_crash_is_an_error_line(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "crash-me.html").write_text("<html><body><p>going down</p></body></html>")
    (site / "fine.html").write_text("<html><body><p>still fine</p></body></html>")
    handler = lambda *a, **kw: SimpleHTTPRequestHandler(*a, directory=str(site), **kw)  # noqa: E731
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        run = run_crawl(
            tmp_path / "crawl",
            f"start_urls={base}/crash-me.html,{base}/fine.html",
            "follow=false",
            settings={
                "ROBOTSTXT_OBEY": False,
                "PAGESIGHT_CAPTURE_TIMEOUT": 20,
                "ITEM_PIPELINES": {"pipelines.store.StorePipeline": 100},
                "DOWNLOADER_MIDDLEWARES": {
                    "crawler.middlewares.CaptureMiddleware": 950,
                    "tests.support.crashing.CrashRendererMiddleware": 960,
                },
            },
        )
    finally:
        server.shutdown()
        server.server_close()
    assert run.returncode == 0, run.log[-3000:]
    by_url = run.by_url()
    assert by_url[f"{base}/crash-me.html"]["status"] == "error"
    assert by_url[f"{base}/crash-me.html"]["error"].startswith("renderer-crash:")
    assert by_url[f"{base}/fine.html"]["status"] == "ok"
    assert processes_with_marker(run.marker) == []
