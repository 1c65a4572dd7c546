"""Which Chromium to start, and how: a Scrapy add-on that fills in Playwright's settings.

The add-on runs after every other setting (``-s`` included) is known and before they
are frozen, so ``PAGESIGHT_BROWSER_PATH`` given on the command line is honoured.
"""

from __future__ import annotations

import glob
import logging
import os
import shutil
from pathlib import Path

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
        path = shutil.which(name)
        if path:
            return path
    raise BrowserNotFound(INSTALL_HINT)


class BrowserAddon:
    """Sets PLAYWRIGHT_LAUNCH_OPTIONS from our settings (a user's own is left alone).

    No startup context is declared: scrapy-playwright would then launch one browser per
    download handler (http and https) at start-up. The capture middleware names its
    context per request instead, so Chromium starts with the first page.
    """

    def update_settings(self, settings: BaseSettings) -> None:
        if not settings.getdict("PLAYWRIGHT_LAUNCH_OPTIONS"):
            executable = find_chromium(settings.get("PAGESIGHT_BROWSER_PATH", ""))
            logger.debug("Chromium: %s", executable)
            settings.set(
                "PLAYWRIGHT_LAUNCH_OPTIONS",
                {
                    "executable_path": executable,
                    "headless": True,
                    "args": settings.getlist("PAGESIGHT_BROWSER_ARGS"),
                },
                priority="addon",
            )
        settings.set(
            "PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT",
            settings.getfloat("PAGESIGHT_PAGE_TIMEOUT") * 1000,
            priority="addon",
        )
