"""End-to-end: `scrapy crawl news` on the demo web, in real headless Chromium."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from urllib.parse import urlparse

import pytest
from PIL import Image

from tests.conftest import E2E_MAX_SCREENSHOT_HEIGHT
from tests.crawling import processes_with_marker, run_crawl

#: These tests start a real Chromium.
pytestmark = pytest.mark.e2e


def local(uri: str) -> Path:
    return Path(urlparse(uri).path)


def test_every_scheduled_url_is_one_feed_line(demo_crawl):
    records = demo_crawl.run.records
    counts = Counter(record["url"] for record in records)
    assert [url for url, n in counts.items() if n > 1] == []
    assert {record["status"] for record in records} <= {"ok", "skipped", "error"}
    gold_urls = {page["url"] for page in demo_crawl.gold}
    assert gold_urls <= set(counts), sorted(gold_urls - set(counts))[:5]
    for record in records:
        if record["url"] in gold_urls:
            assert record["status"] == "ok", record


def test_faults_end_as_error_or_skipped_lines_with_reasons(demo_crawl):
    by_url = demo_crawl.run.by_url()
    assert demo_crawl.error_urls and demo_crawl.hang_urls and demo_crawl.non_html_urls
    for url in demo_crawl.error_urls:
        assert by_url[url]["status"] == "error"
        assert by_url[url]["error"] in ("http: HTTP 500", "http: HTTP 503")
    for url in demo_crawl.hang_urls:
        assert by_url[url]["status"] == "error"
        assert by_url[url]["error"].startswith("timeout:")
    for url in demo_crawl.non_html_urls:
        assert by_url[url]["status"] == "skipped"
        assert by_url[url]["error"].startswith("not HTML (")
    for url in demo_crawl.robots_blocked_urls:
        assert by_url[url]["status"] == "skipped"
        assert by_url[url]["error"] == "robots: forbidden by robots.txt"


def test_huge_page_is_captured_with_a_capped_screenshot(demo_crawl):
    by_url = demo_crawl.run.by_url()
    assert demo_crawl.huge_urls
    for url in demo_crawl.huge_urls:
        record = by_url[url]
        assert record["status"] == "ok"
        assert record["screenshot"]["height"] == E2E_MAX_SCREENSHOT_HEIGHT
        assert record["html"]["bytes"] > 100_000


def test_screenshots_decode_at_the_viewport_width(demo_crawl):
    captured = [r for r in demo_crawl.run.records if r["status"] == "ok"]
    assert captured
    for record in captured:
        ref = record["screenshot"]
        data = local(ref["uri"]).read_bytes()
        assert hashlib.md5(data).hexdigest() == ref["checksum"]
        with Image.open(local(ref["uri"])) as image:
            image.load()
            assert image.size == (1366, ref["height"])


def test_element_boxes_are_inside_the_screenshot(demo_crawl):
    for record in (r for r in demo_crawl.run.records if r["status"] == "ok"):
        boxes = json.loads(local(record["boxes"]["uri"]).read_text(encoding="utf-8"))
        visible = [box for box in boxes if box["visible"]]
        assert visible, record["url"]
        assert {"tag", "id", "classes", "path", "x", "y", "w", "h", "visible", "text_len"} <= set(boxes[0])
        width, height = 1366, record["screenshot"]["height"]
        for box in visible:
            assert box["w"] > 0 and box["h"] > 0
            assert box["x"] >= 0 and box["x"] + box["w"] <= width + 1
            if box["y"] + box["h"] <= height:
                assert box["y"] >= 0
            assert box["path"].startswith("/html/body")


def test_rendered_html_is_stored(demo_crawl):
    for record in (r for r in demo_crawl.run.records if r["status"] == "ok"):
        import gzip

        html = gzip.decompress(local(record["html"]["uri"]).read_bytes()).decode("utf-8")
        assert "<body" in html.lower()


def test_no_chromium_is_left_after_the_crawl(demo_crawl):
    assert processes_with_marker(demo_crawl.run.marker) == []


def test_default_crawl_serves_the_demo_web_and_stops_it(tmp_path):
    run = run_crawl(
        tmp_path,
        "follow=false",
        settings={"PAGESIGHT_DEMO_GOLD": str(tmp_path / "gold.jsonl")},
    )
    assert run.returncode == 0, run.log[-3000:]
    assert "Serving the demo web" in run.log
    gold = [json.loads(line) for line in (tmp_path / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    home_pages = {
        page["url"] for page in gold if urlparse(page["url"]).path == "/" and not urlparse(page["url"]).query
    }
    assert len(home_pages) == 4
    assert {r["url"] for r in run.records} == home_pages
    assert all(r["status"] == "ok" for r in run.records)
    assert processes_with_marker(run.marker) == []
