"""Styled generated sites for the page-type model: real blog generators (Pelican, Sphinx
with ABlog, MkDocs with mkdocs-material's blog plugin) with their bundled themes, filled
with real text from WCXB dev's training domains.

Each site is one theme. The generator's own URL scheme says which page is a post
(``article``) and which an index, archive, category, tag or author page (``listing``),
and every page carries its theme's split role, so that a held-out theme never appears
in training. ``build_sites`` writes the sites and ``pages.jsonl``; ``scrapy
capture-dataset --styled DIR`` serves and captures them.
"""

from crawler.styled.generator import (
    PAGES_NAME,
    THEMES,
    StyledPage,
    Theme,
    build_sites,
    read_styled_pages,
)

__all__ = ["PAGES_NAME", "THEMES", "StyledPage", "Theme", "build_sites", "read_styled_pages"]
