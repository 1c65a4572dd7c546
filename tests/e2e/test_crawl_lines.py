"""End-to-end: every scheduled URL ends as exactly one feed line, whatever a pipeline, a
spider callback or a malformed link raises (crawler.lines, pipelines.steps)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path

import pytest

from crawler.dataset import serve_handler
from settings import ITEM_PIPELINES
from tests.crawl.test_frontier import MALFORMED_PIECES
from tests.support.crawling import run_crawl
from tests.support.planted import POSITIONS, SPIDER_FAILS_ON, STAGES

#: These tests start a real Chromium.
pytestmark = pytest.mark.e2e

STORY = "<p>The harbour board met on Monday and agreed to reopen the ferry pier after repairs.</p>" * 5


def home_page() -> str:
    bad = "".join(f'<li><a href="{href}">bad link</a></li>' for href in MALFORMED_PIECES if '"' not in href)
    return (
        "<html><head><title>Harbour news</title></head><body><h1>Harbour news</h1><ul>"
        '<li><a href="/story.html">Ferry pier to reopen</a></li>'
        f'<li><a href="{SPIDER_FAILS_ON}">A page whose callback fails</a></li>'
        f"{bad}</ul></body></html>"
    )


@pytest.fixture
def harbour_site(tmp_path: Path) -> Iterator[str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(home_page(), encoding="utf-8")
    story = f"<html><head><title>Ferry pier</title></head><body><article><h1>Ferry pier</h1>{STORY}</article></body></html>"
    (site / "story.html").write_text(story, encoding="utf-8")
    (site / SPIDER_FAILS_ON.lstrip("/")).write_text(story.replace("Ferry pier", "Broken"), encoding="utf-8")
    with serve_handler(partial(SimpleHTTPRequestHandler, directory=str(site))) as base:
        yield base


def test_raising_stages_at_every_pipeline_position_lose_no_line(harbour_site: str, tmp_path: Path) -> None:
    run = run_crawl(
        tmp_path / "crawl",
        f"start_urls={harbour_site}/index.html",
        settings={
            "ITEM_PIPELINES": {**ITEM_PIPELINES, **STAGES},
            "SPIDER_MIDDLEWARES": {
                "crawler.lines.LineGuardMiddleware": 950,
                "tests.support.planted.RaisingSpiderMiddleware": 960,
            },
            "PAGESIGHT_EXTRACTOR": "iawce",
        },
    )
    assert run.returncode == 0, run.log[-3000:]
    counts = Counter(record["url"] for record in run.records)
    pages = {f"{harbour_site}/index.html", f"{harbour_site}/story.html", f"{harbour_site}{SPIDER_FAILS_ON}"}
    assert pages <= set(counts), (counts, run.log[-3000:])
    # Malformed links that still resolve on the site (http:///no-host) are lines too.
    assert set(counts.values()) == {1}
    assert int(re.search(r"'scheduler/enqueued': (\d+)", run.log)[1]) == len(counts)
    by_url = run.by_url()
    story = by_url[f"{harbour_site}/story.html"]
    # Every planted stage left its warning, and the real steps between them did their work.
    planted = [warning for warning in story["warnings"] if "planted" in warning]
    assert len(planted) == len(POSITIONS), story["warnings"]
    assert planted[-1].startswith("planted: DropItem: planted drop")
    assert story["status"] == "ok" and "harbour board met on Monday" in story["text"]
    assert story["screenshot"] and story["simhash"] and story["page_type"] == "article"
    broken = by_url[f"{harbour_site}{SPIDER_FAILS_ON}"]
    assert broken["status"] == "error"
    assert broken["error"] == "spider: ValueError: planted in the spider's callback"
    assert "Error processing" not in run.log and "Spider error processing" not in run.log


MOVED_AWAY = (
    "<html><head><title>Pier story</title>"
    '<script>location.replace("https://" + location.host + "/moved/story.html");</script>'
    f"</head><body><article><h1>Ferry pier</h1>{STORY}</article></body></html>"
)


def test_a_page_whose_script_moves_to_a_dead_address_is_kept_from_the_server(tmp_path: Path) -> None:
    """The server answered 200 with the article; its script then sent Chromium to
    https:// on a plain-HTTP port (net::ERR_SSL_PROTOCOL_ERROR)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "moved.html").write_text(MOVED_AWAY, encoding="utf-8")
    with serve_handler(partial(SimpleHTTPRequestHandler, directory=str(site))) as base:
        run = run_crawl(tmp_path / "crawl", f"start_urls={base}/moved.html", "follow=false")
    assert run.returncode == 0, run.log[-3000:]
    (record,) = run.records
    assert record["status"] == "ok", record
    assert record["final_url"] == f"{base}/moved.html"
    assert "harbour board met on Monday" in record["text"]
    (served,) = [warning for warning in record["warnings"] if warning.startswith("served: ")]
    assert re.search(r"net::ERR_SSL_PROTOCOL_ERROR at https://127\.0\.0\.1:\d+/moved/story\.html$", served)
