"""What the browser does on each page: decode the main document the way the project
does, wait for it (up to a deadline), settle, scroll, hide consent overlays, collect
element boxes, screenshot.

:func:`intercept_main_document` runs as scrapy-playwright's page init callback and
:func:`capture_page` inside its page visit (as a PageMethod), so the page is opened and
closed by the download handler on every path, errors included.
"""

from __future__ import annotations

import asyncio
import base64
import codecs
import contextlib
import io
import json
import logging
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

from PIL import Image
from playwright.async_api import APIResponse, CDPSession, Page, Request, Route, ViewportSize
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from scrapy.http import Request as ScrapyRequest
from w3lib.encoding import http_content_type_encoding

from crawler.errors import BrowserErrorPage, PageKeptNavigating, PageLostDocument, renderer_gone
from crawler.items import PARTIAL_LOAD_WARNING
from pipelines.extraction.encoding import decide_encoding, decode_document

logger = logging.getLogger(__name__)
T = TypeVar("T")

HTML_CONTENT_TYPES = ("text/html", "application/xhtml+xml")
#: Playwright's error when the page navigated while a script ran in it.
NAVIGATED = "Execution context was destroyed"
#: Seconds a tab may take to reach a blank document after its capture.
BLANK_TIMEOUT = 10.0
#: Navigations to about:blank once the page's scripts are stopped.
BLANK_TRIES = 3
#: Where Chromium shows its own error page (net::ERR_* on a navigation).
BROWSER_ERROR_URL_PREFIX = "chrome-error://"
# Response headers that no longer describe a body re-encoded as UTF-8.
_BODY_HEADERS = ("content-length", "content-encoding", "transfer-encoding")
_REDIRECT_STATUSES = (301, 302, 303, 307, 308)
#: The charset labels a browser understands (WHATWG) for the Python codecs that
#: ``decide_encoding`` answers with; a document in any other is re-encoded as UTF-8.
BROWSER_CHARSETS = {
    "utf-8": "utf-8",
    "utf-16-be": "utf-16be",
    "utf-16-le": "utf-16le",
    "cp932": "shift_jis",
    "shift_jis": "shift_jis",
    "euc_jp": "euc-jp",
    "iso2022_jp": "iso-2022-jp",
    "gb18030": "gb18030",
    "gbk": "gbk",
    "big5hkscs": "big5",
    "big5": "big5",
    "cp949": "euc-kr",
    "euc_kr": "euc-kr",
    "koi8-r": "koi8-r",
    "koi8-u": "koi8-u",
    "cp866": "ibm866",
    **{f"cp{n}": f"windows-{n}" for n in range(1250, 1259)},
    **{f"iso8859-{n}": f"iso-8859-{n}" for n in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)},
}

# Registered before any script of the page runs (page init): counts what can react to the
# document being scrolled. Observed elements (IntersectionObserver: lazy loaders, infinite
# scroll, reveal-on-scroll animations) and `scroll`/`scrollend` listeners on the window or
# the document; elements' own scroll listeners watch inner scrollers, which the capture's
# scroll does not move.
SCROLL_WATCH_JS = """(() => {
  const watch = {observed: 0, listeners: 0};
  Object.defineProperty(window, '__pagesightScrollWatch', {value: watch});
  if (window.IntersectionObserver) {
    const observe = IntersectionObserver.prototype.observe;
    IntersectionObserver.prototype.observe = function () {
      watch.observed++;
      return observe.apply(this, arguments);
    };
  }
  const listen = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type) {
    if ((type === 'scroll' || type === 'scrollend') && (this === window || this === document)) {
      watch.listeners++;
    }
    return listen.apply(this, arguments);
  };
})()"""

#: Natively lazy images and frames.
LAZY_MEDIA_SELECTOR = "img[loading=lazy i], iframe[loading=lazy i]"

# Page facts read before capturing: is this an HTML document, how did it answer, is there
# anything in its body, how tall, and what on it reacts to scrolling (SCROLL_WATCH_JS's
# counts, an onscroll handler, natively lazy images or frames; "no watch" when the watch
# script did not run, which counts as reacting).
PAGE_FACTS_JS = """() => {
  const scrollReactions = () => {
    const watch = window.__pagesightScrollWatch;
    const reactions = [];
    if (!watch) reactions.push('no watch');
    else {
      if (watch.observed > 0) reactions.push('observer');
      if (watch.listeners > 0) reactions.push('scroll listener');
    }
    if (window.onscroll !== null || document.onscroll !== null) reactions.push('onscroll');
    if (document.querySelector(LAZY_MEDIA)) reactions.push('lazy media');
    return reactions;
  };
  const nav = performance.getEntriesByType('navigation')[0];
  const doc = document.documentElement;
  const body = document.body;
  return {
    contentType: document.contentType,
    hasDocument: !!doc,
    status: nav && nav.responseStatus ? nav.responseStatus : 0,
    domSize: body ? body.getElementsByTagName('*').length + (body.textContent || '').trim().length : 0,
    width: Math.max(doc ? doc.scrollWidth : 0, document.body ? document.body.scrollWidth : 0),
    height: Math.max(doc ? doc.scrollHeight : 0, document.body ? document.body.scrollHeight : 0),
    scrollReactions: scrollReactions(),
  };
}""".replace("LAZY_MEDIA", json.dumps(LAZY_MEDIA_SELECTOR))

#: What reacts to scrolling when natively lazy images and frames are all there is: they
#: are loaded by switching them to eager (the browser then fetches them at once) instead.
LAZY_MEDIA_ONLY = ["lazy media"]

# Switch the natively lazy images and frames above the screenshot's cut to eager loading.
LOAD_LAZY_MEDIA_JS = """(cut) => {
  for (const el of document.querySelectorAll(LAZY_MEDIA)) {
    if (el.getBoundingClientRect().top + window.scrollY < cut) el.loading = 'eager';
  }
}""".replace("LAZY_MEDIA", json.dumps(LAZY_MEDIA_SELECTOR))

# One box per element under <body>, in document order, the page height, the document's
# identity (`origin`, its performance.timeOrigin: SHOWN_DOCUMENT_JS tells whether the HTML
# is of the same document) and whether it has loaded (`complete`). `path` is the element's
# XPath as lxml's getpath() writes it, so the boxes can be joined with a parse of the
# rendered HTML.
# The page's web fonts are waited for first (at most `fontsTimeoutMs`; `fontsReady` says
# whether they came), as text laid out in a fallback font has other boxes.
ELEMENT_BOXES_JS = """async ([maxBoxes, fontsTimeoutMs]) => {
  const fontsReady = await Promise.race([
    document.fonts ? document.fonts.ready.then(() => true) : Promise.resolve(true),
    new Promise((done) => setTimeout(() => done(false), fontsTimeoutMs)),
  ]);
  const doc = document.documentElement;
  const boxes = [];
  const collected = (height) => JSON.stringify({
    boxes: boxes, height: height, fontsReady: fontsReady, origin: performance.timeOrigin,
    complete: document.readyState === 'complete',
  });
  if (!doc || !document.body) return collected(0);
  const pageW = Math.max(doc.scrollWidth, document.body.scrollWidth);
  const pageH = Math.max(doc.scrollHeight, document.body.scrollHeight);
  const sx = window.scrollX, sy = window.scrollY;
  const pathOf = new Map();
  // Steps of all children of a parent at once (a parent with thousands of paragraphs
  // would otherwise be walked once per child).
  const stepCache = new Map();
  const stepOf = (el) => {
    const parent = el.parentElement;
    if (!parent) return el.tagName.toLowerCase();
    if (!stepCache.has(parent)) {
      const total = new Map(), seen = new Map(), steps = new Map();
      for (const sib of parent.children) {
        const tag = sib.tagName.toLowerCase();
        total.set(tag, (total.get(tag) || 0) + 1);
      }
      for (const sib of parent.children) {
        const tag = sib.tagName.toLowerCase();
        const index = (seen.get(tag) || 0) + 1;
        seen.set(tag, index);
        steps.set(sib, total.get(tag) > 1 ? `${tag}[${index}]` : tag);
      }
      stepCache.set(parent, steps);
    }
    return stepCache.get(parent).get(el);
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
  return collected(pageH);
}"""

# The rendered HTML as Playwright's page.content() serializes it, and the document's identity.
SHOWN_DOCUMENT_JS = """() => ({
  origin: performance.timeOrigin,
  html: (document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '')
    + (document.documentElement ? document.documentElement.outerHTML : ''),
})"""


# The text caret blinks, so a screenshot would show it on some captures and not on others
# (Playwright's own screenshot hides it the same way); the style goes again after the
# screenshot, before the HTML is serialized.
CARET_STYLE_ID = "pagesight-hide-caret"
HIDE_CARET_JS = f"""() => {{
  const style = document.createElement("style");
  style.id = "{CARET_STYLE_ID}";
  style.textContent = "*, *::before, *::after {{ caret-color: transparent !important; }}";
  (document.head || document.documentElement)?.appendChild(style);
}}"""
SHOW_CARET_JS = f"""() => document.getElementById("{CARET_STYLE_ID}")?.remove()"""

# Put the served HTML back as the page's document, its scripts left out (a script of a
# DOMParser document would not run anyway): for a page whose own script removed its
# document element, as some sites do when their copy is opened under another address.
RESTORE_DOCUMENT_JS = """(html) => {
  const served = new DOMParser().parseFromString(html, 'text/html');
  for (const script of served.querySelectorAll('script')) script.remove();
  document.appendChild(document.adoptNode(served.documentElement));
}"""
#: The capture's warning (then ``: net::ERR_… at URL``) on a page whose own script moved
#: the browser to an address that failed, captured from the server's document with its
#: scripts off. A corpus wants the text the server sent; the error page has none.
SERVED_AFTER_FAILED_NAVIGATION = "served: the page's script navigated to an address that failed; captured the server's document with its scripts off"
#: The capture's warning on a page shown from its served HTML (:data:`RESTORE_DOCUMENT_JS`).
RESTORED_WARNING = (
    "restored: the page's scripts removed its document; captured the served HTML without scripts"
)

# Hide consent and cookie overlays: the known consent managers' containers, and fixed or
# sticky elements that cover at least `minShare` of the first screen and speak of cookies
# or consent (their dimmed backdrops go with them). Returns a label per hidden element.
HIDE_OVERLAYS_JS = """([selectors, minShare]) => {
  const vw = window.innerWidth, vh = window.innerHeight;
  const words = /cookie|consent|gdpr|privacy|datenschutz|einwillig|confidentialit|privacidad|consenso|согласи|конфиденциальн|쿠키|개인정보|隐私|同意|个人信息|クッキー|個人情報|プライバシー/i;
  const bodyText = document.body ? (document.body.textContent || '').length : 0;
  const hidden = [];
  const label = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (typeof el.className === 'string' && el.className.trim()
      ? '.' + el.className.trim().split(/\\s+/)[0] : '');
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    return r.width * r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  };
  const share = (el) => {
    const r = el.getBoundingClientRect();
    const w = Math.max(0, Math.min(vw, r.right) - Math.max(0, r.left));
    const h = Math.max(0, Math.min(vh, r.bottom) - Math.max(0, r.top));
    return (w * h) / (vw * vh);
  };
  const hide = (el) => {
    hidden.push(label(el));
    el.style.setProperty('display', 'none', 'important');
  };
  for (const selector of selectors) {
    for (const el of document.querySelectorAll(selector)) {
      if (el.isConnected && shown(el)) hide(el);
    }
  }
  const layers = new Set();
  for (let i = 1; i <= 3; i++) {
    for (let j = 1; j <= 3; j++) {
      for (let el = document.elementFromPoint(vw * i / 4, vh * j / 4); el && el !== document.body;
           el = el.parentElement) {
        const position = getComputedStyle(el).position;
        if (position === 'fixed' || position === 'sticky') layers.add(el);
      }
    }
  }
  const backdrops = [];
  for (const el of layers) {
    if (!el.isConnected || share(el) < minShare) continue;
    const text = el.textContent || '';
    if (text.trim().length < 20) backdrops.push(el);
    else if (words.test(text) && text.length < 0.5 * bodyText) hide(el);
  }
  if (hidden.length) {
    for (const el of backdrops) if (el.isConnected && share(el) >= 0.9) hide(el);
    for (const el of [document.documentElement, document.body]) {
      if (el && getComputedStyle(el).overflowY === 'hidden') {
        el.style.setProperty('overflow', 'visible', 'important');
      }
    }
  }
  return hidden;
}"""

#: Containers of the common consent managers (OneTrust, Cookiebot, Didomi, Quantcast,
#: TrustArc, Usercentrics, Sourcepoint, Google Funding Choices, consentmanager,
#: Osano, Cookie Consent, iubenda, Klaro, Complianz, CookieYes, Borlabs, tarteaucitron).
CONSENT_SELECTORS = (
    "#onetrust-consent-sdk",
    "#onetrust-banner-sdk",
    "#CybotCookiebotDialog",
    "#CybotCookiebotDialogBodyUnderlay",
    "#didomi-host",
    "#qc-cmp2-container",
    ".qc-cmp2-container",
    "#truste-consent-track",
    ".truste_overlay",
    ".truste_box_overlay",
    "#consent_blackbar",
    "#usercentrics-root",
    "#usercentrics-cmp-ui",
    "[id^='sp_message_container']",
    ".fc-consent-root",
    "#cmpbox",
    "#cmpbox2",
    ".osano-cm-window",
    ".cc-window",
    "#iubenda-cs-banner",
    ".klaro",
    "#cmplz-cookiebanner-container",
    "#cookie-law-info-bar",
    ".cky-consent-container",
    "#BorlabsCookieBox",
    "#tarteaucitronRoot",
)


@dataclass(frozen=True)
class CaptureOptions:
    """How to capture a page; plain data so that request meta stays picklable. Built
    from PAGESIGHT_* settings by the capture middleware (defaults live in settings/)."""

    max_screenshot_height: int
    network_idle_timeout: float
    scroll_steps: int
    #: Scroll every page, also those where nothing reacts to scrolling (see SCROLL_WATCH_JS).
    scroll_always: bool
    max_boxes: int
    timeout: float
    load_timeout: float
    document_timeout: float
    screenshot_timeout: float
    fallback_screens: int
    #: A page taller than this (px) is shot one screen at a time, up to the cut (see
    #: :func:`screenshot_with_fallback`).
    max_page_height_for_full_shot: int
    #: Encode the screenshot's PNG for speed (Chromium's ``optimizeForSpeed``): faster, larger files.
    fast_png: bool
    #: Longest wait for the page's web fonts before the boxes and the screenshot, s.
    fonts_timeout: float
    hide_overlays: bool
    overlay_min_share: float
    viewport: ViewportSize  # the browser context's; the fallback when a page reports none


@dataclass
class MainDocument:
    """What the server sent for the page's main document, as the route handler saw it.

    ``url``/``body``/``encoding``/``encoding_source`` describe the last main-frame
    document that was decoded before Chromium saw it. ``redirected`` is set while the
    last answer was an HTTP redirect, which Chromium follows without the route seeing
    the next hop. ``network_errors`` holds the net::ERR_* of failed main-frame
    navigations, ``notes`` what the feed should hear about.
    """

    url: str | None = None
    body: bytes | None = None
    status: int | None = None
    headers: dict[str, str] | None = None  # as the server sent them
    encoding: str | None = None
    encoding_source: str | None = None
    redirected: bool = False
    network_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


async def prepare_page(
    page: Page, request: ScrapyRequest, document: MainDocument, options: CaptureOptions
) -> None:
    """The page init callback: watch what reacts to scrolling, and decode the main
    document the project's way (:func:`intercept_main_document`)."""
    await page.add_init_script(SCROLL_WATCH_JS)
    await intercept_main_document(page, request, document, options)


async def intercept_main_document(
    page: Page, request: ScrapyRequest, document: MainDocument, options: CaptureOptions
) -> None:
    """Route the page's main-frame navigations through :func:`_fetch_and_decode`, so
    that Chromium reads each HTML document in the encoding the project decides (BOM,
    valid UTF-8, HTTP charset, <meta>, detection) instead of guessing; and note the
    network error of any failed main-frame navigation. Registered after
    scrapy-playwright's own route, so it runs first and hands every other request on.
    """
    user_agent = request.headers.get("User-Agent")

    async def on_route(route: Route, navigation: Request) -> None:
        if not (navigation.is_navigation_request() and navigation.frame == page.main_frame):
            await route.fallback()
            return
        await _fetch_and_decode(route, navigation, document, options, user_agent)

    def on_failed(failed: Request) -> None:
        if failed.is_navigation_request() and failed.frame == page.main_frame:
            document.network_errors.append(f"{failed.failure} at {failed.url}")

    page.on("requestfailed", on_failed)
    await page.route("**", on_route)


async def _fetch_and_decode(
    route: Route,
    navigation: Request,
    document: MainDocument,
    options: CaptureOptions,
    user_agent: bytes | None,
) -> None:
    """Fetch the document, decide its encoding and fulfill it with that charset in its
    Content-Type (which a browser obeys over any <meta>; only a BOM wins over it).
    Redirects and non-HTML answers are passed on as they came. A fetch that fails or
    outlasts ``options.document_timeout`` is left to Chromium's own network stack (which
    then reports its own error, or renders a slow document as it streams in).

    The fetched body is disposed of once the route is answered: Playwright's driver
    keeps every fetched body until then or until the browser context closes, which in a
    crawl's one long-lived context is never."""
    headers = {k: v for k, v in (await navigation.all_headers()).items() if k != "accept-encoding"}
    if user_agent:
        headers["user-agent"] = user_agent.decode("latin-1")
    response: APIResponse | None = None
    try:
        response = await route.fetch(
            headers=headers, max_redirects=0, timeout=options.document_timeout * 1000
        )
        body = await response.body()
    except PlaywrightError as exc:
        logger.debug("Main document not fetched ahead of Chromium (%s): %s", _first_line(exc), navigation.url)
        if isinstance(exc, PlaywrightTimeout):
            document.notes.append(
                f"charset: document slower than {options.document_timeout:g}s, decoded by the browser"
            )
        await route.fallback()
    else:
        await _fulfill_decoded(route, navigation, response, body, document)
    finally:
        if response is not None:
            with contextlib.suppress(PlaywrightError):  # the context may be gone, and its bodies with it
                await response.dispose()


async def _fulfill_decoded(
    route: Route, navigation: Request, response: APIResponse, body: bytes, document: MainDocument
) -> None:
    """Answer the route with the fetched document, HTML in the charset decided for it."""
    answer = {k: v for k, v in response.headers.items() if k not in _BODY_HEADERS}
    content_type = answer.get("content-type", "")
    mime = content_type.split(";", 1)[0].strip().lower()
    document.redirected = response.status in _REDIRECT_STATUSES and "location" in answer
    if mime not in HTML_CONTENT_TYPES or document.redirected:
        await route.fulfill(response=response, headers=answer)
        return
    declared = http_content_type_encoding(content_type)
    decision = await asyncio.to_thread(decide_encoding, body, declared)
    document.url, document.body = navigation.url, body
    document.status, document.headers = response.status, dict(response.headers)
    document.encoding, document.encoding_source = decision.encoding, decision.source
    label = browser_charset(decision.encoding)
    if label is not None:
        # The body stays in the driver: only the charset the browser reads it in changes.
        answer["content-type"] = f"{mime}; charset={label}"
        await route.fulfill(response=response, headers=answer)
        return
    text, _ = await asyncio.to_thread(decode_document, body, declared)
    answer["content-type"] = f"{mime}; charset=utf-8"
    await route.fulfill(status=response.status, headers=answer, body=text.encode("utf-8"))


def browser_charset(encoding: str) -> str | None:
    """The browser's label for a Python codec, or None when it has none we know."""
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return None
    return BROWSER_CHARSETS.get(name)


async def capture_page(page: Page, options: CaptureOptions, document: MainDocument) -> dict[str, Any]:
    """Wait for the page (at most ``options.load_timeout``), settle, scroll, hide consent
    overlays, then collect boxes and a full-page screenshot.

    Returns ``{"skip": reason}`` for documents that are not HTML or answered with an
    HTTP error (there is nothing worth capturing), else the capture, its warnings and
    its timings. Raises :class:`BrowserErrorPage` when the page ends on Chromium's error
    page, TimeoutError when no DOM came at all. The whole capture is bounded by
    ``options.timeout`` (TimeoutError past it), so a renderer that stops answering
    cannot hold a crawl slot forever. On every path the tab is left on a blank document
    (:func:`_leave_blank`).
    """
    try:
        return await asyncio.wait_for(_capture(page, options, document), timeout=options.timeout)
    except TimeoutError as exc:
        if str(exc):
            raise
        raise TimeoutError(f"capture did not finish in {options.timeout:.0f}s") from None
    finally:
        # The download handler waits for the load event after this method and serializes
        # the page again (the HTML kept is the capture's): on a blank tab both are
        # immediate, even for a page that never sends the event or that reloads itself.
        await _leave_blank(page)


async def _leave_blank(page: Page) -> None:
    """Leave the tab on a blank document once its capture ended, well or not, so that
    the download handler's close cannot meet a navigation of the page's own: Chromium
    acknowledges a close that races a navigation commit and keeps the tab
    (crbug.com/536385539), and ``page.close()`` then never returns (seen on a page that
    reloads itself again and again). When the page's next reload interrupts the way to
    the blank document, its scripts are stopped and the tab goes again. A crashed tab
    is left as it is (nothing runs there; a DevTools command to it never answers)."""
    try:
        await page.goto("about:blank", timeout=BLANK_TIMEOUT * 1000)
    except PlaywrightError as exc:
        if renderer_gone(str(exc)):
            return
    if page.is_closed() or page.url == "about:blank":
        return
    with contextlib.suppress(PlaywrightError, TimeoutError):
        await asyncio.wait_for(_blank_without_scripts(page), timeout=2 * BLANK_TIMEOUT)
    if not page.is_closed() and page.url != "about:blank":
        logger.warning("The tab stays on %s after its capture; closing it may not return", page.url)


async def _blank_without_scripts(page: Page) -> None:
    """Stop the page's scripts, then go to about:blank, again if a navigation the page
    had already started interrupts the way (scripts stopped, it starts no more). The
    DevTools session that holds the override is detached at the end (when this is cut
    short, by the page's close)."""
    session = await page.context.new_cdp_session(page)
    await session.send("Emulation.setScriptExecutionDisabled", {"value": True})
    for _ in range(BLANK_TRIES):
        with contextlib.suppress(PlaywrightError):  # interrupted
            await page.goto("about:blank", timeout=BLANK_TIMEOUT * 1000)
        if page.url == "about:blank":
            break
    await session.detach()


async def _capture(page: Page, options: CaptureOptions, document: MainDocument) -> dict[str, Any]:
    timings: dict[str, float] = {}
    warnings: list[str] = []
    started = time.perf_counter()
    loaded = await _wait_for_load(page, options.load_timeout)
    if document.redirected and not page.url.startswith(BROWSER_ERROR_URL_PREFIX):
        # Chromium followed an HTTP redirect the route never saw: load the target again,
        # through the route this time, so that its encoding is decided too.
        document.redirected = False
        await page.goto(page.url, wait_until="commit", timeout=options.load_timeout * 1000)
        loaded = await _wait_for_load(page, options.load_timeout)
    if _served_before_failed_navigation(page, document):
        # The server sent the page, then its own script sent the browser to an address
        # that failed (a move to https:// on a plain-HTTP host): show what was sent.
        failure = document.network_errors[-1]
        loaded = await _show_without_scripts(page, str(document.url), options)
        warnings.append(f"{SERVED_AFTER_FAILED_NAVIGATION}: {failure}")
    _raise_on_error_page(page, document)
    facts = await _evaluate(page, PAGE_FACTS_JS)
    if not facts["hasDocument"]:
        facts = await _restore_served_document(page, document, options)
        warnings.append(RESTORED_WARNING)
    if page.url == "about:blank" or facts["contentType"] not in HTML_CONTENT_TYPES:
        return {"skip": f"not HTML ({facts['contentType']})"}
    if facts["status"] >= 400:
        return {"skip": f"HTTP {facts['status']}"}
    if not loaded:
        if not facts["domSize"]:
            raise TimeoutError(f"no document after {options.load_timeout:g}s: {page.url}")
        warnings.append(PARTIAL_LOAD_WARNING)
        await _evaluate(page, "window.stop()")
    scrolled = await _load_what_scrolling_would(page, facts, options, timings)
    _raise_on_error_page(page, document)
    if options.hide_overlays:
        hidden = await _evaluate(page, HIDE_OVERLAYS_JS, [list(CONSENT_SELECTORS), options.overlay_min_share])
        if hidden:
            warnings.append(f"overlay hidden: {', '.join(hidden)}")
    timings["settle"] = _ms_since(started)

    viewport = page.viewport_size or options.viewport
    shown = await _one_document(page, options, viewport, facts["height"], loaded, timings)
    if shown is None:
        # The page's scripts replaced the document before its boxes or between its boxes
        # and its HTML (a reload on resize, which the screenshot causes; a timed reload or
        # redirect): capture the new one, once.
        await _wait_for_load(page, options.load_timeout)
        shown = await _one_document(page, options, viewport, facts["height"], loaded, timings)
    if shown is None:
        raise PageKeptNavigating(
            f"the page navigated away twice while it was captured (its scripts reload or redirect it): {page.url}"
        )
    warnings += shown.warnings
    result = {
        "screenshot_png": shown.png,
        "boxes": shown.boxes,
        "html": shown.html,
        "viewport_width": viewport["width"],
        "page_height": shown.page_height,
        "screenshot_height": shown.screenshot_height,
        "final_url": page.url,
        "scrolled": scrolled,
        "scroll_reactions": facts["scrollReactions"],
        "raw_html": document.body if document.url == page.url else None,
        "raw_status": document.status if document.url == page.url else None,
        "raw_headers": document.headers if document.url == page.url else None,
        "encoding": document.encoding if document.url == page.url else None,
        "encoding_source": document.encoding_source if document.url == page.url else None,
        "warnings": document.notes + warnings,
        "timings_ms": timings,
    }
    return result


@dataclass
class ShownDocument:
    """What one document showed: its boxes, its HTML and its screenshot."""

    boxes: list[dict[str, Any]]
    html: str
    page_height: int
    png: bytes
    screenshot_height: int
    warnings: list[str]


async def _one_document(
    page: Page,
    options: CaptureOptions,
    viewport: ViewportSize,
    facts_height: int,
    loaded: bool,
    timings: dict[str, float],
) -> ShownDocument | None:
    """The element boxes, the screenshot cut at the capture's height, then the HTML, all
    of one document; None when the boxes are of a document still loading although the
    page had ``loaded`` (a new one), when the page starts loading another document during
    the screenshot (which would wait for its timeout, then shoot the new one), or when
    its scripts replaced the document before its HTML was serialized."""
    warnings: list[str] = []
    step_started = time.perf_counter()
    # One JSON string: Playwright validates and unwraps a returned object value by value.
    collected = json.loads(
        await _evaluate(page, ELEMENT_BOXES_JS, [options.max_boxes, options.fonts_timeout * 1000])
    )
    if not collected["fontsReady"]:
        warnings.append(f"fonts: not loaded after {options.fonts_timeout:g}s")
    page_height = collected["height"] or facts_height
    timings["boxes"] = _ms_since(step_started)
    if loaded and not collected["complete"]:
        return None

    step_started = time.perf_counter()
    shot_height = max(1, min(page_height, options.max_screenshot_height))
    await _evaluate(page, HIDE_CARET_JS)
    try:
        shot = await _unless_navigating(
            page, screenshot_with_fallback(page, viewport, shot_height, page_height, options, warnings)
        )
    finally:
        with contextlib.suppress(PlaywrightError):  # the page may be gone
            await page.evaluate(SHOW_CARET_JS)
    if shot is None:
        return None
    png, shot_height = shot
    timings["screenshot"] = _ms_since(step_started)
    html = await _html_of(page, collected["origin"])
    if html is None:
        return None
    return ShownDocument(collected["boxes"], html, page_height, png, shot_height, warnings)


async def _unless_navigating(page: Page, step: Coroutine[Any, Any, T]) -> T | None:
    """``step``'s result, or None (the step cancelled) as soon as the page's main frame
    requests another document."""
    navigating = asyncio.Event()

    def on_request(request: Request) -> None:
        if request.is_navigation_request() and request.frame == page.main_frame:
            navigating.set()

    page.on("request", on_request)
    running, watch = asyncio.ensure_future(step), asyncio.ensure_future(navigating.wait())
    try:
        await asyncio.wait((running, watch), return_when=asyncio.FIRST_COMPLETED)
    finally:
        page.remove_listener("request", on_request)
        stopped = [task for task in (running, watch) if not task.done()]
        for task in stopped:
            task.cancel()
        await asyncio.gather(*stopped, return_exceptions=True)
    return None if running.cancelled() else running.result()


async def _html_of(page: Page, origin: float) -> str | None:
    """The rendered HTML when the page still shows the document ``origin`` names; None
    when its scripts replaced it (or are replacing it now)."""
    try:
        shown: dict[str, Any] = await page.evaluate(SHOWN_DOCUMENT_JS)
    except PlaywrightError as exc:
        if NAVIGATED not in str(exc):
            raise
        return None
    html: str = shown["html"]
    return html if shown["origin"] == origin else None


async def _wait_for_load(page: Page, timeout: float) -> bool:
    """Wait for the main document's load event; False when it has not come in time."""
    try:
        await page.wait_for_load_state("load", timeout=timeout * 1000)
    except PlaywrightTimeout:
        return False
    return True


async def _restore_served_document(
    page: Page, document: MainDocument, options: CaptureOptions
) -> dict[str, Any]:
    """Show the served HTML (without its scripts) in a page whose scripts removed its
    document element, and wait for what it loads; the page's facts afterwards. Raises
    :class:`PageLostDocument` when the served HTML is not at hand (the page is not the
    document the route decoded)."""
    if document.body is None or document.url != page.url:
        raise PageLostDocument(
            f"the page's scripts removed its document and its HTML is not at hand: {page.url}"
        )
    declared = http_content_type_encoding((document.headers or {}).get("content-type", ""))
    html, _ = await asyncio.to_thread(decode_document, document.body, declared)
    with RequestsInFlight(page) as requests:
        await _evaluate(page, RESTORE_DOCUMENT_JS, html)
        await requests.wait_quiet(options.network_idle_timeout)
    facts: dict[str, Any] = await _evaluate(page, PAGE_FACTS_JS)
    return facts


def _served_before_failed_navigation(page: Page, document: MainDocument) -> bool:
    """Whether the page is on Chromium's error page after a navigation away from a 2xx
    HTML document the server had sent (the route decoded it: ``document.body``)."""
    return (
        page.url.startswith(BROWSER_ERROR_URL_PREFIX)
        and document.body is not None
        and document.status is not None
        and 200 <= document.status < 300
        and bool(document.network_errors)
        and not document.network_errors[-1].endswith(f" at {document.url}")
    )


async def _show_without_scripts(page: Page, url: str, options: CaptureOptions) -> bool:
    """Load ``url`` again with the page's scripts switched off (the capture's own
    evaluations still run), so that the server's document is what the tab shows; whether
    its load event came in time. The DevTools session that holds the switch is detached
    once the document has loaded: no script of it ran, so none is left to run."""
    session = await page.context.new_cdp_session(page)
    try:
        await session.send("Emulation.setScriptExecutionDisabled", {"value": True})
        await page.goto(url, wait_until="commit", timeout=options.load_timeout * 1000)
        return await _wait_for_load(page, options.load_timeout)
    finally:
        with contextlib.suppress(PlaywrightError):
            await session.detach()


def _raise_on_error_page(page: Page, document: MainDocument) -> None:
    """A page on Chromium's own error page is a network error, never content."""
    if page.url.startswith(BROWSER_ERROR_URL_PREFIX):
        reason = document.network_errors[-1] if document.network_errors else "browser error page"
        raise BrowserErrorPage(reason)


async def screenshot_with_fallback(
    page: Page,
    viewport: ViewportSize,
    height: int,
    page_height: int,
    options: CaptureOptions,
    warnings: list[str],
) -> tuple[bytes, int]:
    """The full-page screenshot of a page ``page_height`` px tall, cut at ``height``, taken straight through the DevTools
    protocol (Playwright's own screenshot adds a round of page preparation and a slower PNG
    encoding; the fonts were waited for with the boxes). Returns (PNG, height).

    A capture beyond the viewport paints the whole document, however short the cut: on
    pages of text, Chromium's renderer grew by 32 MiB at 17,608 px, 121 at 88,008, 379 at
    264,008, 781 at 880,008 and 2,256 MiB (10.5 s) at 2,640,008. So a page taller than
    ``options.max_page_height_for_full_shot`` is shot one screen at a time, scrolled, down
    to the cut (a fixed header then shows on every screen), with a warning; the soak's
    4 MB page (2,454,540 px) took 0.6 s so and no memory, against 2.5 s and +400 MiB.

    When the capture outlasts ``options.screenshot_timeout`` (a page too large to paint at
    once), or Chromium refuses it ("Unable to capture screenshot": once in a 5,000-page
    soak on a loaded machine, which made that page an error line and left the page only it
    linked to unreached), the first ``options.fallback_screens`` screens, the same way,
    and a warning."""
    session = await page.context.new_cdp_session(page)
    try:
        screens = -(-height // viewport["height"])
        failure = None
        if page_height <= options.max_page_height_for_full_shot:
            whole = await _shot_beyond_viewport(session, viewport, height, options)
            if isinstance(whole, bytes):
                return whole, height
            failure, screens = whole, max(1, min(options.fallback_screens, screens))
        shots = []
        for screen in range(screens):
            await _evaluate(page, "(y) => window.scrollTo(0, y)", screen * viewport["height"])
            shot = await session.send("Page.captureScreenshot", {"format": "png"})
            shots.append(base64.b64decode(shot["data"]))
        await _evaluate(page, "() => window.scrollTo(0, 0)")
    finally:
        with contextlib.suppress(PlaywrightError):  # the page may be gone, and its session with it
            await session.detach()
    png, cut = await asyncio.to_thread(
        stack_screens, shots, viewport["width"], min(height, screens * viewport["height"])
    )
    if failure is None:
        warnings.append(f"stacked: page {page_height}px tall, its first {cut}px shot one screen at a time")
    else:
        warnings.append(f"partial: {failure}, first {cut}px kept")
    return png, cut


async def _shot_beyond_viewport(
    session: CDPSession, viewport: ViewportSize, height: int, options: CaptureOptions
) -> bytes | str:
    """One capture of the page from its top, cut at ``height``: the PNG, or why there is
    none (it outlasted ``options.screenshot_timeout``, or Chromium refused it)."""
    try:
        shot = await asyncio.wait_for(
            session.send(
                "Page.captureScreenshot",
                {
                    "format": "png",
                    "clip": {"x": 0, "y": 0, "width": viewport["width"], "height": height, "scale": 1},
                    "captureBeyondViewport": True,
                    "optimizeForSpeed": options.fast_png,
                },
            ),
            timeout=options.screenshot_timeout,
        )
    except TimeoutError:
        return "screenshot timeout"
    except PlaywrightError as error:
        reason = error.message.partition("\n")[0] or type(error).__name__
        return f"screenshot failed ({reason})"
    return base64.b64decode(shot["data"])


def stack_screens(shots: list[bytes], width: int, height: int) -> tuple[bytes, int]:
    """PNG screens stacked top to bottom, cut at ``height``; returns (PNG, height)."""
    images = [Image.open(io.BytesIO(shot)) for shot in shots]
    sheet = Image.new("RGB", (width, height), "white")
    top = 0
    for image in images:
        sheet.paste(image.convert("RGB"), (0, top))
        top += image.height
    out = io.BytesIO()
    sheet.save(out, format="PNG")
    return out.getvalue(), height


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
        self.started = 0
        self.quiet = asyncio.Event()
        self.quiet.set()

    def _started(self, request: Any) -> None:
        self.pending.add(request)
        self.started += 1
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
        """Wait until no request has been in flight for QUIET_PERIOD; True at once when
        none has started since entering; False on timeout."""

        async def quiet_period() -> None:
            while True:
                await self.quiet.wait()
                if not self.started:
                    return
                await asyncio.sleep(QUIET_PERIOD)
                if self.quiet.is_set():
                    return

        try:
            await asyncio.wait_for(quiet_period(), timeout)
        except TimeoutError:
            return False
        return True


async def _load_what_scrolling_would(
    page: Page, facts: dict[str, Any], options: CaptureOptions, timings: dict[str, float]
) -> bool:
    """Bring in what the page would load as a reader scrolls, then wait (bounded by
    ``options.network_idle_timeout``) until the requests this started have finished.

    A page where something reacts to scrolling is scrolled through (``timings["scroll"]``);
    one whose only reaction is natively lazy media has it switched to eager loading
    (``timings["lazy_media"]``); a page where nothing reacts is left as it is (unless
    ``options.scroll_always``). Returns whether the page was scrolled.
    """
    reactions = facts["scrollReactions"]
    if not (options.scroll_always or reactions):
        return False
    lazy_only = reactions == LAZY_MEDIA_ONLY and not options.scroll_always
    step_started = time.perf_counter()
    with RequestsInFlight(page) as in_flight:
        if lazy_only:
            scrolled = False
            await _evaluate(page, LOAD_LAZY_MEDIA_JS, options.max_screenshot_height)
        else:
            scrolled = await _scroll_through(page, facts["height"], options)
        if not await in_flight.wait_quiet(options.network_idle_timeout):
            logger.debug("Network not quiet after %.1fs: %s", options.network_idle_timeout, page.url)
    timings["lazy_media" if lazy_only else "scroll"] = _ms_since(step_started)
    return scrolled


async def _scroll_through(page: Page, height: int, options: CaptureOptions) -> bool:
    """Scroll down in steps (lazy images, infinite-scroll sections), then back to the top;
    True when it scrolled. Pages no taller than the viewport are not scrolled.
    """
    viewport_height = (page.viewport_size or options.viewport)["height"]
    bottom = min(height, options.max_screenshot_height)
    if options.scroll_steps <= 0 or bottom <= viewport_height:
        return False
    await _evaluate(page, SCROLL_JS, [bottom, options.scroll_steps])
    return True


async def _evaluate(page: Page, script: str, arg: Any = None) -> Any:
    """page.evaluate that survives one client-side navigation (meta refresh, a script
    setting location): it waits for the new document to load and evaluates again."""
    try:
        return await page.evaluate(script, arg)
    except PlaywrightError as exc:
        if NAVIGATED not in str(exc):
            raise
    await page.wait_for_load_state("load")
    try:
        return await page.evaluate(script, arg)
    except PlaywrightError as exc:
        if NAVIGATED not in str(exc):
            raise
        raise PageKeptNavigating(
            f"the page navigated away twice while it was captured (its scripts reload or redirect it): {page.url}"
        ) from None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
