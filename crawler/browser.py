"""Which Chromium to start, and how: a Scrapy add-on that fills in Playwright's settings.

The add-on runs after every other setting (``-s`` included) is known and before they
are frozen, so ``PAGESIGHT_BROWSER_PATH`` given on the command line is honoured.
"""

from __future__ import annotations

import glob
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

#: Where a system Chromium usually lives, in order of preference.
SYSTEM_CHROMIUM_CANDIDATES = (
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
    "/snap/bin/chromium",
)

INSTALL_HINT = (
    "No Chromium found: install Debian's package (apt-get install chromium) or "
    "Playwright's browser (playwright install chromium), or set PAGESIGHT_BROWSER_PATH."
)


class BrowserNotFound(RuntimeError):
    """No usable Chromium binary on this machine."""


def playwright_chromium() -> str | None:
    """Path of a Chromium installed by ``playwright install``, if there is one."""
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache" / "ms-playwright")
    found = sorted(glob.glob(os.path.join(root, "chromium-*", "chrome-linux*", "chrome")))
    return found[-1] if found else None


def find_chromium(configured: str = "") -> str:
    """Return the Chromium executable to use.

    ``configured`` (PAGESIGHT_BROWSER_PATH) wins; else Playwright's own browser; else a
    system Chromium. Raises :class:`BrowserNotFound` with an install hint.
    """
    if configured:
        path = shutil.which(configured) or configured
        if not os.access(path, os.X_OK):
            raise BrowserNotFound(f"PAGESIGHT_BROWSER_PATH={configured!r} is not an executable")
        return path
    own = playwright_chromium()
    if own:
        return own
    for candidate in SYSTEM_CHROMIUM_CANDIDATES:
        if os.access(candidate, os.X_OK):
            return candidate
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise BrowserNotFound(INSTALL_HINT)


@dataclass(frozen=True)
class BrowserConfig:
    """The browser's settings, read once (a user's own launch options win)."""

    launch_options: dict[str, Any]
    browser_path: str
    browser_args: list[str]
    page_timeout_s: float

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> BrowserConfig:
        return cls(
            launch_options=settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS"),
            browser_path=settings.get("PAGESIGHT_BROWSER_PATH"),
            browser_args=settings.getlist("PAGESIGHT_BROWSER_ARGS"),
            page_timeout_s=settings.getfloat("PAGESIGHT_PAGE_TIMEOUT"),
        )


class BrowserAddon:
    """Sets PLAYWRIGHT_LAUNCH_OPTIONS from our settings (a user's own is left alone).

    No startup context is declared: scrapy-playwright would then launch one browser per
    download handler (http and https) at start-up. The capture middleware names its
    context per request instead, so Chromium starts with the first page.
    """

    def update_settings(self, settings: BaseSettings) -> None:
        config = BrowserConfig.from_settings(settings)
        if not config.launch_options:
            executable = find_chromium(config.browser_path)
            logger.debug("Chromium: %s", executable)
            settings.set(
                "PLAYWRIGHT_LAUNCH_OPTIONS",
                {"executable_path": executable, "headless": True, "args": config.browser_args},
                priority="addon",
            )
        settings.set("PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT", config.page_timeout_s * 1000, priority="addon")
