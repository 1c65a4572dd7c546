"""What every site theme provides: URL scheme, page templates and its own assets."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from crawler.demo.markup import esc
from crawler.demo.model import Article, Block, Category, Link, Listing, Page, SiteSpec


@dataclass(frozen=True)
class SiteView:
    """What a theme sees of its site besides the page being rendered."""

    spec: SiteSpec
    categories: list[Category]
    popular: list[Article]  # the sidebar's "most read" box
    home_links: list[Link]  # extra links only the home page shows (fault pages)
    footer_links: list[Link]  # links every page's footer shows
    topics: list[Link]  # every tag index (the site index every page's footer shows)
    authors: list[Link]  # every author index
    archives: list[Link]  # every month index, newest first


def json_for_script(data: Any) -> str:
    """JSON safe to embed in a <script> element (no closing tags; text stays as is, so
    it is encoded in the page's charset like the rest of the page)."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True).replace("</", "<\\/")


class Theme(ABC):
    """One site's look and URL scheme. Rendered pages are str; the generator encodes them.

    The URL scheme and headings are static: the generator needs them before the site
    (and so the theme's :class:`SiteView`) exists.
    """

    #: Label of each fault or extra page kind, in the site's language.
    link_labels: dict[str, str] = {}
    #: Whether list pages show each item's summary (it is then part of the gold item text).
    list_summaries: bool = True
    #: Main colour of the site (its icon).
    brand_colour: str = "#444"
    #: Labels of the site index and of an article's topic box: "topics", "authors",
    #: "archive" and "more_by" (with ``{name}``), in the site's language.
    index_labels: dict[str, str] = {}
    #: <h1> of a "tag", "author" and "archive" index (with ``{name}``) and of an index's
    #: further pages ("page", with ``{heading}`` and ``{page}``).
    index_headings: dict[str, str] = {}

    def __init__(self, view: SiteView) -> None:
        self.view = view
        self.spec = view.spec

    # --- URL scheme -------------------------------------------------------------------
    @staticmethod
    @abstractmethod
    def home_path(page: int) -> str:
        """Path of page ``page`` (1-based) of the home index; page 1 is "/"."""

    @staticmethod
    @abstractmethod
    def category_path(slug: str, page: int) -> str:
        """Path of page ``page`` of a category index."""

    @staticmethod
    @abstractmethod
    def article_path(number: int, category: Category, published: datetime) -> str:
        """Path of article ``number`` (unique within the site)."""

    @staticmethod
    def index_path(kind: str, slug: str, page: int) -> str:
        """Path of page ``page`` of a tag, author or month index (``kind``: "tag", "author",
        "archive"; a month's slug is "YYYY/MM")."""
        return f"/{kind}/{slug}/" if page == 1 else f"/{kind}/{slug}/page/{page}/"

    # --- Headings ---------------------------------------------------------------------
    @staticmethod
    @abstractmethod
    def home_heading(page: int) -> str:
        """The <h1> of page ``page`` of the home index."""

    @staticmethod
    @abstractmethod
    def category_heading(category: Category, page: int) -> str:
        """The <h1> of page ``page`` of a category index."""

    @classmethod
    def index_heading(cls, kind: str, name: str, page: int) -> str:
        """The <h1> of page ``page`` of a tag, author or month index."""
        heading = cls.index_headings[kind].format(name=name)
        return heading if page == 1 else cls.index_headings["page"].format(heading=heading, page=page)

    @staticmethod
    def month_label(year: int, month: int) -> str:
        """A month as the site names its archive."""
        return f"{year}年{month}月"

    @staticmethod
    def subheading(number: int, text: str) -> str:
        """Subheading ``number`` (1-based) of an article body as the site writes it."""
        return text

    # --- Templates --------------------------------------------------------------------
    @abstractmethod
    def list_page(self, listing: Listing) -> str:
        """A home or category index page."""

    @abstractmethod
    def article_page(self, article: Article, related: list[Article]) -> str:
        """An article page with all its boilerplate."""

    @abstractmethod
    def notice_page(self, title: str, message: str) -> str:
        """A plain page in the site's chrome (error pages, the private page)."""

    def assets(self, articles: list[Article]) -> list[Page]:
        """Files the site serves itself besides its pages: its icon, stylesheets, images."""
        icon = (
            '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
            f'<rect width="32" height="32" rx="6" fill="{self.brand_colour}"/>'
            '<circle cx="16" cy="16" r="7" fill="#fff"/></svg>'
        )
        return [Page("/favicon.svg", icon.encode("ascii"), "image/svg+xml")]

    # --- Shared helpers ---------------------------------------------------------------
    def head(self, title: str, canonical: str | None, extra: str = "") -> str:
        """The start of a document up to <body>: charset first, then title and canonical link."""
        link = f'<link rel="canonical" href="{esc(canonical)}">\n' if canonical else ""
        return (
            "<!DOCTYPE html>\n"
            f'<html lang="{self.spec.language.html_lang}">\n<head>\n'
            f'<meta charset="{self.spec.charset.label}">\n'
            f"<title>{esc(title)}</title>\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<link rel="icon" href="/favicon.svg" type="image/svg+xml">\n'
            f"{link}{extra}</head>\n"
        )

    def pagination(self, listing: Listing, previous: str, following: str) -> str:
        """Numbered links to every page of the index, with previous/next links."""
        if len(listing.page_paths) < 2:
            return ""
        number = listing.page_number
        parts = []
        if number > 1:
            parts.append(f'<a class="prev" href="{listing.page_paths[number - 2]}">{previous}</a>')
        for index, path in enumerate(listing.page_paths, start=1):
            if index == number:
                parts.append(f'<span class="current">{index}</span>')
            else:
                parts.append(f'<a href="{path}">{index}</a>')
        if number < len(listing.page_paths):
            parts.append(f'<a class="next" href="{listing.page_paths[number]}">{following}</a>')
        return '<nav class="pagination">' + " ".join(parts) + "</nav>"

    @staticmethod
    def inline(block: Block) -> str:
        """A paragraph's escaped text, its linked phrase (if any) an <a>."""
        if block.link is None:
            return esc(block.text)
        before, phrase, after = block.text.partition(block.link.label)
        return f'{esc(before)}<a href="{block.link.path}">{esc(phrase)}</a>{esc(after)}'

    def article_links(self, article: Article) -> str:
        """The box under an article: its topics, its author's index, its month's index."""
        labels = self.index_labels
        tags = " ".join(f'<a rel="tag" href="{tag.path}">{esc(tag.label)}</a>' for tag in article.tags)
        parts = [f'<span class="topics-label">{esc(labels["topics"])}:</span> {tags}']
        more = labels["more_by"].format(name=article.author)
        parts.append(f'<a class="author-more" href="{article.author_path}">{esc(more)}</a>')
        if article.archive is not None:
            parts.append(
                f'<a class="archive-link" href="{article.archive.path}">{esc(article.archive.label)}</a>'
            )
        return '<div class="article-topics">' + " | ".join(parts) + "</div>"

    def site_index(self) -> str:
        """Every page's site index: all topics, authors and months, each an index page."""
        groups = (
            (self.index_labels["topics"], self.view.topics),
            (self.index_labels["authors"], self.view.authors),
            (self.index_labels["archive"], self.view.archives),
        )
        parts = []
        for title, links in groups:
            items = "".join(f'<li><a href="{link.path}">{esc(link.label)}</a></li>' for link in links)
            parts.append(
                f'<div class="site-index-group"><h3>{esc(title)}</h3>'
                f'<ul style="display:flex;flex-wrap:wrap;gap:4px 14px;list-style:none;padding:0">'
                f"{items}</ul></div>"
            )
        return '<nav class="site-index" style="padding:12px 40px;font-size:13px">' + "".join(parts) + "</nav>"

    def time(self, moment: datetime, label: str) -> str:
        """A <time> element with the ISO 8601 instant."""
        return f'<time datetime="{moment.isoformat()}">{esc(label)}</time>'
