"""End-to-end: `scrapy crawl news` on the demo web, in real headless Chromium."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from urllib.parse import urlparse

import pytest
from PIL import Image

from crawler.demo.generator import STALLED_SCRIPT_PAGE_PATH
from crawler.demo.server import CONSENT_BANNER
from crawler.items import PARTIAL_LOAD_WARNING
from pipelines.evaluation.text import tokens
from tests.conftest import E2E_MAX_SCREENSHOT_HEIGHT
from tests.support.crawling import processes_with_marker, run_crawl

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


def test_faults_end_as_lines_with_reasons(demo_crawl):
    by_url = demo_crawl.run.by_url()
    assert demo_crawl.error_urls and demo_crawl.hang_urls and demo_crawl.non_html_urls
    assert demo_crawl.script_redirect_urls
    for url in demo_crawl.error_urls:
        assert by_url[url]["status"] == "error"
        assert by_url[url]["error"] in ("http: HTTP 500", "http: HTTP 503")
    for url in demo_crawl.script_redirect_urls:
        # The server sent the page; its script then sent Chromium to a TLS address on a
        # plain-HTTP port. The line keeps what the server sent, and says why.
        record = by_url[url]
        assert record["status"] == "ok" and record["text"], record
        assert record["final_url"] == url
        assert any(
            re.fullmatch(
                r"served: .*: net::ERR_SSL_PROTOCOL_ERROR at https://127\.0\.0\.1:\d+/moved/new-story\.html",
                warning,
            )
            for warning in record["warnings"]
        ), record["warnings"]
    for url in demo_crawl.non_html_urls:
        assert by_url[url]["status"] == "skipped"
        assert by_url[url]["error"].startswith("not HTML (")
    for url in demo_crawl.robots_blocked_urls:
        assert by_url[url]["status"] == "skipped"
        assert by_url[url]["error"] == "robots: forbidden by robots.txt"


def read_from_server_bytes(record: dict) -> bool:
    """The render was cut off before its text: the extraction read the server's bytes."""
    return any("from the server's bytes" in warning for warning in record["warnings"])


@pytest.mark.e2e
def test_pages_that_never_finish_loading_are_kept_as_rendered(demo_crawl):
    by_url = demo_crawl.run.by_url()
    assert demo_crawl.hang_urls and demo_crawl.stalled_urls
    for url in demo_crawl.hang_urls + demo_crawl.stalled_urls:
        record = by_url[url]
        assert record["status"] == "ok", record
        assert PARTIAL_LOAD_WARNING in record["warnings"]
        assert record["final_url"] == url
        assert len(tokens(record["text"])) > 50
    for url in demo_crawl.stalled_urls:  # its document arrived whole: decided and stored
        assert by_url[url]["encoding"] == "utf-8" and by_url[url]["raw_html"]
    # The page whose parser-blocking script never came rendered none of its text: its
    # text above comes from the server's bytes, and the line says so.
    read_from_bytes = [url for url in demo_crawl.stalled_urls if read_from_server_bytes(by_url[url])]
    assert read_from_bytes == [
        url for url in demo_crawl.stalled_urls if url.endswith(STALLED_SCRIPT_PAGE_PATH)
    ]


@pytest.mark.e2e
def test_encoding_is_decided_before_chromium_without_a_charset_header(demo_crawl):
    # Served as plain text/html with the <meta charset> past the first 1024 bytes: each
    # site's legacy encoding is decided from the bytes and the feed holds real text.
    codecs = {"portal": "utf-8", "blog": "cp932", "gov": "gb18030", "magazine": "cp1251"}
    scripts = {"blog": "[\u3040-\u30ff]", "gov": "[\u4e00-\u9fff]", "magazine": "[\u0400-\u04ff]"}
    gold_urls = {page["url"]: page for page in demo_crawl.gold}
    checked = Counter()
    for record in demo_crawl.run.records:
        if record["url"] not in gold_urls:
            continue
        site = gold_urls[record["url"]]["site"]
        assert record["encoding"] == codecs[site], record["url"]
        # English pages may be pure ASCII: then their <meta> decides.
        assert record["encoding_source"] in (("utf-8", "meta") if site == "portal" else ("meta", "detected"))
        assert record["final_url"] == record["url"]
        assert "Ã" not in record["text"] and "Ð" not in record["text"]
        if site in scripts:
            assert len(re.findall(scripts[site], record["text"])) > 20, record["url"]
        served = gzip.decompress(local(record["raw_html"]["uri"]).read_bytes())
        assert served.decode(codecs[site]).count("<meta charset=") == 1
        checked[site] += 1
    assert set(checked) == set(codecs)


@pytest.mark.e2e
def test_consent_banner_is_hidden_before_boxes_and_screenshot(demo_crawl):
    banner_class = re.search(rb'class="([^"]+)"', CONSENT_BANNER).group(1).decode()
    captured = [r for r in demo_crawl.run.records if r["status"] == "ok"]
    assert captured
    for record in captured:
        assert "We use cookies" not in (record["text"] or "")
        if record["url"] in demo_crawl.hang_urls or read_from_server_bytes(record):  # no </body> rendered
            continue
        assert f"overlay hidden: div.{banner_class}" in record["warnings"], record["url"]
        boxes = json.loads(local(record["boxes"]["uri"]).read_text(encoding="utf-8"))
        banner = [box for box in boxes if banner_class in box["classes"]]
        if record["url"] not in demo_crawl.huge_urls:  # whose boxes stop at PAGESIGHT_MAX_BOXES
            assert banner, record["url"]
        assert not any(box["visible"] for box in banner)


def test_huge_page_is_captured_with_a_capped_screenshot(demo_crawl):
    by_url = demo_crawl.run.by_url()
    assert demo_crawl.huge_urls
    for url in demo_crawl.huge_urls:
        record = by_url[url]
        assert record["status"] == "ok", record["error"]
        assert record["html"]["bytes"] > 100_000
        # 2.4 million pixels tall: shot one screen at a time down to the cut, not painted whole.
        assert record["screenshot"]["height"] == E2E_MAX_SCREENSHOT_HEIGHT
        stacked = [w for w in record["warnings"] if w.startswith("stacked: ")]
        assert len(stacked) == 1, record["warnings"]
        assert stacked[0].endswith(
            f"px tall, its first {E2E_MAX_SCREENSHOT_HEIGHT}px shot one screen at a time"
        )
        assert int(stacked[0].split()[2].removesuffix("px")) > 1_000_000


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
        assert visible or read_from_server_bytes(record), record["url"]  # else nothing rendered
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


def test_the_objects_alive_at_start_are_frozen_for_the_crawl(demo_crawl):
    frozen = re.search(r"'pagesight/memory/gc_frozen_objects': (\d+)", demo_crawl.run.log)
    assert frozen is not None, demo_crawl.run.log[-3000:]
    assert int(frozen.group(1)) > 100_000  # the models and libraries, loaded before the spider opens
