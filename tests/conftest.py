"""Shared fixtures: one real crawl of the demo web (with every fault knob on), reused by
the end-to-end tests of capture, classification, extraction and scoring."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from crawler.demo import DemoWeb, Faults
from tests.support.crawling import CrawlRun, run_crawl

#: Screenshot height cap of the end-to-end crawl (the huge page is taller).
E2E_MAX_SCREENSHOT_HEIGHT = 6000


@dataclass
class DemoCrawl:
    """The served demo web's facts (URLs behind each fault) and the finished crawl."""

    gold: list[dict]
    gold_path: Path
    error_urls: list[str]
    hang_urls: list[str]
    huge_urls: list[str]
    non_html_urls: list[str]
    robots_blocked_urls: list[str]
    script_redirect_urls: list[str]
    stalled_urls: list[str]
    run: CrawlRun
    out_dir: Path


@pytest.fixture(scope="session")
def demo_crawl(tmp_path_factory) -> DemoCrawl:
    out_dir = tmp_path_factory.mktemp("demo-crawl")
    # Every fault knob but latency: served without charset and with a late <meta>, under
    # a consent banner, with hanging, stalled, huge, non-HTML and dead-redirect pages.
    faults = Faults(
        error_rate=0.1,
        hang=True,
        huge=True,
        non_html=True,
        no_charset=True,
        late_meta=True,
        script_redirect=True,
        stalled=True,
        consent=True,
    )
    with DemoWeb(seed=2026, faults=faults) as demo:
        gold_path = demo.write_gold(out_dir / "gold.jsonl")
        run = run_crawl(
            out_dir,
            f"start_urls={','.join(demo.seed_urls)}",
            f"gold={gold_path}",
            settings={
                "PAGESIGHT_PAGE_TIMEOUT": 15,
                "PAGESIGHT_DOCUMENT_TIMEOUT": 3,
                "PAGESIGHT_DENY_EXTENSIONS": [],
                "PAGESIGHT_MAX_SCREENSHOT_HEIGHT": E2E_MAX_SCREENSHOT_HEIGHT,
                "PAGESIGHT_REPORT_DIR": str(out_dir / "report"),
            },
        )
        crawl = DemoCrawl(
            gold=demo.gold,
            gold_path=gold_path,
            error_urls=demo.error_urls,
            hang_urls=demo.hang_urls,
            huge_urls=demo.huge_urls,
            non_html_urls=demo.non_html_urls,
            robots_blocked_urls=demo.robots_blocked_urls,
            script_redirect_urls=demo.script_redirect_urls,
            stalled_urls=demo.stalled_urls,
            run=run,
            out_dir=out_dir,
        )
    assert run.returncode == 0, run.log[-5000:]
    return crawl
