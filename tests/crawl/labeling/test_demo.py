"""`scrapy label` on the demo web's news portal, driven by the mouse alone: its fixed
cookie banner is hidden, ten articles are marked by clicks, and the model trained on them
picks the marked element on the three held-out articles."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import FloatRect, Page

from crawler.demo import DemoWeb
from crawler.snapshot import FEED_NAME
from models.element.data import read_capture_feed
from pipelines.extraction.dom import parse_html
from tests.crawl.labeling.test_labeling import app_page, label_server

pytestmark = pytest.mark.e2e
MARKED = 10
#: The element a person marks on a portal article: the story's text.
STORY_BODY = '//div[@class="story-body"]'


@pytest.fixture(scope="module")
def portal_app(tmp_path_factory) -> Iterator[tuple[str, Path]]:
    """`scrapy label` on the portal's thirteen articles; yields (app URL, labels path)."""
    labels = tmp_path_factory.mktemp("label-demo") / "labels.jsonl"
    with DemoWeb(seed=2026) as demo:
        urls = [
            page["url"] for page in demo.gold if page["site"] == "portal" and page["page_type"] == "article"
        ]
        assert len(urls) == MARKED + 3
        with label_server(",".join(urls), labels) as url:
            yield url, labels


def story_paths(labels: Path) -> dict[str, str]:
    """Each captured article's story body XPath, as lxml writes it, by URL."""
    paths = {}
    for capture in read_capture_feed(labels.with_name(labels.stem + ".captures") / FEED_NAME):
        root = parse_html(capture.read()[0])
        assert root is not None
        paths[capture.url] = root.getroottree().getpath(root.xpath(STORY_BODY)[0])
    return paths


def point_in(box: FloatRect | None) -> tuple[float, float]:
    assert box is not None, "the element is not shown"
    return box["x"] + 20, box["y"] + min(box["height"] / 2, 10)


def click(page: Page, selector: str) -> None:
    page.mouse.click(*point_in(page.locator(selector).bounding_box()))


def scroll_into_frame(page: Page, selector: str) -> FloatRect:
    """Wheel the stored page until the element is inside the frame (mouse only)."""
    frame = page.locator("#frame").bounding_box()
    assert frame is not None
    page.mouse.move(frame["x"] + 200, frame["y"] + 200)
    for _ in range(20):
        box = page.frame_locator("#frame").locator(selector).bounding_box()
        assert box is not None
        if frame["y"] <= box["y"] and box["y"] + 20 <= frame["y"] + frame["height"]:
            return box
        page.mouse.wheel(0, 300 if box["y"] > frame["y"] else -300)
        page.wait_for_timeout(100)
    raise AssertionError(f"{selector} never scrolled into the frame")


def test_ten_pages_marked_by_mouse_teach_the_held_out_ones(portal_app):
    url, labels = portal_app
    expected = story_paths(labels)
    with app_page(url, 1600, 1100) as page:
        story = page.frame_locator("#frame")
        page.wait_for_selector("body[data-loaded='0']")
        # The portal's cookie banner is fixed over the page, and its Accept button
        # needs the page's script: the labeler hides it, and can show it again.
        banner = story.locator("#cookie-consent")
        assert banner.evaluate("el => getComputedStyle(el).display") == "none"
        assert "/html/body/div[" in page.text_content("#overlay-list")
        click(page, "#overlays")
        assert banner.evaluate("el => getComputedStyle(el).display") == "flex"
        click(page, "#overlays")
        assert banner.evaluate("el => getComputedStyle(el).display") == "none"

        urls = [row["url"] for row in page.evaluate("state.pages")]
        for index in range(MARKED):
            page.wait_for_selector(f"body[data-loaded='{index}']")
            page.mouse.move(*point_in(story.locator("body").bounding_box()))
            page.mouse.click(*point_in(scroll_into_frame(page, ".story-body p.lead")))
            click(page, "#parent")
            assert page.text_content("#path") == expected[urls[index]]
            click(page, "#mark")
            page.wait_for_function(
                f"document.getElementById('marked').textContent === '{expected[urls[index]]}'"
            )
            click(page, "#next")
        lines = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
        assert [(line["url"], line["path"]) for line in lines] == [(u, expected[u]) for u in urls[:MARKED]]
        assert not any("page_type" in line for line in lines)  # nobody typed one

        click(page, "#train")
        page.wait_for_function(
            f"document.getElementById('status').textContent.startsWith('trained on {MARKED} pages')",
            timeout=180_000,
        )
        for index in range(MARKED, MARKED + 3):
            page.wait_for_selector(f"body[data-loaded='{index}']")
            click(page, "#predict")
            page.wait_for_function(
                "document.getElementById('prediction-path').textContent !== '-'", timeout=120_000
            )
            assert page.text_content("#prediction-path") == expected[urls[index]]
            assert "labels.model.npz" in page.text_content("#status")
            click(page, "#next")
