"""What the browser does on each page: settle, scroll, collect element boxes, screenshot.

:func:`capture_page` runs inside scrapy-playwright's page visit (as a PageMethod), so the
page is opened and closed by the download handler on every path, errors included.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

logger = logging.getLogger(__name__)

HTML_CONTENT_TYPES = ("text/html", "application/xhtml+xml")

# Page facts read before capturing: is this an HTML document, how did it answer, how tall.
PAGE_FACTS_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const doc = document.documentElement;
  return {
    contentType: document.contentType,
    status: nav && nav.responseStatus ? nav.responseStatus : 0,
    width: Math.max(doc ? doc.scrollWidth : 0, document.body ? document.body.scrollWidth : 0),
    height: Math.max(doc ? doc.scrollHeight : 0, document.body ? document.body.scrollHeight : 0),
  };
}"""

# One box per element under <body>, in document order, and the page height. `path` is the element's XPath as
# lxml's getpath() writes it, so the boxes can be joined with a parse of the rendered HTML.
ELEMENT_BOXES_JS = """(maxBoxes) => {
  const doc = document.documentElement;
  const boxes = [];
  if (!doc || !document.body) return {boxes: boxes, height: 0};
  const pageW = Math.max(doc.scrollWidth, document.body.scrollWidth);
  const pageH = Math.max(doc.scrollHeight, document.body.scrollHeight);
  const sx = window.scrollX, sy = window.scrollY;
  const pathOf = new Map();
  const stepOf = (el) => {
    const tag = el.tagName.toLowerCase();
    const parent = el.parentElement;
    if (!parent) return tag;
    let index = 0, same = 0;
    for (const sib of parent.children) {
      if (sib.tagName.toLowerCase() === tag) {
        same += 1;
        if (sib === el) index = same;
      }
    }
    return same > 1 ? `${tag}[${index}]` : tag;
  };
  const pathFor = (el) => {
    if (pathOf.has(el)) return pathOf.get(el);
    const parent = el.parentElement;
    const p = (parent ? pathFor(parent) : '') + '/' + stepOf(el);
    pathOf.set(el, p);
    return p;
  };
  const all = document.body.getElementsByTagName('*');
  for (let i = 0; i < all.length && boxes.length < maxBoxes; i++) {
    const el = all[i];
    const r = el.getBoundingClientRect();
    const x0 = Math.max(0, r.left + sx), y0 = Math.max(0, r.top + sy);
    const x1 = Math.min(pageW, r.right + sx), y1 = Math.min(pageH, r.bottom + sy);
    const w = Math.max(0, x1 - x0), h = Math.max(0, y1 - y0);
    const styleVisible = el.checkVisibility
      ? el.checkVisibility({opacityProperty: true, visibilityProperty: true})
      : true;
    boxes.push({
      tag: el.tagName.toLowerCase(),
      id: el.id || '',
      classes: typeof el.className === 'string'
        ? el.className.split(/\\s+/).filter(Boolean) : [],
      path: pathFor(el),
      x: x0, y: y0, w: w, h: h,
      visible: styleVisible && w * h > 0,
      text_len: (el.textContent || '').trim().length,
    });
  }
  return {boxes: boxes, height: pageH};
}"""


@dataclass(frozen=True)
class CaptureOptions:
    """How to capture a page; plain data so that request meta stays picklable."""

    max_screenshot_height: int = 8000
    network_idle_timeout: float = 3.0
    scroll_steps: int = 6
    max_boxes: int = 4000
    timeout: float = 60.0


async def capture_page(page: Page, options: CaptureOptions) -> dict[str, Any]:
    """Settle, scroll, then collect boxes and a full-page screenshot of ``page``.

    Returns ``{"skip": reason}`` for documents that are not HTML or answered with an
    HTTP error (there is nothing worth capturing), else the capture and its timings.
    The whole capture is bounded by ``options.timeout`` (TimeoutError past it), so a
    renderer that stops answering cannot hold a crawl slot forever.
    """
    try:
        return await asyncio.wait_for(_capture(page, options), timeout=options.timeout)
    except TimeoutError:
        raise TimeoutError(f"capture did not finish in {options.timeout:.0f}s") from None


async def _capture(page: Page, options: CaptureOptions) -> dict[str, Any]:
    timings: dict[str, float] = {}
    started = time.perf_counter()
    facts = await _evaluate(page, PAGE_FACTS_JS)
    if page.url == "about:blank" or facts["contentType"] not in HTML_CONTENT_TYPES:
        return {"skip": f"not HTML ({facts['contentType']})"}
    if facts["status"] >= 400:
        return {"skip": f"HTTP {facts['status']}"}
    with RequestsInFlight(page) as in_flight:
        await _scroll_through(page, facts["height"], options)
        if not await in_flight.wait_quiet(options.network_idle_timeout):
            logger.debug("Network not quiet after %.1fs: %s", options.network_idle_timeout, page.url)
    timings["settle"] = _ms_since(started)

    step_started = time.perf_counter()
    collected = await _evaluate(page, ELEMENT_BOXES_JS, options.max_boxes)
    page_height = collected["height"] or facts["height"]
    timings["boxes"] = _ms_since(step_started)

    step_started = time.perf_counter()
    viewport = page.viewport_size or {"width": facts["width"], "height": 768}
    shot_height = max(1, min(page_height, options.max_screenshot_height))
    png = await page.screenshot(
        type="png",
        full_page=True,
        clip={"x": 0, "y": 0, "width": viewport["width"], "height": shot_height},
    )
    timings["screenshot"] = _ms_since(step_started)
    return {
        "screenshot_png": png,
        "boxes": collected["boxes"],
        "viewport_width": viewport["width"],
        "page_height": page_height,
        "screenshot_height": shot_height,
        "timings_ms": timings,
    }


# Scroll to the bottom in steps, one rendered frame apart, then back to the top.
SCROLL_JS = """async ([bottom, steps]) => {
  const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  for (let step = 1; step <= steps; step++) {
    window.scrollTo(0, bottom * step / steps);
    await frame();
  }
  window.scrollTo(0, 0);
  await frame();
}"""

#: How long the network must stay quiet (no request in flight) to count as settled.
QUIET_PERIOD = 0.1


class RequestsInFlight:
    """Counts the page's requests started and not yet finished while it is entered.

    The load event has already waited for the document's own resources; what comes
    after it (lazy images, fetches that scrolling triggers) is what this watches, so a
    page that starts nothing settles at once instead of after a fixed idle window.
    """

    def __init__(self, page: Page):
        self.page = page
        self.pending: set[Any] = set()
        self.quiet = asyncio.Event()
        self.quiet.set()

    def _started(self, request: Any) -> None:
        self.pending.add(request)
        self.quiet.clear()

    def _ended(self, request: Any) -> None:
        self.pending.discard(request)
        if not self.pending:
            self.quiet.set()

    def __enter__(self) -> RequestsInFlight:
        self.page.on("request", self._started)
        self.page.on("requestfinished", self._ended)
        self.page.on("requestfailed", self._ended)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.page.remove_listener("request", self._started)
        self.page.remove_listener("requestfinished", self._ended)
        self.page.remove_listener("requestfailed", self._ended)

    async def wait_quiet(self, timeout: float) -> bool:
        """Wait until no request has been in flight for QUIET_PERIOD; False on timeout."""

        async def quiet_period() -> None:
            while True:
                await self.quiet.wait()
                await asyncio.sleep(QUIET_PERIOD)
                if self.quiet.is_set():
                    return

        try:
            await asyncio.wait_for(quiet_period(), timeout)
        except TimeoutError:
            return False
        return True


async def _scroll_through(page: Page, height: int, options: CaptureOptions) -> None:
    """Scroll down in steps (lazy images, infinite-scroll sections), then back to the top.

    Pages no taller than the viewport are not scrolled.
    """
    viewport_height = (page.viewport_size or {}).get("height", 768)
    bottom = min(height, options.max_screenshot_height)
    if options.scroll_steps <= 0 or bottom <= viewport_height:
        return
    await _evaluate(page, SCROLL_JS, [bottom, options.scroll_steps])


async def _evaluate(page: Page, script: str, arg: Any = None) -> Any:
    """page.evaluate that survives one client-side navigation (meta refresh, a script
    setting location): it waits for the new document to load and evaluates again."""
    try:
        return await page.evaluate(script, arg)
    except PlaywrightError as exc:
        if "Execution context was destroyed" not in str(exc):
            raise
        await page.wait_for_load_state("load")
        return await page.evaluate(script, arg)


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
