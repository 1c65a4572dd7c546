"""Site themes of the demo web, by name."""

from __future__ import annotations

from crawler.demo.themes.base import Theme
from crawler.demo.themes.blog import BlogTheme
from crawler.demo.themes.gov import GovTheme
from crawler.demo.themes.magazine import MagazineTheme
from crawler.demo.themes.portal import PortalTheme

THEMES: dict[str, type[Theme]] = {
    "portal": PortalTheme,
    "blog": BlogTheme,
    "gov": GovTheme,
    "magazine": MagazineTheme,
}
