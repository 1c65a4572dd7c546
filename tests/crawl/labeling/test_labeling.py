"""`scrapy label` end to end: pages of one layout rendered through the capture, the app
in headless Chromium (click and hover, keys, the gold file, review and undo, overlays,
train, predict), and the token."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import FloatRect, Page

from pipelines.evaluation.gold import read_gold_jsonl
from tests.support.element_pages import MAIN_PATH, layout_page
from tests.support.paths import ROOT

pytestmark = pytest.mark.e2e
STORY_PARAGRAPH = "#story > p:nth-of-type(2)"


@contextmanager
def label_server(source: str, labels: Path) -> Iterator[str]:
    """`scrapy label SOURCE --out LABELS` in a subprocess while the block runs; yields
    the app's URL."""
    command = [sys.executable, "-m", "scrapy", "label", source, "--out", str(labels)]
    process = subprocess.Popen(
        [*command, "-s", "LOG_LEVEL=WARNING"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stderr is not None
        line = process.stdout.readline()
        assert "open http://127.0.0.1:" in line, line + process.stderr.read()
        yield line.rsplit("open ", 1)[1].strip()
    finally:
        process.terminate()
        process.wait(timeout=30)


@contextmanager
def app_page(url: str, width: int = 1600, height: int = 1000) -> Iterator[Page]:
    """The labeling app at ``url`` in headless Chromium (the crawl's browser and flags)."""
    from playwright.sync_api import sync_playwright

    from crawler.browser import find_chromium
    from settings import PAGESIGHT_BROWSER_ARGS

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_chromium(), args=PAGESIGHT_BROWSER_ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(url)
            yield page
        finally:
            browser.close()


@pytest.fixture
def label_app(tmp_path):
    """`scrapy label` on four layout pages (files); yields (app URL, labels path)."""
    sources = []
    for index in range(4):
        path = tmp_path / "pages" / f"page{index}.html"
        path.parent.mkdir(exist_ok=True)
        path.write_text(layout_page(index, paragraphs=3 + index), encoding="utf-8")
        sources.append(str(path))
    labels = tmp_path / "labels.jsonl"
    with label_server(",".join(sources), labels) as url:
        yield url, labels


def test_requests_without_the_token_are_refused(label_app):
    url, _ = label_app
    for bad in (url.split("?")[0] + "api/pages", url.split("?")[0] + "api/pages?token=wrong"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(bad, timeout=10)
        assert refused.value.code == 403
    with urllib.request.urlopen(url.replace("/?", "/api/pages?"), timeout=10) as answer:
        assert len(json.load(answer)["pages"]) == 4


def center(box: FloatRect | None) -> tuple[float, float]:
    """A point near the top left of a box (its centre may lie beyond the frame's edge)."""
    assert box is not None, "the element is not shown"
    return box["x"] + min(box["width"] / 2, 30), box["y"] + min(box["height"] / 2, 12)


def test_a_click_locks_the_selection_across_the_header_to_the_toolbar(label_app):
    """The issue's walk: hover the body, click the article, move up across the page's
    header to the toolbar, click Mark: the article is marked, not the header."""
    url, labels = label_app
    with app_page(url) as page:
        page.wait_for_selector("body[data-loaded='0']")
        story = page.frame_locator("#frame")
        assert page.is_visible("#help") and "Click" in page.text_content("#help")
        page.mouse.move(*center(story.locator(".side").bounding_box()), steps=5)
        assert page.text_content("#hovered").startswith("/html/body/div[2]/div[2]")
        assert page.text_content("#path") == "-"  # hovering only previews
        assert "dotted" in story.locator(".side").evaluate("el => el.style.outline")

        page.mouse.click(*center(story.locator(STORY_PARAGRAPH).bounding_box()))
        assert page.text_content("#path") == MAIN_PATH + "/p[2]"
        page.click("#parent")
        assert page.text_content("#path") == MAIN_PATH
        assert int(page.text_content("#textlen")) > 300

        menu = story.locator(".menu li:nth-child(3)").bounding_box()
        page.mouse.move(*center(menu), steps=15)
        hovered = page.text_content("#hovered")
        assert hovered.startswith("/html/body/div[1]/ul/li[3]")
        assert "dotted" in story.locator(f"xpath={hovered}").evaluate("el => el.style.outline")
        assert page.text_content("#path") == MAIN_PATH
        page.mouse.move(*center(page.locator("#mark").bounding_box()), steps=15)
        assert page.text_content("#path") == MAIN_PATH
        assert page.text_content("#hovered") == "-"  # the mouse left the page
        page.mouse.click(*center(page.locator("#mark").bounding_box()))
        page.wait_for_function(f"document.getElementById('marked').textContent === '{MAIN_PATH}'")
        assert [json.loads(line)["path"] for line in labels.read_text(encoding="utf-8").splitlines()] == [
            MAIN_PATH
        ]

        # The mark keeps its own outline and its XPath and length stay shown while
        # the selection moves on.
        page.mouse.click(*center(story.locator(".foot p").bounding_box()))
        assert page.text_content("#path") == "/html/body/div[3]/p"
        assert "double" in story.locator("#story").evaluate("el => el.style.outline")
        assert "solid" in story.locator(".foot p").evaluate("el => el.style.outline")
        assert page.text_content("#marked") == MAIN_PATH
        assert int(page.text_content("#marked-chars")) > 300
        # No page type is gold until a person sets one.
        assert page.text_content("#type") == "not set"
        assert "page_type" not in json.loads(labels.read_text(encoding="utf-8"))
        page.click("#article")
        page.wait_for_function("document.getElementById('type').textContent === 'article (yours)'")
        assert json.loads(labels.read_text(encoding="utf-8"))["page_type"] == "article"
        assert page.text_content("#path") == "/html/body/div[3]/p"  # toolbar clicks keep it

        # Review and undo: the page's clear button takes its line out of the gold file.
        page.click("#summary")
        assert "1 marked, 1 typed, 0 skipped of 4 pages" in page.text_content("#summary")
        page.click("#review-rows button[data-index='0']")
        page.wait_for_function("document.getElementById('marked').textContent === '-'")
        assert labels.read_text(encoding="utf-8") == ""
        assert story.locator("#story").evaluate("el => el.style.outline") == ""
        assert page.text_content("#type") == "not set"


def test_mark_train_predict_in_the_browser(label_app):
    """Keys and buttons: select by click, widen with u, mark with m, train, predict."""
    url, labels = label_app
    with app_page(url) as page:
        story = page.frame_locator("#frame")
        for index in range(3):
            page.wait_for_selector(f"body[data-loaded='{index}']")
            story.locator(STORY_PARAGRAPH).click()
            assert page.text_content("#path") == MAIN_PATH + "/p[2]"
            assert int(page.text_content("#textlen")) > 100
            outline = story.locator(STORY_PARAGRAPH).evaluate("el => el.style.outline")
            assert "solid" in outline
            page.keyboard.press("u")  # widen to the story
            assert page.text_content("#path") == MAIN_PATH
            page.keyboard.press("d")  # and back towards the clicked paragraph
            assert page.text_content("#path") == MAIN_PATH + "/p[2]"
            page.keyboard.press("u")
            page.keyboard.press("m")
            page.wait_for_function(f"document.getElementById('marked').textContent === '{MAIN_PATH}'")
            gold = read_gold_jsonl(labels)
            assert len(gold) == index + 1
            line = json.loads(labels.read_text(encoding="utf-8").splitlines()[index])
            assert line["path"] == MAIN_PATH and line["url"].endswith(f"/page{index}.html")
            assert line["text"].startswith(story.locator("h1").text_content())
            page.keyboard.press("n")

        page.wait_for_selector("body[data-loaded='3']")
        page.click("#train")
        page.wait_for_function(
            "document.getElementById('status').textContent.startsWith('trained on 3 pages')",
            timeout=180_000,
        )
        page.click("#predict")
        page.wait_for_function(
            "document.getElementById('prediction-path').textContent !== '-'", timeout=120_000
        )
        assert page.text_content("#prediction-path") == MAIN_PATH
        assert "dashed" in story.locator("#story").evaluate("el => el.style.outline")
    assert len(read_gold_jsonl(labels)) == 3


#: A page whose text lives in a fixed full-screen shell (kept) under a fixed cookie bar
#: the capture leaves (it covers no point the capture probes), with the body scroll-locked.
APP_SHELL_PAGE = (
    "<!DOCTYPE html><html><head><style>body{margin:0;overflow:hidden}"
    "#app{position:fixed;inset:0;overflow:auto;padding:20px}"
    ".bar{position:fixed;left:0;right:0;bottom:0;height:50px;background:#222;color:#eee}</style></head>"
    "<body><div id='app'><h1>Harbour notes</h1>"
    + "".join(
        f"<p>Paragraph {i} about the river, the market and the station in spring.</p>" for i in range(30)
    )
    + "</div><div class='bar'>We use cookies. <button>Accept</button></div></body></html>"
)


def test_fixed_overlays_are_hidden_and_can_be_shown(tmp_path):
    page_file = tmp_path / "shell.html"
    page_file.write_text(APP_SHELL_PAGE, encoding="utf-8")
    with label_server(str(page_file), tmp_path / "labels.jsonl") as url, app_page(url, 1400, 900) as page:
        page.wait_for_selector("body[data-loaded='0']")
        stored = page.frame_locator("#frame")
        display = "el => getComputedStyle(el).display"
        assert page.text_content("#overlay-list") == "/html/body/div[2]"
        assert stored.locator(".bar").evaluate(display) == "none"
        assert stored.locator("#app").evaluate(display) == "block"
        assert stored.locator("body").evaluate("el => getComputedStyle(el).overflowY") == "auto"
        page.click("#overlays")
        assert stored.locator(".bar").evaluate(display) == "block"
        assert stored.locator("body").evaluate("el => getComputedStyle(el).overflowY") == "hidden"
        assert page.text_content("#overlay-list").startswith("none, shown again")
        page.keyboard.press("o")
        assert stored.locator(".bar").evaluate(display) == "none"
