"""A page's HTML parsed once (:attr:`Page.parsed <pipelines.extraction.page.Page.parsed>`),
shared by every extractor that runs on the page: the ensemble's cheap candidates and its
quality features read one tree instead of parsing, denoising and reading the metadata
again each (issue 14).

The tree is shared, so nobody edits it: :meth:`ParsedPage.denoised` denoises a copy
(``copy.deepcopy`` of an lxml tree costs about a tenth of a parse) and keeps it for the
next extractor that asks for the same page type; that tree is read-only too.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pipelines.extraction.denoise import denoise
from pipelines.extraction.denoise.options import DenoiseOptions
from pipelines.extraction.dom import HtmlElement, base_url, body_of, parse_html
from pipelines.extraction.lengths import TextLengths, subtree_lengths
from pipelines.extraction.metadata import Metadata, extract_metadata
from pipelines.extraction.options import IawceOptions
from pipelines.extraction.page import ARTICLE, LIST
from pipelines.extraction.pagetype import guess_page_type, tells_a_story


@dataclass(frozen=True)
class DenoisedTree:
    """A copy of the page's tree denoised for ``page_type``; read-only."""

    root: HtmlElement
    page_type: str
    #: The reader discussion denoising removed (detached subtrees, in page order).
    discussion: tuple[HtmlElement, ...] = ()

    @property
    def body(self) -> HtmlElement:
        return body_of(self.root)

    @cached_property
    def lengths(self) -> TextLengths:
        """The body's subtree text lengths (measured once)."""
        return subtree_lengths(self.body)


@dataclass
class ParsedPage:
    """The parsed document (``root``, never edited), the URL its links resolve against
    (``base``) and the capture's element boxes that denoising reads."""

    root: HtmlElement
    base: str
    boxes: list[dict[str, Any]] | None = None
    _denoised: dict[tuple[str, DenoiseOptions], DenoisedTree] = field(
        default_factory=dict, init=False, repr=False
    )

    @classmethod
    def parse(cls, html: str, url: str, boxes: list[dict[str, Any]] | None = None) -> ParsedPage | None:
        """The page parsed, or None when ``html`` holds no markup."""
        root = parse_html(html)
        return cls(root, base_url(root, url), boxes) if root is not None else None

    @cached_property
    def metadata(self) -> Metadata:
        """Title, author, date, language and canonical URL, read once from the whole tree."""
        return extract_metadata(self.root, self.base)

    def denoised(self, page_type: str | None, options: IawceOptions) -> DenoisedTree:
        """The tree denoised for ``page_type`` with ``options.denoise``. An unknown type is
        guessed on the tree denoised with the list table (``options``' thresholds); an
        article is denoised afresh with its own table (the list table drops class-marked
        menus an article keeps). Kept by page type and denoiser options: extractors with
        other thresholds get their own."""
        if page_type is None:
            as_list = self.denoised(LIST, options)
            page_type = LIST if guess_page_type(as_list.body, options) == LIST else ARTICLE
            if page_type == LIST:
                as_article = self.denoised(ARTICLE, options)
                if tells_a_story(as_article.body, as_article.lengths, options):
                    page_type = ARTICLE
        key = (page_type, options.denoise)
        tree = self._denoised.get(key)
        if tree is None:
            root = deepcopy(self.root)
            discussion: list[HtmlElement] = []
            denoise(root, page_type, self.boxes, options.denoise, discussion)
            tree = self._denoised[key] = DenoisedTree(root, page_type, tuple(discussion))
        return tree
