"""The capture middleware's request and response handling (the browser side runs in the
end-to-end crawl tests)."""

import pickle
from dataclasses import replace

import pytest
from scrapy.http import HtmlResponse, Request
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler
from scrapy_playwright.page import PageMethod

import settings as project_settings
from crawler.capture import MainDocument, capture_page, prepare_page
from crawler.errors import PageTooLarge
from crawler.middlewares import (
    CAPTURE_META_KEY,
    CAPTURE_RESULT_KEY,
    CAPTURE_SKIP_KEY,
    CaptureConfig,
    CaptureMiddleware,
)

PAGESIGHT_DEFAULTS = {
    name: getattr(project_settings, name) for name in dir(project_settings) if name.startswith("PAGESIGHT_")
}


def middleware(**settings):
    return CaptureMiddleware.from_crawler(get_crawler(settings_dict={**PAGESIGHT_DEFAULTS, **settings}))


def default_options():
    settings = Settings()
    settings.setmodule(project_settings)
    return CaptureConfig.from_settings(settings).options


def test_config_reads_every_capture_setting():
    config = CaptureConfig.from_settings(Settings(PAGESIGHT_DEFAULTS))
    assert config.options == default_options()
    assert (config.options.viewport, config.max_html_bytes) == ({"width": 1366, "height": 768}, 20_000_000)
    assert config.options.load_timeout == project_settings.PAGESIGHT_PAGE_TIMEOUT
    assert config.options.hide_overlays is True


def test_document_fetch_must_end_before_the_load_deadline():
    with pytest.raises(
        ValueError, match="PAGESIGHT_DOCUMENT_TIMEOUT=10 must be above 0 and below PAGESIGHT_PAGE_TIMEOUT=8"
    ):
        middleware(PAGESIGHT_PAGE_TIMEOUT=8)


def test_only_marked_requests_are_rendered():
    mw = middleware()
    plain = Request("http://a.example/robots.txt")
    mw.process_request(plain)
    assert "playwright" not in plain.meta


def test_marked_request_gets_picklable_playwright_meta():
    mw = middleware(
        PAGESIGHT_PAGE_TIMEOUT=7, PAGESIGHT_DOCUMENT_TIMEOUT=3, PAGESIGHT_MAX_SCREENSHOT_HEIGHT=1234
    )
    request = Request("http://a.example/", meta={CAPTURE_META_KEY: True})
    mw.process_request(request)
    assert request.meta["playwright"] is True
    assert request.meta["playwright_include_page"] is False
    assert request.meta["playwright_page_goto_kwargs"] == {"wait_until": "commit", "timeout": 7000}
    assert request.meta["playwright_context_kwargs"]["viewport"]["width"] == 1366
    (method,) = request.meta["playwright_page_methods"]
    assert method.method is capture_page
    options = replace(default_options(), max_screenshot_height=1234, load_timeout=7.0, document_timeout=3.0)
    assert method.args == (options, MainDocument())
    init = request.meta["playwright_page_init_callback"]
    assert init.func is prepare_page and init.keywords["options"] == options
    # The route handler and the capture share one record of the main document.
    assert init.keywords["document"] is method.args[1]
    restored = pickle.loads(pickle.dumps(request.meta))
    assert restored["playwright_page_methods"][0].args == method.args


def rendered(request, result, body=b"<html><body>hi</body></html>"):
    method = PageMethod(capture_page, default_options(), MainDocument())
    method.result = result
    request.meta["playwright_page_methods"] = [method]
    return HtmlResponse(request.url, body=body, encoding="utf-8", request=request)


def test_capture_result_moves_to_response_meta():
    mw = middleware()
    request = Request("http://a.example/", meta={CAPTURE_META_KEY: True, "download_latency": 0.5})
    response = mw.process_response(request, rendered(request, capture_result()))
    capture = response.meta[CAPTURE_RESULT_KEY]
    assert capture.html == "<html><body>hi</body></html>"
    assert capture.screenshot_png == b"png"
    assert (capture.final_url, capture.raw_html) == ("http://a.example/", b"<p>raw</p>")
    assert (capture.encoding, capture.encoding_source) == ("cp1251", "detected")
    assert capture.warnings == ["overlay hidden: div#cmp"]
    assert "playwright_page_methods" not in request.meta
    assert response.meta["pagesight_timings_ms"]["render_total"] == 500.0
    stats = mw.crawler.stats.get_stats()
    assert stats["pagesight/capture/not_scrolled"] == 1 and "pagesight/capture/scrolled" not in stats
    assert stats["pagesight/capture/scroll_reactions/lazy media"] == 1


def capture_result(**changes):
    result = {
        "screenshot_png": b"png",
        "boxes": [{"tag": "p"}],
        "html": "<html><body>hi</body></html>",
        "viewport_width": 1366,
        "page_height": 2000,
        "screenshot_height": 2000,
        "final_url": "http://a.example/",
        "scrolled": False,
        "scroll_reactions": ["lazy media"],
        "raw_html": b"<p>raw</p>",
        "encoding": "cp1251",
        "encoding_source": "detected",
        "warnings": ["overlay hidden: div#cmp"],
        "timings_ms": {"settle": 10.0},
    }
    return {**result, **changes}


def test_the_html_the_capture_serialized_replaces_the_blank_tabs():
    mw = middleware()
    request = Request("http://a.example/slow", meta={CAPTURE_META_KEY: True})
    result = capture_result(html="<html><body>half</body></html>", final_url="http://a.example/slow#x")
    blank = b"<html><head></head><body></body></html>"  # what the handler serializes after the capture
    response = mw.process_response(request, rendered(request, result, body=blank))
    assert response.meta[CAPTURE_RESULT_KEY].html == "<html><body>half</body></html>"
    assert response.url == "http://a.example/slow#x" and response.text == "<html><body>half</body></html>"


def test_skip_reason_is_passed_on():
    mw = middleware()
    request = Request("http://a.example/x.pdf", meta={CAPTURE_META_KEY: True})
    response = mw.process_response(request, rendered(request, {"skip": "not HTML (application/pdf)"}))
    assert response.meta[CAPTURE_SKIP_KEY] == "not HTML (application/pdf)"
    assert CAPTURE_RESULT_KEY not in response.meta


def test_huge_html_is_refused():
    mw = middleware(PAGESIGHT_MAX_HTML_BYTES=100)
    request = Request("http://a.example/", meta={CAPTURE_META_KEY: True})
    result = capture_result(html="x" * 500)
    with pytest.raises(PageTooLarge, match="PAGESIGHT_MAX_HTML_BYTES=100"):
        mw.process_response(request, rendered(request, result))


def test_exception_drops_spent_page_methods():
    mw = middleware()
    request = Request("http://a.example/", meta={CAPTURE_META_KEY: True})
    mw.process_request(request)
    mw.process_exception(request, TimeoutError())
    assert "playwright_page_methods" not in request.meta
    assert "playwright_page_init_callback" not in request.meta
