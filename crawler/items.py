"""The feed schema: one PageItem per scheduled URL."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

STATUS_OK = "ok"
STATUS_SKIPPED = "skipped"
STATUS_ERROR = "error"
#: The capture's warning on a page whose load event did not come before the deadline.
PARTIAL_LOAD_WARNING = "partial: load timeout"
#: The feed's schema version, every line's ``schema``: raised with each breaking change
#: to the fields (one renamed, removed, or meaning something else), listed in CHANGELOG.md,
#: so that a reader can tell which lines it understands.
FEED_SCHEMA = 1


@dataclass
class PageCapture:
    """What one browser visit produced. It rides on the item through the pipelines
    (store writes it, classify and extract read it) and is never exported."""

    html: str
    screenshot_png: bytes
    boxes: list[dict[str, Any]]
    viewport_width: int
    page_height: int
    screenshot_height: int
    final_url: str | None = None  # where the page ended (redirects followed)
    raw_html: bytes | None = None  # the main document's bytes as the server sent them
    raw_status: int | None = None  # ... its HTTP status
    raw_headers: dict[str, str] | None = None  # ... and its headers
    encoding: str | None = None
    encoding_source: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass
class PageItem:
    """One feed line. Later pipelines fill the fields that start empty."""

    #: First on every line (keyword-only, so that ``PageItem(url, site)`` still works).
    schema: int = field(default=FEED_SCHEMA, kw_only=True)
    url: str
    site: str
    status: str = STATUS_OK
    error: str | None = None
    fetched_at: str | None = None
    http_status: int | None = None
    content_type: str | None = None
    depth: int = 0
    #: True on a page crawled again because the worker that had it died before its
    #: line was written (distributed crawls; that line may exist too).
    recrawled: bool = False
    #: How the page was reached: seed, sitemap, feed, list-item, pagination or link.
    via: str | None = None
    #: The date the sitemap or feed gave for this URL (news publication date, lastmod,
    #: pubDate or updated), as it gave it.
    seed_date: str | None = None
    title: str | None = None
    page_type: str | None = None
    page_type_score: float | None = None
    #: WCXB's page kind (article, listing, collection, forum, product, documentation,
    #: service), the most probable one of ``page_type``'s (collection and listing are
    #: list pages, the others articles), and its calibrated probability.
    page_kind: str | None = None
    page_kind_score: float | None = None
    text: str | None = None
    markdown: str | None = None
    items: list[dict[str, Any]] | None = None
    extractor: str | None = None
    #: The extraction's predicted word F1 (0-1) from the ``ensemble`` extractor's learned
    #: quality estimate, to filter weak pages; None from other extractors.
    extraction_quality: float | None = None
    author: str | None = None
    published: str | None = None
    language: str | None = None
    canonical_url: str | None = None
    final_url: str | None = None
    encoding: str | None = None
    encoding_source: str | None = None
    screenshot: dict[str, Any] | None = None
    html: dict[str, Any] | None = None
    raw_html: dict[str, Any] | None = None
    boxes: dict[str, Any] | None = None
    scores: dict[str, Any] | None = None
    #: 64-bit simhash of ``text`` (16 hex digits) and the URL of an earlier page of the
    #: crawl within PAGESIGHT_NEARDUP_DISTANCE bits of it.
    simhash: str | None = None
    near_duplicate_of: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    #: What is partial or went wrong on a line that still carries its results: the
    #: capture's notes ("partial: load timeout", "overlay hidden: …") and the pipeline
    #: steps' ("STEP: Exception: message": store, classify, extract, score).
    warnings: list[str] = field(default_factory=list)
    #: Which code and models made the line: PageSight's version, the extractor's name
    #: and version, each checkpoint's short hash.
    provenance: dict[str, Any] = field(default_factory=dict)
    capture: PageCapture | None = None
    #: Every kind's probability from the kind classifier, kept until the page type is
    #: final (:func:`pipelines.feedline.settle_page_kind`).
    page_kind_probabilities: dict[str, float] | None = None


#: Fields the pipelines pass along but never export: the capture's raw bytes, and the
#: kind probabilities that ``page_kind`` and ``page_kind_score`` sum up.
NOT_EXPORTED = frozenset({"capture", "page_kind_probabilities"})
#: Fields written to the feed, in order.
FEED_FIELDS: list[str] = [f.name for f in fields(PageItem) if f.name not in NOT_EXPORTED]
