"""The browser's download handler with a deadline on each page.

scrapy-playwright bounds the navigation, and the capture bounds itself
(``PAGESIGHT_CAPTURE_TIMEOUT``), but nothing bounds the rest of a page's download: on a
loaded machine ``page.close()`` after a failed capture was seen never to return (two of
1,497 WCXB pages), which held the request, and with it the crawl, forever without a
feed line. Here the whole download has a deadline; past it the request fails with
:class:`BrowserStalled`, a timeout the feed reports like any other.

The abandoned page never closes, so it keeps one of the context's page slots
(``PLAYWRIGHT_MAX_PAGES_PER_CONTEXT``); once every slot is held so, each later request
waits for one until its own deadline and fails as stalled too: the crawl still ends, one
line per URL. The deadline counts the wait for a slot, which is none while
``CONCURRENT_REQUESTS`` is at most the pages per context (both 4 here).

Every ``PAGESIGHT_BROWSER_RESTART_PAGES`` pages the browser is closed and a fresh one
started at the next page: new pages wait while the open ones finish (up to the deadline),
so no page is cut off. Chromium's own process grew from 48 to 70 MiB over a 5,000-page
soak, a few MiB at each 4 MB page, and kept it; a restart also ends the pages abandoned
past their deadline, and gives their slots back.

Playwright's Node driver, and the Chromium it starts, get ``PAGESIGHT_DRIVER_ENV`` (V8
flags in ``NODE_OPTIONS``, glibc's malloc tunables): Playwright copies this process's
environment when it starts the driver (:func:`driver_environment`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Self

from playwright.async_api import Error as PlaywrightError
from scrapy.crawler import Crawler
from scrapy.http import Request, Response
from scrapy.settings import BaseSettings
from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler

logger = logging.getLogger(__name__)

#: Seconds a page's download may take beyond its load and capture timeouts (opening and
#: closing the page, reading its content) before it counts as stalled.
DEADLINE_MARGIN = 30.0


#: Seconds a restart waits for the old browser, and each of its contexts, to close.
BROWSER_CLOSE_TIMEOUT = 30.0

#: Each crawler's one handler (:meth:`DeadlinePlaywrightDownloadHandler.from_crawler`).
_HANDLERS: weakref.WeakKeyDictionary[Crawler, DeadlinePlaywrightDownloadHandler] = weakref.WeakKeyDictionary()


class BrowserStalled(TimeoutError):
    """The browser did not finish a page's download within its deadline."""


def download_deadline(settings: BaseSettings) -> float:
    """A page's whole download: its load, its capture and :data:`DEADLINE_MARGIN`."""
    return (
        settings.getfloat("PAGESIGHT_PAGE_TIMEOUT")
        + settings.getfloat("PAGESIGHT_CAPTURE_TIMEOUT")
        + DEADLINE_MARGIN
    )


def driver_environment(current: Mapping[str, str], wanted: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``wanted`` to set in ``current`` (an environment): one already set
    stays as it is, but ``NODE_OPTIONS`` gains each flag whose name it does not set yet,
    so that a user's own ``--max-old-space-size=…`` wins over ours."""
    changes = {
        name: value for name, value in wanted.items() if name != "NODE_OPTIONS" and name not in current
    }
    if "NODE_OPTIONS" in wanted:
        options = current.get("NODE_OPTIONS", "").split()
        names = {option.split("=", 1)[0] for option in options}
        added = [flag for flag in wanted["NODE_OPTIONS"].split() if flag.split("=", 1)[0] not in names]
        if added:
            changes["NODE_OPTIONS"] = " ".join([*options, *added])
    return changes


class BrowserTurns:
    """The browser downloads under way, and the pages the browser has started since its
    launch: once they reach ``restart_pages`` (0: never), the next page waits while the open
    ones finish, up to a deadline (a stalled page never does), and has the browser
    restarted first. Pages that come meanwhile wait behind it."""

    def __init__(self, restart_pages: int):
        if restart_pages < 0:
            raise ValueError(f"PAGESIGHT_BROWSER_RESTART_PAGES must be 0 or more, got {restart_pages}")
        self.restart_pages = restart_pages
        self.started = 0
        self.open = 0
        self.all_done = asyncio.Event()
        self.all_done.set()
        self.lock = asyncio.Lock()

    async def take(self, restart: Callable[[], Awaitable[None]], deadline: float) -> None:
        """Count one more page open, after ``restart()`` when the browser has served its pages."""
        async with self.lock:
            if self.restart_pages and self.started >= self.restart_pages:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(deadline):
                        await self.all_done.wait()
                await restart()
                self.started = 0
            self.started += 1
            self.open += 1
            self.all_done.clear()

    def done(self) -> None:
        """One page's download ended, however."""
        self.open -= 1
        if not self.open:
            self.all_done.set()


class DeadlinePlaywrightDownloadHandler(ScrapyPlaywrightDownloadHandler):  # type: ignore[misc]
    """scrapy-playwright's handler, with :func:`download_deadline` on browser requests,
    a browser restarted every ``PAGESIGHT_BROWSER_RESTART_PAGES`` pages, and
    ``PAGESIGHT_DRIVER_ENV`` for the driver it starts."""

    def __init__(self, crawler: Crawler) -> None:
        # Before the driver starts (at engine_started); the crawl starts no other process.
        os.environ.update(driver_environment(os.environ, crawler.settings.getdict("PAGESIGHT_DRIVER_ENV")))
        super().__init__(crawler)
        self.deadline = download_deadline(crawler.settings)
        self.turns = BrowserTurns(crawler.settings.getint("PAGESIGHT_BROWSER_RESTART_PAGES"))
        self.closed = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        """The crawler's one handler, for http and https alike: Scrapy builds a handler
        per scheme, and each of scrapy-playwright's starts its own Playwright driver, and
        its own browser at its first page, so a crawl kept an idle second driver, and a
        second browser once it met both schemes."""
        handler = _HANDLERS.get(crawler)
        if not isinstance(handler, cls):
            handler = _HANDLERS[crawler] = cls(crawler)
        return handler

    async def close(self) -> None:
        """Close once, though Scrapy closes the handler of each scheme."""
        if not self.closed:
            self.closed = True
            await super().close()

    async def download_request(self, request: Request) -> Response:
        response: Response
        if not request.meta.get("playwright"):
            response = await super().download_request(request)
            return response
        await self.turns.take(self._restart_browser, self.deadline)
        deadline = asyncio.timeout(self.deadline)
        try:
            async with deadline:
                response = await super().download_request(request)
                return response
        except TimeoutError:
            if not deadline.expired():  # a timeout inside the download, with its own reason
                raise
            self.stats.inc_value("pagesight/browser/stalled")
            logger.warning(
                "The browser did not finish %s in %.0fs; its page is abandoned (and keeps its page slot)",
                request.url,
                self.deadline,
            )
            raise BrowserStalled(f"the browser did not finish the page in {self.deadline:.0f}s") from None
        finally:
            self.turns.done()

    async def _restart_browser(self) -> None:
        """Close the browser (its pages are done); the next page launches a new one
        (scrapy-playwright's ``_maybe_launch_browser``). The contexts are closed first: their
        close callbacks give back the context slots. A context or browser that does not
        close within :data:`BROWSER_CLOSE_TIMEOUT` is left to the driver, which ends it at
        the crawl's end, and its slot is given back here, so that a hung close cannot hold
        the crawl. The browser's own disconnect callback is taken off first, so that it
        cannot run after the new browser is up and drop it."""
        browser = getattr(self, "browser", None)
        if browser is None:
            return
        browser.remove_listener("disconnected", self._browser_disconnected_callback)
        del self.browser
        stuck = []
        for wrapper in list(self.context_wrappers.values()):
            stuck += await _closed_within(wrapper.context.close(), "a context")
        for name in list(self.context_wrappers):  # those whose close callback did not run
            del self.context_wrappers[name]
            if hasattr(self, "context_semaphore"):
                self.context_semaphore.release()
        stuck += await _closed_within(browser.close(), "the browser")
        self.stats.inc_value("pagesight/browser/restarts")
        logger.info(
            "Browser restarted after %d pages (PAGESIGHT_BROWSER_RESTART_PAGES)%s",
            self.turns.restart_pages,
            f"; left to the driver: {', '.join(stuck)}" if stuck else "",
        )


async def _closed_within(close: Awaitable[None], what: str) -> list[str]:
    """[] once ``close`` is done (or failed: the browser is gone), else ``[what (reason)]``."""
    try:
        async with asyncio.timeout(BROWSER_CLOSE_TIMEOUT):
            await close
    except TimeoutError:
        return [f"{what} (did not close in {BROWSER_CLOSE_TIMEOUT:.0f}s)"]
    except PlaywrightError:
        pass
    return []
