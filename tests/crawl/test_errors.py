"""Failure classification: every failed request gets a reason a reader can group by."""

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from scrapy.exceptions import IgnoreRequest
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.internet import error as net_error
from twisted.python.failure import Failure

from crawler.errors import (
    BrowserErrorPage,
    PageKeptNavigating,
    PageLostDocument,
    PageTooLarge,
    describe_failure,
)


def failure_of(exc):
    try:
        raise exc
    except Exception:
        return Failure()


@pytest.mark.parametrize(
    ("exc", "kind", "skipped"),
    [
        (HttpError(Response("http://x/", status=503), "Ignoring non-200 response"), "http", False),
        (PlaywrightTimeout("Timeout 3000ms exceeded."), "timeout", False),
        (PlaywrightError("page.goto: net::ERR_NAME_NOT_RESOLVED at http://nx.invalid/"), "dns", False),
        (net_error.DNSLookupError("nx.invalid"), "dns", False),
        (PlaywrightError("page.evaluate: Target crashed"), "renderer-crash", False),
        (PlaywrightError("page.goto: net::ERR_CONNECTION_REFUSED"), "connection", False),
        (IgnoreRequest("Forbidden by robots.txt"), "robots", True),
        (PageTooLarge("page too large: 30000000 bytes"), "too-large", False),
        (BrowserErrorPage("net::ERR_SSL_PROTOCOL_ERROR at https://a.example/"), "network", False),
        (BrowserErrorPage("net::ERR_NAME_NOT_RESOLVED at http://nx.invalid/"), "dns", False),
        (BrowserErrorPage("net::ERR_CONNECTION_REFUSED at http://127.0.0.1:1/"), "connection", False),
        (PageKeptNavigating("the page navigated away twice while it was captured"), "unstable", False),
        (PageLostDocument("the page's scripts removed its document"), "unstable", False),
        (ValueError("boom"), "other", False),
    ],
)
def test_describe_failure(exc, kind, skipped):
    outcome = describe_failure(failure_of(exc))
    assert outcome.kind == kind
    assert outcome.skipped is skipped
    assert outcome.reason.startswith(kind)


def test_http_status_is_kept():
    outcome = describe_failure(failure_of(HttpError(Response("http://x/", status=500), "no")))
    assert outcome.http_status == 500
    assert outcome.reason == "http: HTTP 500"
