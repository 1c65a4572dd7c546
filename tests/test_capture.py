"""Capture steps that need no browser: the screenshot fallback (with a stand-in page) and
the browser's names for decided encodings."""

import asyncio
import base64
import io

from PIL import Image
from playwright.async_api import TimeoutError as PlaywrightTimeout

from crawler.capture import browser_charset, screenshot_with_fallback
from tests.test_middleware import default_options


class SlowScreenshotPage:
    """A page whose full-page screenshot always times out; each DevTools capture returns
    the viewport in a grey that tells which capture it was."""

    def __init__(self, width, height):
        self.context = self
        self.size = (width, height)
        self.scrolled_to = 0
        self.sent = []
        self.detached = False

    async def screenshot(self, **kwargs):
        raise PlaywrightTimeout("Page.screenshot: Timeout 30000ms exceeded. waiting for fonts to load...")

    async def evaluate(self, script, arg=None):
        self.scrolled_to = arg or 0

    async def new_cdp_session(self, page):
        return self

    async def send(self, method, params):
        self.sent.append((method, self.scrolled_to))
        shot = io.BytesIO()
        Image.new("L", self.size, 10 + len(self.sent) * 40).save(shot, format="PNG")
        return {"data": base64.b64encode(shot.getvalue()).decode()}

    async def detach(self):
        self.detached = True


def test_screenshot_timeout_keeps_the_first_screens_and_says_so():
    page, warnings = SlowScreenshotPage(1366, 768), []
    options = default_options()
    viewport = {"width": 1366, "height": 768}
    png, height = asyncio.run(screenshot_with_fallback(page, viewport, 6000, options, warnings))
    assert height == options.fallback_screens * 768 < 6000
    assert page.sent == [("Page.captureScreenshot", n * 768) for n in range(options.fallback_screens)]
    assert page.detached and page.scrolled_to == 0
    with Image.open(io.BytesIO(png)) as image:
        assert image.size == (1366, height)
        assert image.convert("L").getpixel((0, 768 + 10)) == 90  # the second screen, below the first
    assert warnings == [f"partial: screenshot timeout, first {height}px kept"]


def test_short_page_fallback_is_cut_at_the_page():
    page, warnings = SlowScreenshotPage(800, 600), []
    viewport = {"width": 800, "height": 600}
    png, height = asyncio.run(screenshot_with_fallback(page, viewport, 700, default_options(), warnings))
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
