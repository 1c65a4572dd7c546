"""End-to-end: the element boxes and the screenshot wait for the page's web fonts.

The capture takes its screenshot straight through the DevTools protocol, which does not
wait for fonts; the box pass waits for them first (``document.fonts.ready``, at most
``PAGESIGHT_FONTS_TIMEOUT``). These pages switch a line of text to a web font only after
their load event, so the font is still on its way when the capture starts: served slowly,
the line's box must have the web font's width (as on the page whose font comes at once);
never served, the page is captured all the same, with a warning.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlparse

import matplotlib
import pytest

from crawler.dataset import serve_handler
from tests.support.crawling import run_crawl

pytestmark = pytest.mark.e2e

#: How long the server holds the slow font back, and the hanging one, s.
SLOW_FONT_DELAY = 1.5
HANGING_FONT_DELAY = 8.0
#: The crawl's fonts timeout, s: above the slow font's delay, below the hanging one's.
FONTS_TIMEOUT = 4

# The probe line is set in the web font (a wide monospace) only after the load event.
FONT_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>A page with a web font</title>
<style>@font-face { font-family: "Probe"; src: url("FONT") format("truetype"); }</style>
</head><body><article><h1>A page with a web font</h1>
<p>The line below is set in a font that the page asks for only after it has loaded.</p>
<p><span id="probe" style="font-size: 40px; font-family: serif">iiiiiiiiii</span></p>
</article>
<script>
window.addEventListener("load", () => {
  document.getElementById("probe").style.fontFamily = '"Probe", serif';
});
</script>
</body></html>
"""


class SlowFontHandler(SimpleHTTPRequestHandler):
    """Serves the folder; slow.ttf after SLOW_FONT_DELAY, hanging.ttf after HANGING_FONT_DELAY."""

    def do_GET(self) -> None:
        if self.path.endswith("slow.ttf"):
            time.sleep(SLOW_FONT_DELAY)
        elif self.path.endswith("hanging.ttf"):
            time.sleep(HANGING_FONT_DELAY)
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def font_site(tmp_path: Path) -> Iterator[str]:
    site = tmp_path / "site"
    site.mkdir()
    font = (Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSansMono.ttf").read_bytes()
    for name in ("quick", "slow", "hanging"):
        (site / f"{name}.ttf").write_bytes(font)
        (site / f"{name}.html").write_text(FONT_PAGE.replace("FONT", f"{name}.ttf"), encoding="utf-8")
    with serve_handler(partial(SlowFontHandler, directory=str(site))) as base:
        yield base


def probe_width(record: dict) -> float:
    boxes = json.loads(Path(urlparse(record["boxes"]["uri"]).path).read_text(encoding="utf-8"))
    (probe,) = [box for box in boxes if box["id"] == "probe"]
    return probe["w"]


def test_boxes_wait_for_web_fonts(font_site: str, tmp_path: Path) -> None:
    pages = ("quick.html", "slow.html", "hanging.html")
    run = run_crawl(
        tmp_path / "crawl",
        "start_urls=" + ",".join(f"{font_site}/{page}" for page in pages),
        "follow=false",
        settings={"PAGESIGHT_REPORT_DIR": "", "PAGESIGHT_FONTS_TIMEOUT": FONTS_TIMEOUT},
    )
    assert run.returncode == 0, run.log[-3000:]
    records = {urlparse(record["url"]).path.rsplit("/", 1)[-1]: record for record in run.records}
    assert sorted(records) == sorted(pages)
    assert all(record["status"] == "ok" for record in records.values()), run.records
    quick, slow, hanging = (probe_width(records[page]) for page in pages)
    # Ten "i" at 40 px: about 240 px in the monospace web font, about 110 px in a serif.
    assert quick > 200 and slow == quick, (quick, slow)
    assert hanging < 0.7 * quick, (quick, hanging)
    assert f"fonts: not loaded after {FONTS_TIMEOUT}s" in records["hanging.html"]["warnings"]
    assert not any(
        w.startswith("fonts:") for page in ("quick.html", "slow.html") for w in records[page]["warnings"]
    )
    assert records["hanging.html"]["screenshot"]["height"] > 0
