"""End-to-end: what a page loads only when it is scrolled into view is in the capture.

The capture scrolls through the page and then waits until the network is quiet; it skips
that wait when nothing was requested. This page's lazy parts start their requests only
once scrolled to, and its fragment answers slowly, so a capture that stopped waiting too
early would store the page without them.
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlparse

import pytest
from PIL import Image

from crawler.dataset import serve_handler
from tests.crawling import run_crawl

pytestmark = pytest.mark.e2e

#: How long the server holds the lazily fetched fragment back.
FRAGMENT_DELAY = 0.4

LAZY_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>A page that loads as you scroll</title></head>
<body><article>
<h1>A page that loads as you scroll</h1>
<p>The first screen of this page holds only its introduction. Everything else arrives
when the reader scrolls down to it, as on many news sites that load their images and
their later paragraphs on demand to save bandwidth on phones.</p>
<div style="height: 3000px">Scroll down for the rest of the story.</div>
<img id="photo" loading="lazy" src="photo.png" width="120" height="80" alt="photo"
     onload="this.dataset.loaded = 'yes'">
<section id="more"></section>
</article>
<script>
new IntersectionObserver((entries, observer) => {
  if (!entries.some((entry) => entry.isIntersecting)) return;
  observer.disconnect();
  fetch("more.html").then((answer) => answer.text()).then((html) => {
    document.getElementById("more").innerHTML = html;
  });
}).observe(document.getElementById("more"));
</script>
</body></html>
"""

FRAGMENT = (
    "<p>Lazyloadedsentinel: this paragraph reaches the page only after the reader has "
    "scrolled to the end, fetched from the server when its section comes into view.</p>"
)


class SlowFragmentHandler(SimpleHTTPRequestHandler):
    """Serves the folder; the fragment only after FRAGMENT_DELAY."""

    def do_GET(self) -> None:
        if self.path.endswith("more.html"):
            time.sleep(FRAGMENT_DELAY)
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def lazy_site(tmp_path: Path) -> Iterator[str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(LAZY_PAGE, encoding="utf-8")
    (site / "more.html").write_text(FRAGMENT, encoding="utf-8")
    Image.new("RGB", (120, 80), (200, 30, 30)).save(site / "photo.png")
    with serve_handler(partial(SlowFragmentHandler, directory=str(site))) as base:
        yield f"{base}/index.html"


def test_content_loaded_on_scroll_is_captured(lazy_site: str, tmp_path: Path) -> None:
    run = run_crawl(
        tmp_path / "crawl", f"start_urls={lazy_site}", "follow=false", settings={"PAGESIGHT_REPORT_DIR": ""}
    )
    assert run.returncode == 0, run.log[-3000:]
    [record] = run.records
    assert record["status"] == "ok", record
    rendered = gzip.decompress(Path(urlparse(record["html"]["uri"]).path).read_bytes()).decode("utf-8")
    assert "Lazyloadedsentinel" in rendered
    assert 'data-loaded="yes"' in rendered
    assert "Lazyloadedsentinel" in record["text"]
