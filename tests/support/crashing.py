"""A test-only downloader middleware that crashes the renderer of chosen pages (through
the DevTools protocol's Page.crash), to check that a crash ends as an error line."""

import asyncio

from scrapy_playwright.page import PageMethod


async def crash_renderer(page) -> None:
    """Ask the renderer to crash once the page has loaded (a crash before the load event
    leaves scrapy-playwright waiting for it: a timeout line); the answer never comes, so
    do not wait for it."""
    await page.wait_for_load_state("load")
    session = await page.context.new_cdp_session(page)
    crash = asyncio.ensure_future(session.send("Page.crash"))
    await asyncio.sleep(0.5)
    crash.cancel()


class CrashRendererMiddleware:
    """Before the capture runs, crash the renderer of pages whose URL contains 'crash-me'."""

    def process_request(self, request, spider=None):
        methods = request.meta.get("playwright_page_methods")
        if methods and "crash-me" in request.url:
            request.meta["playwright_page_methods"] = [PageMethod(crash_renderer), *methods]
        return None
