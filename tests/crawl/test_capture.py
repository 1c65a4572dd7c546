"""Capture steps that need no browser: the screenshot fallback, the main document's
route and the watch that abandons a step when the page navigates (with stand-in pages),
and the browser's names for decided encodings."""

import asyncio
import base64
import io
from dataclasses import replace

import pytest
from PIL import Image
from playwright.async_api import Error as PlaywrightError
from scrapy.http import Request as ScrapyRequest

from crawler.capture import (
    NAVIGATED,
    QUIET_PERIOD,
    MainDocument,
    RequestsInFlight,
    browser_charset,
    intercept_main_document,
    screenshot_with_fallback,
)
from crawler.capture import _evaluate as evaluate_in_page
from crawler.capture import _unless_navigating as unless_navigating
from crawler.errors import PageKeptNavigating
from tests.crawl.test_middleware import default_options


class SlowScreenshotPage:
    """A page whose full-page screenshot (a DevTools capture with a clip) never ends; each
    capture of the viewport returns it in a grey that tells which capture it was."""

    def __init__(self, width, height):
        self.context = self
        self.size = (width, height)
        self.scrolled_to = 0
        self.sent = []
        self.detached = False

    async def evaluate(self, script, arg=None):
        self.scrolled_to = arg or 0

    async def new_cdp_session(self, page):
        return self

    async def send(self, method, params):
        if "clip" in params:
            await asyncio.Event().wait()
        self.sent.append((method, self.scrolled_to))
        shot = io.BytesIO()
        Image.new("L", self.size, 10 + len(self.sent) * 40).save(shot, format="PNG")
        return {"data": base64.b64encode(shot.getvalue()).decode()}

    async def detach(self):
        self.detached = True


def test_screenshot_timeout_keeps_the_first_screens_and_says_so():
    page, warnings = SlowScreenshotPage(1366, 768), []
    options = replace(default_options(), screenshot_timeout=0.05)
    viewport = {"width": 1366, "height": 768}
    png, height = asyncio.run(screenshot_with_fallback(page, viewport, 6000, 9000, options, warnings))
    assert height == options.fallback_screens * 768 < 6000
    assert page.sent == [("Page.captureScreenshot", n * 768) for n in range(options.fallback_screens)]
    assert page.detached and page.scrolled_to == 0
    with Image.open(io.BytesIO(png)) as image:
        assert image.size == (1366, height)
        assert image.convert("L").getpixel((0, 768 + 10)) == 90  # the second screen, below the first
    assert warnings == [f"partial: screenshot timeout, first {height}px kept"]


class RefusedScreenshotPage(SlowScreenshotPage):
    """A page whose full-page screenshot Chromium refuses, as it did once in a soak."""

    async def send(self, method, params):
        if "clip" in params:
            raise PlaywrightError("Protocol error (Page.captureScreenshot): Unable to capture screenshot")
        return await super().send(method, params)


def test_a_refused_screenshot_keeps_the_first_screens_and_says_why():
    page, warnings = RefusedScreenshotPage(1366, 768), []
    viewport = {"width": 1366, "height": 768}
    png, height = asyncio.run(
        screenshot_with_fallback(page, viewport, 6000, 9000, default_options(), warnings)
    )
    assert height == default_options().fallback_screens * 768 and page.detached
    with Image.open(io.BytesIO(png)) as image:
        assert image.size == (1366, height)
    assert warnings == [
        f"partial: screenshot failed (Protocol error (Page.captureScreenshot): Unable to capture screenshot), "
        f"first {height}px kept"
    ]


def test_a_very_tall_page_is_shot_screen_by_screen_down_to_the_cut():
    # SlowScreenshotPage's full-page capture never ends, so only the screen-by-screen path
    # can answer: it is taken without trying the full capture (no screenshot timeout here).
    page, warnings = SlowScreenshotPage(1366, 768), []
    options = default_options()
    tall = options.max_page_height_for_full_shot + 1
    png, height = asyncio.run(
        asyncio.wait_for(
            screenshot_with_fallback(page, {"width": 1366, "height": 768}, 6000, tall, options, warnings), 5
        )
    )
    assert height == 6000 and len(page.sent) == 8  # ceil(6000 / 768) screens
    assert page.sent == [("Page.captureScreenshot", n * 768) for n in range(8)]
    assert page.detached and page.scrolled_to == 0
    with Image.open(io.BytesIO(png)) as image:
        assert image.size == (1366, 6000)
        assert image.convert("L").getpixel((0, 2 * 768 + 10)) == 10 + 3 * 40  # the third screen
    assert warnings == [f"stacked: page {tall}px tall, its first 6000px shot one screen at a time"]


def test_a_page_at_the_limit_gets_the_full_capture():
    class FullShotPage(SlowScreenshotPage):
        async def send(self, method, params):
            self.sent.append((method, params.get("captureBeyondViewport")))
            shot = io.BytesIO()
            Image.new("L", (1366, params["clip"]["height"]), 0).save(shot, format="PNG")
            return {"data": base64.b64encode(shot.getvalue()).decode()}

    page, warnings = FullShotPage(1366, 768), []
    options = default_options()
    png, height = asyncio.run(
        screenshot_with_fallback(
            page,
            {"width": 1366, "height": 768},
            6000,
            options.max_page_height_for_full_shot,
            options,
            warnings,
        )
    )
    assert Image.open(io.BytesIO(png)).size == (1366, 6000)
    assert height == 6000 and page.sent == [("Page.captureScreenshot", True)] and warnings == []


def test_short_page_fallback_is_cut_at_the_page():
    page, warnings = SlowScreenshotPage(800, 600), []
    viewport = {"width": 800, "height": 600}
    options = replace(default_options(), screenshot_timeout=0.05)
    png, height = asyncio.run(screenshot_with_fallback(page, viewport, 700, 700, options, warnings))
    assert height == 700 and len(page.sent) == 2
    with Image.open(io.BytesIO(png)) as image:
        assert image.size == (800, 700)


def test_decided_encodings_have_browser_labels():
    # The codecs decide_encoding answers with (w3lib's aliases, detection's candidates).
    assert browser_charset("cp932") == "shift_jis"
    assert browser_charset("gb18030") == "gb18030"
    assert browser_charset("cp949") == "euc-kr"
    assert browser_charset("cp1251") == "windows-1251"
    assert browser_charset("euc_jp") == "euc-jp"
    assert browser_charset("koi8_r") == "koi8-r"
    assert browser_charset("big5hkscs") == "big5"
    assert browser_charset("UTF8") == "utf-8"
    # No label known: the document is re-encoded as UTF-8 instead.
    assert browser_charset("mac-roman") is None and browser_charset("no-such-codec") is None


class FetchedResponse:
    """What ``route.fetch`` answers; records whether its body was disposed of."""

    def __init__(self, status, headers, body, body_error=None):
        self.status, self.headers = status, headers
        self._body, self.body_error = body, body_error
        self.disposed = False

    async def body(self):
        if self.body_error:
            raise self.body_error
        return self._body

    async def dispose(self):
        self.disposed = True


class DocumentRoute:
    """A main-frame navigation's route whose fetch answers ``response``."""

    def __init__(self, response):
        self.response = response
        self.answer = None

    async def fetch(self, **kwargs):
        return self.response

    async def fulfill(self, **kwargs):
        self.answer = kwargs

    async def fallback(self):
        self.answer = "fallback"


class Navigation:
    url = "http://a.example/"
    frame = "main frame"

    def is_navigation_request(self):
        return True

    async def all_headers(self):
        return {"accept": "text/html"}


class RoutedPage:
    """Keeps the route handler the capture registers."""

    main_frame = "main frame"

    def on(self, event, handler):
        pass

    async def route(self, pattern, handler):
        self.handler = handler


def route_document(response):
    page, route, document = RoutedPage(), DocumentRoute(response), MainDocument()

    async def run():
        await intercept_main_document(page, ScrapyRequest("http://a.example/"), document, default_options())
        await page.handler(route, Navigation())

    asyncio.run(run())
    return route, document


@pytest.mark.parametrize(
    "response",
    [
        FetchedResponse(200, {"content-type": "text/html"}, "<p>caf\u00e9</p>".encode("cp1252")),
        FetchedResponse(200, {"content-type": "text/html; charset=x-unknown"}, b"<p>plain</p>"),
        FetchedResponse(301, {"content-type": "text/html", "location": "/b"}, b""),
        FetchedResponse(200, {"content-type": "application/pdf"}, b"%PDF-1.4"),
        FetchedResponse(200, {"content-type": "text/html"}, b"", body_error=PlaywrightError("Target closed")),
    ],
    ids=["html", "html-reencoded", "redirect", "not-html", "body-lost"],
)
def test_fetched_document_body_is_disposed_once_the_route_is_answered(response):
    # The driver keeps a fetched body until it is disposed of or the context closes.
    route, _ = route_document(response)
    assert route.answer is not None
    assert response.disposed


def test_fetched_html_is_fulfilled_in_its_decided_charset():
    route, document = route_document(
        FetchedResponse(200, {"content-type": "text/html"}, "<p>caf\u00e9</p>".encode("cp1252"))
    )
    assert route.answer["headers"]["content-type"].startswith("text/html; charset=")
    assert document.body == "<p>caf\u00e9</p>".encode("cp1252") and document.status == 200


class EventPage:
    """A page that only registers request listeners, so a test can fire its events."""

    def __init__(self):
        self.listeners = {}

    def on(self, event, handler):
        self.listeners[event] = handler

    def remove_listener(self, event, handler):
        assert self.listeners.pop(event) == handler

    def fire(self, event, request):
        self.listeners[event](request)


def test_quiet_network_settles_without_waiting_when_nothing_was_requested(monkeypatch):
    slept = []
    real_sleep = asyncio.sleep

    async def recording_sleep(seconds, *args):
        slept.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr("crawler.capture.asyncio.sleep", recording_sleep)
    page = EventPage()
    with RequestsInFlight(page) as in_flight:
        assert asyncio.run(in_flight.wait_quiet(1.0))
        assert slept == []
        page.fire("request", "image")
        page.fire("requestfinished", "image")
        assert asyncio.run(in_flight.wait_quiet(1.0))
        assert slept == [QUIET_PERIOD]
    assert page.listeners == {}


def test_a_request_that_never_ends_times_the_wait_out():
    page = EventPage()
    with RequestsInFlight(page) as in_flight:
        page.fire("request", "stalled fetch")
        page.fire("request", "failed fetch")
        page.fire("requestfailed", "failed fetch")
        assert not asyncio.run(in_flight.wait_quiet(0.05))


class NavigatingPage:
    """A page whose first ``navigations`` script runs are cut short by a navigation."""

    url = "http://a.test/looping"

    def __init__(self, navigations):
        self.navigations = navigations
        self.runs = 0
        self.loads_waited = 0

    async def evaluate(self, script, arg=None):
        self.runs += 1
        if self.runs <= self.navigations:
            raise PlaywrightError(f"Page.evaluate: {NAVIGATED}, most likely because of a navigation")
        return arg

    async def wait_for_load_state(self, state):
        self.loads_waited += 1


def test_a_script_cut_by_one_navigation_runs_again_in_the_new_document():
    page = NavigatingPage(navigations=1)
    assert asyncio.run(evaluate_in_page(page, "(x) => x", 7)) == 7
    assert page.runs == 2 and page.loads_waited == 1


def test_a_page_that_keeps_navigating_is_unstable_in_one_line():
    page = NavigatingPage(navigations=5)
    with pytest.raises(
        PageKeptNavigating, match=r"navigated away twice while it was captured.*a\.test/looping"
    ):
        asyncio.run(evaluate_in_page(page, "(x) => x", 7))
    assert page.runs == 2


class RequestingPage:
    """A page that sends ``requests`` (frame, is it a navigation?) to its "request"
    listeners once a step has started."""

    main_frame = "main frame"

    def __init__(self, requests):
        self.requests = requests
        self.listeners = []

    def on(self, event, listener):
        assert event == "request"
        self.listeners.append(listener)

    def remove_listener(self, event, listener):
        self.listeners.remove(listener)

    def send_requests(self):
        for frame, navigation in self.requests:
            request = type(
                "Request", (), {"frame": frame, "is_navigation_request": lambda self, n=navigation: n}
            )()
            for listener in list(self.listeners):
                listener(request)


def run_step_beside(page, step_seconds):
    """(the step's result or None, whether the step was cancelled, seconds taken)."""
    cancelled = []

    async def step():
        try:
            await asyncio.sleep(step_seconds)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return "shot"

    async def run():
        started = asyncio.get_running_loop().time()
        asyncio.get_running_loop().call_later(0.01, page.send_requests)
        result = await unless_navigating(page, step())
        return result, bool(cancelled), asyncio.get_running_loop().time() - started

    return asyncio.run(run())


def test_a_step_is_abandoned_when_the_main_frame_requests_another_document():
    page = RequestingPage([("main frame", True)])
    result, cancelled, seconds = run_step_beside(page, step_seconds=30)
    assert (result, cancelled) == (None, True) and seconds < 5
    assert page.listeners == []


def test_other_requests_leave_the_step_to_finish():
    page = RequestingPage([("main frame", False), ("an iframe", True)])
    result, cancelled, _ = run_step_beside(page, step_seconds=0.1)
    assert (result, cancelled) == ("shot", False)
    assert page.listeners == []
