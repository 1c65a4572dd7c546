"""The I-AWCE extractors: ``iawce-paper`` (the paper, as published) and ``iawce``."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from typing import ClassVar, Self

from pipelines.config import SettingsLike
from pipelines.extraction.article import article_element_paper, content_element, descent_start
from pipelines.extraction.denoise import is_control_label
from pipelines.extraction.dom import HtmlElement
from pipelines.extraction.lengths import TextLengths, normalize_space, text_length
from pipelines.extraction.listing import (
    build_item,
    entry_block,
    list_items,
    list_items_paper,
    list_region,
    list_surroundings,
    without_item_chrome,
    without_repeated_blocks,
)
from pipelines.extraction.options import IawceOptions
from pipelines.extraction.page import ARTICLE, LIST, ExtractedItem, Extraction, Page
from pipelines.extraction.registry import configured_options, register
from pipelines.extraction.result import extraction_with
from pipelines.extraction.textformat import Block, render_blocks

logger = logging.getLogger(__name__)


def description_blocks(root: HtmlElement) -> list[Block]:
    """The page's own summary (``<meta name="description">``, else ``og:description``) as
    one paragraph, for a page whose body holds no content: an app shell whose script
    builds the text (a Discourse topic read without its scripts) still describes it. On
    WCXB dev's training and validation domains, five forum pages of that kind scored 0."""
    for selector in ('meta[name="description"]', 'meta[property="og:description"]'):
        for meta in root.cssselect(selector):
            text = normalize_space(meta.get("content") or "")
            if text:
                return [Block("paragraph", text, text, 0, text_length(text))]
    return []


class _Iawce(ABC):
    """Shared steps: the page's tree denoised for its type and measured (shared by both
    modes: :meth:`ParsedPage.denoised <pipelines.extraction.parsed.ParsedPage.denoised>`),
    then the mode's own article or list algorithm (on an article, with
    ``options.include_comments``, the reader discussion after it); the page's metadata.
    Thresholds come from ``options``."""

    name: ClassVar[str] = ""
    Options: ClassVar[type[IawceOptions]] = IawceOptions

    def __init__(self, options: IawceOptions | None = None):
        self.options = options or IawceOptions()

    @classmethod
    def from_settings(cls, settings: SettingsLike | None = None) -> Self:
        """Defaults, with any ``PAGESIGHT_EXTRACTOR_OPTIONS[name]`` overrides."""
        return cls(configured_options(cls.name, IawceOptions(), settings))

    def extract(self, page: Page) -> Extraction | None:
        parsed = page.parsed
        if parsed is None:
            logger.info("%s found nothing on %s: the document has no markup", self.name, page.url or "<page>")
            return None
        tree = parsed.denoised(page.page_type, self.options)
        if tree.page_type == LIST:
            blocks, items = self.list_content(tree.body, tree.lengths, parsed.base)
        else:
            blocks, items = self.article_content(tree.body, tree.lengths, parsed.base), []
            if self.options.include_comments:
                blocks += [
                    block for thread in tree.discussion for block in render_blocks(thread, parsed.base)
                ]
        if not blocks:
            blocks = description_blocks(parsed.root)
        if not blocks:
            logger.info("%s found no %s content on %s", self.name, tree.page_type, page.url or "<page>")
            return None
        return extraction_with(self.name, tree.page_type, parsed.metadata, blocks, items)

    @abstractmethod
    def article_content(self, body: HtmlElement, lengths: TextLengths, base: str) -> list[Block]:
        """The blocks of an article page's main content."""

    @abstractmethod
    def list_content(
        self, body: HtmlElement, lengths: TextLengths, base: str
    ) -> tuple[list[Block], list[ExtractedItem]]:
        """The blocks of a list page's text and its items."""


@register
class IawcePaperExtractor(_Iawce):
    """The paper's algorithms as described: the std-dev descent on article pages; on list
    pages the same-depth same-class ranking, whose items are the whole text."""

    name = "iawce-paper"

    def article_content(self, body: HtmlElement, lengths: TextLengths, base: str) -> list[Block]:
        return render_blocks(article_element_paper(body, lengths, self.options.paper_gap), base)

    def list_content(
        self, body: HtmlElement, lengths: TextLengths, base: str
    ) -> tuple[list[Block], list[ExtractedItem]]:
        elements = list_items_paper(body, lengths, self.options)
        items = [item for item in (build_item(el, base) for el in elements) if item]
        return [entry_block(item) for item in items], items


@register
class IawceExtractor(_Iawce):
    """The improved extractor (the default).

    Articles: descend while one child holds most of the text outside links, render the
    element reached, drop link-dense paragraphs. Lists: descend the same way counting link
    text, rank (depth, tag.class) keys for the items, and render the region with each
    item as one "TITLE\\nTEXT" paragraph in place (so the intro and section headings stay;
    a region that shares its block with the page's title is given the prose around it there:
    :func:`list_surroundings`),
    without the lines most items repeat (their buttons: :func:`without_item_chrome`),
    without controls' labels ("View details": :func:`is_control_label`) and with each
    block of several lines once (:func:`without_repeated_blocks`).
    """

    name = "iawce"

    def article_content(self, body: HtmlElement, lengths: TextLengths, base: str) -> list[Block]:
        region, _ = content_region(body, lengths, ARTICLE, self.options)
        blocks = render_blocks(region, base)
        limit = self.options.max_link_density
        return [b for b in blocks if b.kind == "heading" or b.link_density <= limit]

    def list_content(
        self, body: HtmlElement, lengths: TextLengths, base: str
    ) -> tuple[list[Block], list[ExtractedItem]]:
        region, elements = content_region(body, lengths, LIST, self.options)
        built = [(element, item) for element in elements if (item := build_item(element, base)) is not None]
        items = without_item_chrome([item for _, item in built])
        entries = {element: entry_block(item) for (element, _), item in zip(built, items, strict=True)}
        before, after = list_surroundings(body, region, base, self.options)
        blocks = before + render_blocks(region, base, substitutes=entries) + after
        labelled = [b for b in blocks if b.kind == "heading" or not is_control_label(b.text)]
        return without_repeated_blocks(labelled), items


@register
class IawceOtherTypeExtractor(IawceExtractor):
    """``iawce`` reading the page as the other type: an article as a list, a list as an
    article (a page of unknown type: the other of the type iawce guesses). The
    ensemble's candidate for a page whose type is wrong, or whose main text is the other
    type's: a collection's prose above its products, a service page's cards."""

    name = "iawce-other-type"

    def extract(self, page: Page) -> Extraction | None:
        parsed = page.parsed
        if parsed is None:
            return super().extract(page)
        page_type = page.page_type or parsed.denoised(None, self.options).page_type
        return super().extract(page.with_page_type(ARTICLE if page_type == LIST else LIST))


def content_region(
    body: HtmlElement, lengths: TextLengths, page_type: str, options: IawceOptions
) -> tuple[HtmlElement, list[HtmlElement]]:
    """The element ``iawce`` renders from a denoised ``body``, and a list's item elements:
    on articles the element its descent reaches; on lists the region around the items,
    or the link-counting descent when it finds none."""
    if page_type != LIST:
        start = descent_start(body, lengths, options.main_share)
        return content_element(start, lengths, options.article_share, article=options), []
    elements = list_items(body, lengths, options)
    if elements:
        return list_region(body, elements, lengths, options.items_share), elements
    return content_element(body, lengths, options.list_share, count_links=True), []
