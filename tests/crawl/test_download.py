"""The browser download handler's deadline: a page the browser stops answering for ends
as a timeout failure (one feed line) instead of holding the crawl."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

import pytest
from scrapy.core.downloader.handlers import DownloadHandlers
from scrapy.http import HtmlResponse, Request
from scrapy.settings import Settings
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler
from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler
from twisted.python.failure import Failure

import crawler.download as download_module
import settings as project_settings
from crawler.download import (
    DEADLINE_MARGIN,
    BrowserStalled,
    BrowserTurns,
    DeadlinePlaywrightDownloadHandler,
    download_deadline,
    driver_environment,
)
from crawler.errors import describe_failure


def handler_with_deadline(deadline: float) -> DeadlinePlaywrightDownloadHandler:
    """The handler without a browser (its __init__ wants the asyncio reactor)."""
    handler = object.__new__(DeadlinePlaywrightDownloadHandler)
    handler.deadline = deadline
    handler.turns = BrowserTurns(0)
    handler.stats = MemoryStatsCollector(get_crawler())
    return handler


def download(handler: DeadlinePlaywrightDownloadHandler, request: Request):
    """The handler's answer; a plain TimeoutError if it has none in 5 s."""
    return asyncio.run(asyncio.wait_for(handler.download_request(request), 5))


def test_the_deadline_is_the_load_and_capture_timeouts_plus_a_margin():
    settings = Settings()
    settings.setmodule(project_settings)
    settings.set("PAGESIGHT_PAGE_TIMEOUT", 12)
    settings.set("PAGESIGHT_CAPTURE_TIMEOUT", 20)
    assert download_deadline(settings) == 32 + DEADLINE_MARGIN


def test_the_project_downloads_pages_through_the_deadline_handler():
    # The e2e crawls (tests/e2e/test_crawl*.py) run through it; here: the names resolve.
    for path in project_settings.DOWNLOAD_HANDLERS.values():
        assert load_object(path) is DeadlinePlaywrightDownloadHandler


def test_one_handler_and_one_browser_serve_both_schemes_and_close_once(monkeypatch):
    launched, closed = [], []
    monkeypatch.setattr(
        ScrapyPlaywrightDownloadHandler, "__init__", lambda self, crawler: launched.append(self)
    )

    async def close(self):
        closed.append(self)

    monkeypatch.setattr(ScrapyPlaywrightDownloadHandler, "close", close)
    crawler = get_crawler(
        settings_dict={
            name: getattr(project_settings, name)
            for name in ("DOWNLOAD_HANDLERS", "PAGESIGHT_PAGE_TIMEOUT", "PAGESIGHT_CAPTURE_TIMEOUT")
        }
    )
    handlers = DownloadHandlers(crawler)  # builds the (not lazy) handler of each scheme
    assert handlers._get_handler("http") is handlers._get_handler("https") is launched[0]
    assert len(launched) == 1
    asyncio.run(handlers._close())  # as at engine_stopped: each scheme's handler closed
    assert closed == launched


def test_a_page_the_browser_never_finishes_fails_as_a_timeout(monkeypatch):
    async def never_answers(self, request):
        await asyncio.Event().wait()  # as page.close() did on a loaded machine

    monkeypatch.setattr(ScrapyPlaywrightDownloadHandler, "download_request", never_answers)
    handler = handler_with_deadline(0.05)
    with pytest.raises(BrowserStalled, match=r"did not finish the page in 0s") as stalled:
        download(handler, Request("http://127.0.0.1:1/a.html", meta={"playwright": True}))
    assert describe_failure(Failure(stalled.value)).kind == "timeout"
    assert handler.stats.get_value("pagesight/browser/stalled") == 1


@pytest.mark.parametrize("reason", ["capture did not finish in 60s", ""])
def test_timeouts_inside_the_download_keep_their_reason(monkeypatch, reason):
    async def times_out_inside(self, request):
        raise TimeoutError(reason)

    monkeypatch.setattr(ScrapyPlaywrightDownloadHandler, "download_request", times_out_inside)
    handler = handler_with_deadline(5)
    with pytest.raises(TimeoutError) as inner:
        download(handler, Request("http://127.0.0.1:1/a.html", meta={"playwright": True}))
    assert not isinstance(inner.value, BrowserStalled) and str(inner.value) == reason
    assert handler.stats.get_value("pagesight/browser/stalled") is None


def test_pages_within_the_deadline_pass_through(monkeypatch):
    async def answers(self, request):
        return HtmlResponse(request.url, body=b"<html></html>")

    monkeypatch.setattr(ScrapyPlaywrightDownloadHandler, "download_request", answers)
    response = download(
        handler_with_deadline(5), Request("http://127.0.0.1:1/a.html", meta={"playwright": True})
    )
    assert response.url == "http://127.0.0.1:1/a.html"


def test_the_drivers_variables_leave_a_users_own_and_join_node_flags():
    ours = {
        "NODE_OPTIONS": "--max-semi-space-size=2 --max-old-space-size=384",
        "MALLOC_ARENA_MAX": "2",
        "MALLOC_MMAP_THRESHOLD_": "131072",
    }
    assert driver_environment({}, ours) == ours
    assert driver_environment(
        {"MALLOC_ARENA_MAX": "4", "NODE_OPTIONS": "--max-old-space-size=2048"}, ours
    ) == {
        "NODE_OPTIONS": "--max-old-space-size=2048 --max-semi-space-size=2",
        "MALLOC_MMAP_THRESHOLD_": "131072",
    }
    assert driver_environment(ours, ours) == {}


def started_driver_environment() -> dict[str, str]:
    """The environment of the Node driver Playwright starts here (read from /proc)."""
    from playwright.async_api import async_playwright

    async def started() -> dict[str, str]:
        playwright = await async_playwright().start()
        try:
            for stat in Path("/proc").glob("[0-9]*/stat"):
                with contextlib.suppress(OSError):
                    parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
                    cmdline = (stat.parent / "cmdline").read_bytes()
                    if parent == os.getpid() and b"run-driver" in cmdline:
                        pairs = (stat.parent / "environ").read_bytes().split(b"\0")
                        return dict(pair.decode().split("=", 1) for pair in pairs if b"=" in pair)
            raise AssertionError("no Playwright driver among this process's children")
        finally:
            await playwright.stop()

    return asyncio.run(started())


@pytest.mark.skipif(
    not Path("/proc/self/environ").exists(), reason="reads the driver's environment from /proc"
)
def test_the_driver_starts_with_the_environment_of_the_settings(monkeypatch):
    monkeypatch.setattr(ScrapyPlaywrightDownloadHandler, "__init__", lambda self, crawler: None)
    monkeypatch.setenv("NODE_OPTIONS", "--trace-warnings")
    for name in ("MALLOC_ARENA_MAX", "MALLOC_MMAP_THRESHOLD_"):
        monkeypatch.delenv(name, raising=False)
    wanted = project_settings.PAGESIGHT_DRIVER_ENV
    DeadlinePlaywrightDownloadHandler(get_crawler(settings_dict={"PAGESIGHT_DRIVER_ENV": wanted}))
    found = started_driver_environment()
    assert found["NODE_OPTIONS"] == f"--trace-warnings {wanted['NODE_OPTIONS']}"
    assert (found["MALLOC_ARENA_MAX"], found["MALLOC_MMAP_THRESHOLD_"]) == ("2", "131072")


def test_an_empty_driver_environment_leaves_the_process_alone(monkeypatch):
    monkeypatch.setattr(ScrapyPlaywrightDownloadHandler, "__init__", lambda self, crawler: None)
    monkeypatch.delenv("NODE_OPTIONS", raising=False)
    DeadlinePlaywrightDownloadHandler(get_crawler(settings_dict={"PAGESIGHT_DRIVER_ENV": {}}))
    assert "NODE_OPTIONS" not in os.environ


def test_the_browser_is_restarted_once_it_served_its_pages_and_they_are_done():
    async def crawl() -> list[str]:
        turns, events = BrowserTurns(2), []

        async def restart():
            events.append(f"restart with {turns.open} open")

        async def page(name: str, seconds: float):
            await turns.take(restart, deadline=5)
            events.append(f"start {name}")
            await asyncio.sleep(seconds)
            events.append(f"end {name}")
            turns.done()

        await asyncio.gather(page("a", 0.05), page("b", 0.1), page("c", 0), page("d", 0))
        return events

    assert asyncio.run(crawl()) == [
        "start a",
        "start b",
        "end a",
        "end b",  # c waited for both
        "restart with 0 open",
        "start c",
        "start d",
        "end c",
        "end d",
    ]


def test_a_stalled_page_holds_a_restart_back_only_until_the_deadline():
    async def crawl() -> tuple[list[int], int]:
        turns, restarts = BrowserTurns(1), []
        await turns.take(lambda: pytest.fail("the first page needs no restart"), deadline=5)  # never done

        async def restart():
            restarts.append(turns.open)

        await asyncio.wait_for(turns.take(restart, deadline=0.05), 5)
        return restarts, turns.open

    assert asyncio.run(crawl()) == ([1], 2)


def test_zero_never_restarts_and_a_negative_count_is_refused():
    async def crawl() -> None:
        turns = BrowserTurns(0)
        for _ in range(5):
            await turns.take(lambda: pytest.fail("0 never restarts"), deadline=5)
            turns.done()

    asyncio.run(crawl())
    with pytest.raises(ValueError, match="PAGESIGHT_BROWSER_RESTART_PAGES must be 0 or more, got -1"):
        BrowserTurns(-1)


def test_a_browser_that_does_not_close_cannot_hold_the_crawl(monkeypatch, caplog):
    class Hangs:
        """A browser, or a context, whose close never returns."""

        def __init__(self) -> None:
            self.removed: list[str] = []

        async def close(self) -> None:
            await asyncio.Event().wait()

        def remove_listener(self, event: str, callback: object) -> None:
            self.removed.append(event)

    async def restart() -> tuple[DeadlinePlaywrightDownloadHandler, Hangs]:
        handler = handler_with_deadline(5)
        handler.turns = BrowserTurns(3)
        handler.browser = browser = Hangs()
        handler.context_wrappers = {"pagesight": type("Wrapper", (), {"context": Hangs()})()}
        handler.context_semaphore = asyncio.Semaphore(0)  # its one context slot is taken
        await asyncio.wait_for(handler._restart_browser(), 5)
        return handler, browser

    monkeypatch.setattr(download_module, "BROWSER_CLOSE_TIMEOUT", 0.05)
    with caplog.at_level("INFO", logger="crawler.download"):
        handler, browser = asyncio.run(restart())
    assert browser.removed == ["disconnected"] and not hasattr(handler, "browser")
    assert handler.context_wrappers == {} and not handler.context_semaphore.locked()
    assert handler.stats.get_value("pagesight/browser/restarts") == 1
    assert (
        "left to the driver: a context (did not close in 0s), the browser (did not close in 0s)"
        in caplog.text
    )
