"""End-to-end: the screenshot shows no text caret, and the capture leaves no trace of
hiding it.

A page that focuses a text field on load shows a blinking caret; a screenshot taken
while it is on would differ from one taken a moment later. These pages focus a large,
white-on-white field whose caret is pure red, so any red pixel in the screenshot is the
caret. The caret blinks: a capture without the hiding style shows it on a third to a half
of the pages, so a crawl of several such pages catches it.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import numpy as np
import pytest
from PIL import Image

from crawler.capture import CARET_STYLE_ID
from crawler.dataset import serve_static_folder
from tests.support.crawling import run_crawl

pytestmark = pytest.mark.e2e

#: Pages crawled; with the caret shown on a third of the captures, all of them missing it
#: by chance would happen in (2/3)**PAGES of the crawls without the style (4 %).
PAGES = 8

CARET_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>A page with a focused field</title></head>
<body style="margin: 0; background: white">
<h1>A page that focuses its search field</h1>
<input id="field" autofocus value="" style="font-size: 200px; width: 600px; height: 300px;
  border: 0; outline: 0; color: white; background: white; caret-color: rgb(255, 0, 0)">
<p>Some text under the field, so the page has content to extract.</p>
<script>document.getElementById("field").focus();</script>
</body></html>
"""


@pytest.fixture
def caret_site(tmp_path: Path) -> Iterator[str]:
    site = tmp_path / "site"
    site.mkdir()
    for n in range(PAGES):
        (site / f"field-{n}.html").write_text(CARET_PAGE, encoding="utf-8")
    with serve_static_folder(site) as base:
        yield base


def red_pixels(path: Path) -> int:
    with Image.open(path) as image:
        rgb = np.asarray(image.convert("RGB")).astype(int)
    return int(((rgb[..., 0] > 200) & (rgb[..., 1] < 80) & (rgb[..., 2] < 80)).sum())


def test_screenshots_show_no_caret_and_the_html_keeps_no_trace(caret_site: str, tmp_path: Path) -> None:
    run = run_crawl(
        tmp_path / "crawl",
        "start_urls=" + ",".join(f"{caret_site}/field-{n}.html" for n in range(PAGES)),
        "follow=false",
        settings={"PAGESIGHT_REPORT_DIR": ""},
    )
    assert run.returncode == 0, run.log[-3000:]
    assert len(run.records) == PAGES and all(r["status"] == "ok" for r in run.records), run.records
    for record in run.records:
        shot = Path(urlparse(record["screenshot"]["uri"]).path)
        assert red_pixels(shot) == 0, record["url"]
        html = gzip.decompress(Path(urlparse(record["html"]["uri"]).path).read_bytes()).decode("utf-8")
        assert 'id="field"' in html and CARET_STYLE_ID not in html
