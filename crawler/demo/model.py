"""The site model: what the generator builds and the server serves (no sockets here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from crawler.demo.content import Charset, Language


@dataclass(frozen=True)
class Link:
    """A labelled same-site link."""

    label: str
    path: str


@dataclass(frozen=True)
class Block:
    """One block of an article body: ``kind`` is "lead", "p", "h2" or "figure" (its caption).
    A paragraph may link a phrase of its text (``link.label``) to another article."""

    kind: str
    text: str
    link: Link | None = None


@dataclass(frozen=True)
class Comment:
    """A reader comment under an article (boilerplate, never gold)."""

    author: str
    text: str
    posted: datetime


@dataclass(frozen=True)
class Category:
    """A section of a site."""

    slug: str
    name: str
    path: str


@dataclass
class Article:
    """One article: its content and where it lives."""

    key: str  # stable id, also names its images
    path: str
    title: str
    author: str
    published: datetime
    category: Category
    summary: str
    blocks: list[Block]
    comments: list[Comment] = field(default_factory=list)
    author_path: str = "/"  # the author's index
    tags: list[Link] = field(default_factory=list)  # its topics' indexes
    archive: Link | None = None  # its month's index

    @property
    def published_iso(self) -> str:
        """Publication time, ISO 8601 with offset."""
        return self.published.isoformat()


@dataclass(frozen=True)
class Listing:
    """One list page: a page of the home index, a category, a tag, an author or a month."""

    path: str
    heading: str
    articles: list[Article]
    page_number: int
    page_paths: list[str]  # every page of this index, page 1 first
    category: Category | None = None

    @property
    def is_home(self) -> bool:
        """The site's home page (home index, page 1)."""
        return self.path == "/"


@dataclass(frozen=True)
class Page:
    """A served resource. ``gold`` holds the gold record with site-relative URLs;
    ``hang`` pages send ``body`` and then never finish."""

    path: str
    body: bytes
    content_type: str
    status: int = 200
    gold: dict[str, Any] | None = None
    hang: bool = False


@dataclass(frozen=True)
class SiteSpec:
    """What a site is: name, look, language and charset."""

    name: str
    title: str
    theme: str
    language: Language
    charset: Charset
    categories: tuple[tuple[str, str], ...]  # (slug, display name)
    home_page_size: int
    category_page_size: int
    has_lead: bool  # articles open with a standfirst paragraph
    has_figure: bool  # articles carry a captioned picture
    hosts: frozenset[str] = frozenset()  # fault pages linked from its home page


@dataclass
class SiteModel:
    """Every resource of one generated site, by path, plus its fault paths."""

    spec: SiteSpec
    not_found: Page
    pages: dict[str, Page] = field(default_factory=dict)
    error_paths: list[str] = field(default_factory=list)
    hang_paths: list[str] = field(default_factory=list)
    huge_paths: list[str] = field(default_factory=list)
    non_html_paths: list[str] = field(default_factory=list)
    script_redirect_paths: list[str] = field(default_factory=list)
    stalled_paths: list[str] = field(default_factory=list)
    robots_blocked_paths: list[str] = field(default_factory=list)

    def add(self, page: Page) -> None:
        """Add ``page``; a path is served once."""
        if page.path in self.pages:
            raise ValueError(f"{self.spec.name}: path {page.path} generated twice")
        self.pages[page.path] = page

    def gold_records(self) -> list[dict[str, Any]]:
        """Gold records (site-relative URLs) of the pages that have one, in path order."""
        return [page.gold for _, page in sorted(self.pages.items()) if page.gold is not None]
