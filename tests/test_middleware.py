"""The capture middleware's request and response handling (the browser side runs in the
end-to-end crawl tests)."""

import pickle

import pytest
from scrapy.http import HtmlResponse, Request
from scrapy.utils.test import get_crawler
from scrapy_playwright.page import PageMethod

from crawler.capture import CaptureOptions, capture_page
from crawler.middlewares import (
    CAPTURE_META_KEY,
    CAPTURE_RESULT_KEY,
    CAPTURE_SKIP_KEY,
    CaptureMiddleware,
    PageTooLarge,
)


def middleware(**settings):
    return CaptureMiddleware.from_crawler(get_crawler(settings_dict=settings))


def test_only_marked_requests_are_rendered():
    mw = middleware()
    plain = Request("http://a.example/robots.txt")
    mw.process_request(plain)
    assert "playwright" not in plain.meta


def test_marked_request_gets_picklable_playwright_meta():
    mw = middleware(PAGESIGHT_PAGE_TIMEOUT=7, PAGESIGHT_MAX_SCREENSHOT_HEIGHT=1234)
    request = Request("http://a.example/", meta={CAPTURE_META_KEY: True})
    mw.process_request(request)
    assert request.meta["playwright"] is True
    assert request.meta["playwright_include_page"] is False
    assert request.meta["playwright_page_goto_kwargs"] == {"wait_until": "load", "timeout": 7000}
    assert request.meta["playwright_context_kwargs"]["viewport"]["width"] == 1366
    (method,) = request.meta["playwright_page_methods"]
    assert method.method is capture_page
    assert method.args == (CaptureOptions(max_screenshot_height=1234),)
    restored = pickle.loads(pickle.dumps(request.meta))
    assert restored["playwright_page_methods"][0].args == method.args


def rendered(request, result, body=b"<html><body>hi</body></html>"):
    method = PageMethod(capture_page, CaptureOptions())
    method.result = result
    request.meta["playwright_page_methods"] = [method]
    return HtmlResponse(request.url, body=body, encoding="utf-8", request=request)


def test_capture_result_moves_to_response_meta():
    mw = middleware()
    request = Request("http://a.example/", meta={CAPTURE_META_KEY: True, "download_latency": 0.5})
    result = {
        "screenshot_png": b"png",
        "boxes": [{"tag": "p"}],
        "viewport_width": 1366,
        "page_height": 2000,
        "screenshot_height": 2000,
        "timings_ms": {"settle": 10.0},
    }
    response = mw.process_response(request, rendered(request, result))
    capture = response.meta[CAPTURE_RESULT_KEY]
    assert capture.html == "<html><body>hi</body></html>"
    assert capture.screenshot_png == b"png"
    assert "playwright_page_methods" not in request.meta
    assert response.meta["pagesight_timings_ms"]["render_total"] == 500.0


def test_skip_reason_is_passed_on():
    mw = middleware()
    request = Request("http://a.example/x.pdf", meta={CAPTURE_META_KEY: True})
    response = mw.process_response(request, rendered(request, {"skip": "not HTML (application/pdf)"}))
    assert response.meta[CAPTURE_SKIP_KEY] == "not HTML (application/pdf)"
    assert CAPTURE_RESULT_KEY not in response.meta


def test_huge_html_is_refused():
    mw = middleware(PAGESIGHT_MAX_HTML_BYTES=100)
    request = Request("http://a.example/", meta={CAPTURE_META_KEY: True})
    result = {
        "screenshot_png": b"",
        "boxes": [],
        "viewport_width": 1366,
        "page_height": 1,
        "screenshot_height": 1,
        "timings_ms": {},
    }
    with pytest.raises(PageTooLarge, match="PAGESIGHT_MAX_HTML_BYTES=100"):
        mw.process_response(request, rendered(request, result, body=b"x" * 500))


def test_exception_drops_spent_page_methods():
    mw = middleware()
    request = Request("http://a.example/", meta={CAPTURE_META_KEY: True})
    mw.process_request(request)
    mw.process_exception(request, TimeoutError())
    assert "playwright_page_methods" not in request.meta
