"""The page a walk of the denoising steps works on: its tree, its type's table, the
capture's boxes, what it declares, and the two removals every step uses (one that spares
a declared product description, one for copies that need not)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pipelines.extraction.denoise.tree import remove_all, shown_length
from pipelines.extraction.denoise.vocabulary import CODE_TAGS, NoiseTable
from pipelines.extraction.dom import HtmlElement, body_of, is_element
from pipelines.extraction.lengths import normalize_space
from pipelines.extraction.metadata import Declarations, page_declarations

#: The steps that spare large blocks (:meth:`DenoisingPage.small`) leave an element alone
#: when it holds more than this share of the page's text: that is misnested markup (an
#: unclosed <header> that swallowed the page), not noise.
MAX_REMOVED_SHARE = 0.7

#: A product's declared description (JSON-LD) must be this long (words) to be looked for.
MIN_DECLARED_DESCRIPTION_WORDS = 15

#: ... and a text node this long (characters) that it holds marks where the page shows it.
MIN_DECLARED_FRAGMENT_CHARS = 20


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
    boxes: list[dict[str, Any]] | None
    declared: Declarations
    spared: frozenset[HtmlElement]

    @classmethod
    def read(
        cls,
        root: HtmlElement,
        table: NoiseTable,
        boxes: list[dict[str, Any]] | None,
        reads_declarations: bool,
    ) -> DenoisingPage:
        """The page of ``root``, its declarations read when ``reads_declarations``."""
        declared = (
            page_declarations(root) if reads_declarations else Declarations(product=False, thread=False)
        )
        spared = (
            declared_description_holders(body_of(root), declared.description)
            if declared.product
            else frozenset()
        )
        return cls(root, table, boxes, declared, spared)

    @cached_property
    def body(self) -> HtmlElement:
        return body_of(self.root)

    @cached_property
    def limit(self) -> float:
        """``MAX_REMOVED_SHARE`` of the body's shown text, measured when a step first asks
        (the tag step, after the ``<noscript>`` fallback is unwrapped)."""
        return MAX_REMOVED_SHARE * shown_length(self.body)

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


def declared_description_holders(body: HtmlElement, description: str) -> frozenset[HtmlElement]:
    """The elements that show a product page's declared ``description``: each element
    with a text of at least ``MIN_DECLARED_FRAGMENT_CHARS`` found in it, and their
    ancestors. No step removes them: shops put the description in a drawer, a modal sheet
    or a tab that the noise words or tags name (gymshark's "sheet" aside, IKEA's
    "product-details-modal")."""
    if len(description.split()) < MIN_DECLARED_DESCRIPTION_WORDS:
        return frozenset()
    holders: list[HtmlElement] = []
    for element in body.iter():
        if not is_element(element) or element.tag in CODE_TAGS:
            continue
        if _declared_fragment(element.text, description):
            holders.append(element)
        parent = element.getparent()
        if parent is not None and _declared_fragment(element.tail, description):
            holders.append(parent)
    return frozenset(holder for element in holders for holder in (element, *element.iterancestors()))


def _declared_fragment(text: str | None, description: str) -> bool:
    if not text or len(text) < MIN_DECLARED_FRAGMENT_CHARS:
        return False
    fragment = normalize_space(text)
    return len(fragment) >= MIN_DECLARED_FRAGMENT_CHARS and fragment in description
