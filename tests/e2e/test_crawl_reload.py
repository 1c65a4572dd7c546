"""End-to-end: a page whose scripts replace its document while it is captured (here a
reload on resize, which the full-page screenshot causes) is stored as one document: the
HTML, boxes and screenshot all of the page it settled on; a page that reloads on every
resize ends as one ``error`` line that says so; and a capture, ended well or not, leaves
its tab on a blank document even when the page reloads itself without pause."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import lxml.html
import pytest
from playwright.async_api import async_playwright

from crawler.browser import find_chromium
from crawler.capture import MainDocument, capture_page
from crawler.dataset import serve_static_folder
from crawler.errors import PageKeptNavigating
from settings import PAGESIGHT_BROWSER_ARGS
from tests.crawl.test_middleware import default_options
from tests.e2e.test_crawl_restore import stored
from tests.support.crawling import run_crawl

pytestmark = pytest.mark.e2e

STORY = "The harbour board approved the new ferry timetable on Tuesday after a long debate. " * 12
#: The first document shows an article and reloads when the window is resized; the second
#: shows a section and stays (``RELOADS`` is the condition for reloading).
RELOADING_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ferry timetable</title>
<script>
const instance = Number(sessionStorage.getItem("instance") || 0) + 1;
sessionStorage.setItem("instance", String(instance));
addEventListener("DOMContentLoaded", () => {
  document.getElementById("story").innerHTML = instance === 1
    ? "<article><h1>First document</h1><p>STORY</p></article>"
    : "<section><h2>Second document</h2><p>STORY</p></section>";
});
if (RELOADS) addEventListener("resize", () => location.reload());
</script></head><body><main id="story"></main></body></html>
""".replace("STORY", STORY)


#: Reloads as soon as it runs: a navigation of the page's own is under way at almost
#: every moment, so a plain ``goto("about:blank")`` is interrupted about half the time.
SPINNING_PAGE = """<!doctype html><html><head><title>Spinning</title></head>
<body><p>STORY</p><script>setTimeout(() => location.reload(), 0);</script></body></html>
""".replace("STORY", STORY)


@pytest.fixture
def reloading_site(tmp_path: Path) -> Iterator[str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "once.html").write_text(RELOADING_PAGE.replace("RELOADS", "instance === 1"), encoding="utf-8")
    (site / "always.html").write_text(RELOADING_PAGE.replace("RELOADS", "true"), encoding="utf-8")
    (site / "spinning.html").write_text(SPINNING_PAGE, encoding="utf-8")
    with serve_static_folder(site) as base:
        yield base


def test_a_page_that_reloads_while_captured_is_stored_as_one_document(reloading_site: str, tmp_path: Path):
    once, always = f"{reloading_site}/once.html", f"{reloading_site}/always.html"
    run = run_crawl(
        tmp_path / "crawl",
        f"start_urls={once},{always}",
        "follow=false",
        settings={"PAGESIGHT_REPORT_DIR": ""},
    )
    assert run.returncode == 0, run.log[-3000:]
    records = run.by_url()
    assert set(records) == {once, always} and len(run.records) == 2, run.records

    settled = records[once]
    assert settled["status"] == "ok", settled
    assert not any(w.startswith("partial") for w in settled["warnings"]), settled["warnings"]
    tree = lxml.html.fromstring(stored(settled, "html")).getroottree()
    boxes = json.loads(stored(settled, "boxes"))
    assert {box["tag"] for box in boxes} >= {"section", "h2", "p"}, boxes
    for box in boxes:  # every box is an element of the stored HTML
        found = tree.xpath(box["path"])
        assert len(found) == 1 and found[0].tag == box["tag"], box
    # The feed's text is the settled document's: its story (its heading is a title the
    # extractors leave out), from the HTML stored once the page stopped reloading.
    assert tree.xpath("//main//h2/text()") == ["Second document"] and not tree.xpath("//main//h1")
    assert "ferry timetable" in settled["text"]

    unstable = records[always]
    assert unstable["status"] == "error", unstable
    assert "navigated away twice while it was captured" in unstable["error"], unstable


def test_every_capture_leaves_its_tab_blank_though_the_page_keeps_reloading(reloading_site: str):
    """Chromium may keep a tab whose close meets one of the page's own navigations, and
    ``page.close()`` then never returns; so the capture stops the page's scripts and leaves
    the tab on about:blank, on the failing path as on the good one."""
    tries = 8

    async def capture_each_time() -> list[str]:
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=find_chromium(), args=PAGESIGHT_BROWSER_ARGS
            )
            urls = []
            for _ in range(tries):
                page = await browser.new_page()
                await page.goto(f"{reloading_site}/spinning.html", wait_until="commit")
                with contextlib.suppress(PageKeptNavigating, TimeoutError):  # it never settles
                    await capture_page(page, default_options(), MainDocument())
                urls.append(page.url)
                await asyncio.wait_for(page.close(), timeout=10)
            await browser.close()
            return urls

    assert asyncio.run(capture_each_time()) == ["about:blank"] * tries
