"""Why a request failed, in words a feed reader can group by."""

from __future__ import annotations

from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from scrapy.exceptions import IgnoreRequest
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.internet import error as net_error
from twisted.python.failure import Failure


class PageTooLarge(Exception):
    """The rendered HTML is larger than PAGESIGHT_MAX_HTML_BYTES."""


class BrowserErrorPage(Exception):
    """The page ended on the browser's own error page (chrome-error://): the message
    names the network error, e.g. ``net::ERR_SSL_PROTOCOL_ERROR at https://…``."""


class PageKeptNavigating(Exception):
    """The page navigated again each time the capture ran a script in it (a script that
    reloads or redirects it in a loop): nothing stable to capture."""


class PageLostDocument(Exception):
    """The page's own scripts removed its document element and the served HTML was not
    at hand to show instead."""


@dataclass(frozen=True)
class FailureOutcome:
    """What a failed request becomes in the feed."""

    kind: str  # timeout, dns, http, renderer-crash, connection, network, too-large, unstable, robots, ignored, other
    reason: str
    skipped: bool = False
    http_status: int | None = None


_CRASH_MARKERS = (
    "Target crashed",
    "Page crashed",
    "crashed",
    "Target page, context or browser has been closed",
)
_DNS_MARKERS = ("ERR_NAME_NOT_RESOLVED", "ERR_NAME_RESOLUTION_FAILED")
_CONNECTION_MARKERS = ("ERR_CONNECTION", "ERR_ADDRESS_UNREACHABLE", "ERR_EMPTY_RESPONSE")
_TIMEOUT_MARKERS = ("ERR_TIMED_OUT", "Timeout")


def renderer_gone(message: str) -> bool:
    """Whether a Playwright error says the page's renderer crashed or the page is closed."""
    return any(m in message for m in _CRASH_MARKERS)


def describe_failure(failure: Failure) -> FailureOutcome:
    """Classify a request failure into a feed outcome with a one-line reason."""
    exc = failure.value
    message = _first_line(str(exc)) or type(exc).__name__
    if isinstance(exc, HttpError):
        status = exc.response.status
        return FailureOutcome("http", f"http: HTTP {status}", http_status=status)
    if isinstance(exc, BrowserErrorPage):
        if any(m in message for m in _DNS_MARKERS):
            return FailureOutcome("dns", f"dns: {message}")
        if any(m in message for m in _CONNECTION_MARKERS):
            return FailureOutcome("connection", f"connection: {message}")
        return FailureOutcome("network", f"network: {message}")
    if isinstance(exc, PageTooLarge):
        return FailureOutcome("too-large", f"too-large: {message}")
    if isinstance(exc, (PageKeptNavigating, PageLostDocument)):
        return FailureOutcome("unstable", f"unstable: {message}")
    if isinstance(exc, IgnoreRequest):
        if "robots.txt" in message:
            return FailureOutcome("robots", "robots: forbidden by robots.txt", skipped=True)
        return FailureOutcome("ignored", f"ignored: {message}", skipped=True)
    if isinstance(exc, (PlaywrightTimeout, TimeoutError, net_error.TimeoutError, net_error.TCPTimedOutError)):
        return FailureOutcome("timeout", f"timeout: {message}")
    if isinstance(exc, net_error.DNSLookupError) or any(m in message for m in _DNS_MARKERS):
        return FailureOutcome("dns", f"dns: {message}")
    if isinstance(exc, PlaywrightError):
        if renderer_gone(message):
            return FailureOutcome("renderer-crash", f"renderer-crash: {message}")
        if any(m in message for m in _CONNECTION_MARKERS):
            return FailureOutcome("connection", f"connection: {message}")
        if any(m in message for m in _TIMEOUT_MARKERS):
            return FailureOutcome("timeout", f"timeout: {message}")
        return FailureOutcome("browser", f"browser: {message}")
    if isinstance(exc, (net_error.ConnectError, net_error.ConnectionLost)):
        return FailureOutcome("connection", f"connection: {message}")
    return FailureOutcome("other", f"other: {type(exc).__name__}: {message}")


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""
