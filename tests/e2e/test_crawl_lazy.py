"""End-to-end: what a page loads only when it is scrolled into view is in the capture.

The capture scrolls through the page and then waits until the network is quiet; it skips
that wait when nothing was requested. These pages' lazy parts start their requests only
once scrolled to (an IntersectionObserver and a lazy image; a scroll listener on the
window; a body onscroll handler), and the fragment answers slowly, so a capture that
stopped waiting too early, or did not scroll, would store a page without them. A page
whose only lazy part is a natively lazy image has it loaded without a scroll; a page where
nothing can react to scrolling is left as it is.
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
from tests.support.crawling import run_crawl

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

#: Loads the fragment from a scroll handler once the reader nears the end (HANDLER is
#: replaced by how the page registers it).
SCROLL_HANDLER_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>A page that listens to scrolling</title></head>
<body BODY_ATTRIBUTE><article>
<h1>A page that listens to scrolling</h1>
<p>The rest of this story arrives when the reader comes near its end, loaded by a scroll
handler, as older infinite-scroll scripts and jQuery plugins do.</p>
<div style="height: 3000px">Scroll down for the rest of the story.</div>
<section id="more"></section>
</article>
<script>
let asked = false;
function loadMore() {
  if (asked || window.scrollY + window.innerHeight < document.body.scrollHeight - 400) return;
  asked = true;
  fetch("more.html").then((answer) => answer.text()).then((html) => {
    document.getElementById("more").innerHTML = html;
  });
}
HANDLER
</script>
</body></html>
"""

#: Only a natively lazy image reacts to scrolling here: it is loaded without a scroll.
LAZY_IMAGE_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>A page with a lazy photo</title></head>
<body><article><h1>A page with a lazy photo</h1>
<p>The photo at the end of this page is loaded only when it comes near the screen.</p>
<div style="height: 3000px">A long page.</div>
<img id="photo" loading="lazy" src="photo.png" width="120" height="80" alt="photo"
     onload="this.dataset.loaded = 'yes'">
</article></body></html>
"""

STATIC_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>A page that stays as it is</title></head>
<body><article><h1>A page that stays as it is</h1>
<p>Nothing on this page reacts to scrolling: no script, no lazy image.</p>
<div style="height: 3000px">A long page all the same.</div>
<p>Its last paragraph is in the HTML from the start.</p>
</article></body></html>
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
    listener = SCROLL_HANDLER_PAGE.replace("BODY_ATTRIBUTE", "")
    listener = listener.replace("HANDLER", "window.addEventListener('scroll', loadMore);")
    (site / "listener.html").write_text(listener, encoding="utf-8")
    onscroll = SCROLL_HANDLER_PAGE.replace("BODY_ATTRIBUTE", 'onscroll="loadMore()"').replace("HANDLER", "")
    (site / "onscroll.html").write_text(onscroll, encoding="utf-8")
    (site / "lazy-image.html").write_text(LAZY_IMAGE_PAGE, encoding="utf-8")
    (site / "static.html").write_text(STATIC_PAGE, encoding="utf-8")
    (site / "more.html").write_text(FRAGMENT, encoding="utf-8")
    Image.new("RGB", (120, 80), (200, 30, 30)).save(site / "photo.png")
    with serve_handler(partial(SlowFragmentHandler, directory=str(site))) as base:
        yield base


def rendered_html(record: dict) -> str:
    return gzip.decompress(Path(urlparse(record["html"]["uri"]).path).read_bytes()).decode("utf-8")


def test_content_loaded_on_scroll_is_captured(lazy_site: str, tmp_path: Path) -> None:
    pages = ("index.html", "listener.html", "onscroll.html", "lazy-image.html", "static.html")
    urls = ",".join(f"{lazy_site}/{page}" for page in pages)
    run = run_crawl(
        tmp_path / "crawl", f"start_urls={urls}", "follow=false", settings={"PAGESIGHT_REPORT_DIR": ""}
    )
    assert run.returncode == 0, run.log[-3000:]
    records = {urlparse(record["url"]).path.rsplit("/", 1)[-1]: record for record in run.records}
    assert sorted(records) == sorted(pages)
    assert all(record["status"] == "ok" for record in records.values()), run.records
    lazy = rendered_html(records["index.html"])
    assert "Lazyloadedsentinel" in lazy
    assert 'data-loaded="yes"' in lazy
    for page in ("index.html", "listener.html", "onscroll.html"):
        assert "Lazyloadedsentinel" in records[page]["text"], page
        assert "scroll" in records[page]["timings_ms"], page
    lazy_image = records["lazy-image.html"]
    assert 'data-loaded="yes"' in rendered_html(lazy_image)
    assert "lazy_media" in lazy_image["timings_ms"] and "scroll" not in lazy_image["timings_ms"]
    static = records["static.html"]
    assert "scroll" not in static["timings_ms"] and "lazy_media" not in static["timings_ms"]
    assert "Its last paragraph" in static["text"]
