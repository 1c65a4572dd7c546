"""The extractor contract: what goes in (Page), what comes out (Extraction)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

ARTICLE = "article"
LIST = "list"
PAGE_TYPES = (ARTICLE, LIST)


@dataclass
class Page:
    """One page to extract from.

    ``page_type`` is "article", "list" or None; None lets the extractor decide from
    the HTML (see :func:`pipelines.extraction.pagetype.guess_page_type`). ``boxes`` are
    the element boxes of the capture (tag, path, visible, ...) or None.
    """

    html: str
    url: str = ""
    page_type: str | None = None
    boxes: list[dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        if self.page_type is not None and self.page_type not in PAGE_TYPES:
            raise ValueError(
                f"page_type must be one of {', '.join(PAGE_TYPES)} or None, got {self.page_type!r}"
            )


@dataclass
class ExtractedItem:
    """One entry of a list page."""

    title: str
    url: str
    text: str


@dataclass
class Extraction:
    """What an extractor found on one page."""

    extractor: str
    page_type: str
    title: str | None
    text: str
    markdown: str
    items: list[ExtractedItem] = field(default_factory=list)
    author: str | None = None
    published: str | None = None
    language: str | None = None
    canonical_url: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (items become dicts)."""
        return asdict(self)


@runtime_checkable
class Extractor(Protocol):
    """A named main-content extractor; register instances with ``registry.register``."""

    name: str

    def extract(self, page: Page) -> Extraction | None:
        """The page's content, or None (with a logged reason) when nothing is found.

        Never raises on bad HTML.
        """
        ...
