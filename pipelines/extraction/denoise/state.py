"""The page a walk of the denoising steps works on: its tree, its type's table, the
capture's boxes, what it declares, and the two removals every step uses (one that spares
a declared product description, one for copies that need not)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from pipelines.extraction.denoise.options import DenoiseOptions
from pipelines.extraction.denoise.tree import remove_all, shown_length
from pipelines.extraction.denoise.vocabulary import CODE_TAGS, NoiseTable
from pipelines.extraction.dom import HtmlElement, body_of, is_element
from pipelines.extraction.lengths import normalize_space
from pipelines.extraction.metadata import Declarations, page_declarations


@dataclass
class DenoisingPage:
    """One page being denoised. ``declared`` is read before any step edits the tree (the
    tag step takes the head), and only when a step of the walk reads it. On a page that
    declares a product whose JSON-LD gives its description, ``spared`` holds the elements
    that show that description and their ancestors (:func:`declared_description_holders`),
    which :meth:`remove` never removes, and :meth:`remove_copies` does (a copy's removal
    leaves its twin): shops keep it in a drawer, a modal sheet or a tab that the tag and
    class steps read as noise. iawce on WCXB dev's training / validation domains 0.89659 /
    0.87690 -> 0.89734 / 0.87690 (gymshark.com 0.15 -> 0.79, ikea.com 0.40 -> 0.48; no page
    worse; sparing the copies too cost two shops their duplicate)."""

    root: HtmlElement
    table: NoiseTable
    options: DenoiseOptions
    boxes: list[dict[str, Any]] | None
    declared: Declarations
    spared: frozenset[HtmlElement]
    #: The reader discussion the discussion step removed, in page order (detached
    #: subtrees): ``include_comments`` renders them after the content.
    discussion: list[HtmlElement] = field(default_factory=list)

    @classmethod
    def read(
        cls,
        root: HtmlElement,
        table: NoiseTable,
        options: DenoiseOptions,
        boxes: list[dict[str, Any]] | None,
        reads_declarations: bool,
    ) -> DenoisingPage:
        """The page of ``root``, its declarations read when ``reads_declarations``."""
        declared = (
            page_declarations(root) if reads_declarations else Declarations(product=False, thread=False)
        )
        spared = (
            declared_description_holders(body_of(root), declared.description, options)
            if declared.product
            else frozenset()
        )
        return cls(root, table, options, boxes, declared, spared)

    @cached_property
    def body(self) -> HtmlElement:
        return body_of(self.root)

    @cached_property
    def limit(self) -> float:
        """``max_removed_share`` of the body's shown text, measured when a step first asks
        (the tag step, after the ``<noscript>`` fallback is unwrapped)."""
        return self.options.max_removed_share * shown_length(self.body)

    def small(self, elements: list[HtmlElement]) -> list[HtmlElement]:
        """Those of ``elements`` within :attr:`limit`."""
        # A text is never longer than its characters: most elements pass on those alone.
        limit = self.limit
        return [el for el in elements if len(el.text_content()) <= limit or shown_length(el) <= limit]

    def remove(self, elements: list[HtmlElement]) -> int:
        """Remove ``elements`` but the spared ones (tails kept); how many went."""
        return remove_all(self.root, [element for element in elements if element not in self.spared])

    def remove_copies(self, elements: list[HtmlElement]) -> int:
        """Remove ``elements``, spared or not: a copy's removal leaves its twin."""
        return remove_all(self.root, elements)


def declared_description_holders(
    body: HtmlElement, description: str, options: DenoiseOptions
) -> frozenset[HtmlElement]:
    """The elements that show a product page's declared ``description``: each element
    with a text of at least ``min_declared_fragment_chars`` found in it, and their
    ancestors. No step removes them: shops put the description in a drawer, a modal sheet
    or a tab that the noise words or tags name (gymshark's "sheet" aside, IKEA's
    "product-details-modal")."""
    if len(description.split()) < options.min_declared_description_words:
        return frozenset()
    holders: list[HtmlElement] = []
    for element in body.iter():
        if not is_element(element) or element.tag in CODE_TAGS:
            continue
        if _declared_fragment(element.text, description, options.min_declared_fragment_chars):
            holders.append(element)
        parent = element.getparent()
        if parent is not None and _declared_fragment(
            element.tail, description, options.min_declared_fragment_chars
        ):
            holders.append(parent)
    return frozenset(holder for element in holders for holder in (element, *element.iterancestors()))


def _declared_fragment(text: str | None, description: str, min_chars: int) -> bool:
    if not text or len(text) < min_chars:
        return False
    fragment = normalize_space(text)
    return len(fragment) >= min_chars and fragment in description
