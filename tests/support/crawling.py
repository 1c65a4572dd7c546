"""Run real crawls for the end-to-end tests: `scrapy crawl news` in a subprocess (its own
reactor and browser), and a way to see which Chromium processes it left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import ROOT


@dataclass
class CrawlRun:
    """A finished crawl: its feed lines, its log, and the marker its processes carried."""

    records: list[dict]
    log: str
    marker: str
    returncode: int

    def by_url(self) -> dict[str, dict]:
        return {record["url"]: record for record in self.records}


def run_crawl(
    out_dir: Path,
    *spider_args: str,
    settings: dict[str, object] | None = None,
    timeout: float = 600,
) -> CrawlRun:
    """Crawl with `scrapy crawl news -a ARG…`, feed to out_dir/feed.jsonl, store in out_dir."""
    out_dir.mkdir(parents=True, exist_ok=True)
    feed = out_dir / "feed.jsonl"
    command = [sys.executable, "-m", "scrapy", "crawl", "news", "-O", str(feed)]
    for arg in spider_args:
        command += ["-a", arg]
    merged = {"PAGESIGHT_STORE_URI": str(out_dir / "store"), "LOG_LEVEL": "INFO"}
    merged.update(settings or {})
    for name, value in merged.items():
        text = value if isinstance(value, str) else json.dumps(value)
        command += ["-s", f"{name}={text}"]
    marker = uuid.uuid4().hex
    env = dict(os.environ, PAGESIGHT_TEST_RUN=marker)
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    records = []
    if feed.exists():
        # "\n" ends a line: a text may hold U+2028, which str.splitlines would split at
        records = [json.loads(line) for line in feed.read_text(encoding="utf-8").split("\n") if line]
    return CrawlRun(records, done.stdout + done.stderr, marker, done.returncode)


def processes_with_marker(marker: str) -> list[int]:
    """PIDs of live processes whose environment carries ``PAGESIGHT_TEST_RUN=marker``."""
    needle = f"PAGESIGHT_TEST_RUN={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@dataclass
class OpenedPage:
    """What headless Chromium saw when it opened a local HTML file."""

    text: str
    errors: list[str]
    broken_images: int


def open_in_chromium(path: Path, screenshot: Path | None = None) -> OpenedPage:
    """Open a local HTML file in headless Chromium; collect console/page/request errors."""
    from playwright.sync_api import sync_playwright

    from crawler.browser import find_chromium
    from settings import PAGESIGHT_BROWSER_ARGS

    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=find_chromium(), args=PAGESIGHT_BROWSER_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1366, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("requestfailed", lambda request: errors.append(request.url))
            page.goto(path.resolve().as_uri(), wait_until="load")
            text = page.inner_text("body")
            broken = page.evaluate(
                "[...document.images].filter(i => !i.complete || i.naturalWidth === 0).length"
            )
            if screenshot is not None:
                page.screenshot(path=str(screenshot), full_page=False)
        finally:
            browser.close()
    return OpenedPage(text, errors, broken)
