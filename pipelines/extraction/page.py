"""The extractor contract: what goes in (Page), what comes out (Extraction)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, Self, runtime_checkable

from pipelines.config import SettingsLike

if TYPE_CHECKING:
    from PIL.Image import Image

    from pipelines.extraction.parsed import ParsedPage

ARTICLE = "article"
LIST = "list"
PAGE_TYPES = (ARTICLE, LIST)


@dataclass
class Page:
    """One page to extract from.

    ``page_type`` is "article", "list" or None; None lets the extractor decide from
    the HTML (see :func:`pipelines.extraction.pagetype.guess_page_type`). ``boxes`` are
    the element boxes of the capture (tag, path, visible, ...) or None. ``screenshot``
    is the capture's PNG, as bytes or a loader called on first use (a stored capture is
    read only by extractors that look at it), or None. ``parsed`` is the HTML parsed on
    first use and shared by every extractor run on this page (so the fields are not to
    be changed once it is read).
    """

    html: str
    url: str = ""
    page_type: str | None = None
    boxes: list[dict[str, Any]] | None = None
    screenshot: bytes | Callable[[], bytes] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.page_type is not None and self.page_type not in PAGE_TYPES:
            raise ValueError(
                f"page_type must be one of {', '.join(PAGE_TYPES)} or None, got {self.page_type!r}"
            )

    @cached_property
    def parsed(self) -> ParsedPage | None:
        """The HTML parsed once, with its metadata and denoised trees, or None when it
        holds no markup (:mod:`pipelines.extraction.parsed`)."""
        from pipelines.extraction.parsed import ParsedPage

        return ParsedPage.parse(self.html, self.url, self.boxes)

    def with_page_type(self, page_type: str) -> Page:
        """This page with ``page_type``, sharing what was already parsed and loaded."""
        typed = replace(self, page_type=page_type)
        for name, attribute in vars(Page).items():
            if isinstance(attribute, cached_property) and name in self.__dict__:
                typed.__dict__[name] = self.__dict__[name]
        return typed

    @cached_property
    def screenshot_png(self) -> bytes | None:
        """The screenshot's PNG bytes (loaded once), or None without one."""
        if self.screenshot is None or isinstance(self.screenshot, bytes):
            return self.screenshot
        return self.screenshot()

    @cached_property
    def screenshot_image(self) -> Image | None:
        """The screenshot decoded to an RGB PIL image (once), or None without one."""
        png = self.screenshot_png
        if png is None:
            return None
        from io import BytesIO

        from PIL import Image

        with Image.open(BytesIO(png)) as image:
            return image.convert("RGB")


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
    #: The predicted word F1 of ``text`` against a gold main content, 0-1 (the
    #: ``ensemble`` extractor's learned estimate); None from extractors without one.
    quality: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (items become dicts)."""
        return asdict(self)


@runtime_checkable
class Extractor(Protocol):
    """The contract of every main-content extractor (register the class with
    ``registry.register``): a ``name``; an ``Options`` dataclass of its tuned thresholds;
    ``from_settings`` that builds it once per crawl or command (loading any checkpoint
    there, failing with one clear line when it is missing or broken); ``extract``."""

    name: ClassVar[str]

    @property
    def Options(self) -> type:  # noqa: N802 (a nested dataclass, read-only to the contract)
        """The dataclass of the extractor's tuned thresholds."""
        ...

    @classmethod
    def from_settings(cls, settings: SettingsLike | None = None) -> Self:
        """The extractor configured by ``settings`` (None: its defaults)."""
        ...

    def extract(self, page: Page) -> Extraction | None:
        """The page's content, or None (with a logged reason) when nothing is found.

        Never raises on bad HTML.
        """
        ...
