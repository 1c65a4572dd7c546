"""Text length of every subtree in one bottom-up pass."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipelines.extraction.dom import HtmlElement, is_element
from pipelines.extraction.textformat import NON_TEXT_TAGS
from pipelines.extraction.textlen import text_length


@dataclass
class TextLengths:
    """Language-aware text length of each element's text content (``total``) and of the
    part of it inside links (``linked``)."""

    total: dict[HtmlElement, int] = field(default_factory=dict)
    linked: dict[HtmlElement, int] = field(default_factory=dict)

    def __getitem__(self, element: HtmlElement) -> int:
        return self.total.get(element, 0)

    def unlinked(self, element: HtmlElement) -> int:
        """Length of the text outside links."""
        return self.total.get(element, 0) - self.linked.get(element, 0)


def subtree_lengths(root: HtmlElement) -> TextLengths:
    """Text lengths of all elements under ``root``, in one pass.

    One pass instead of ``text_length(el.text_content())`` per element (quadratic in
    depth). A word cut in two by inline markup (``<b>w</b>ord``) counts twice, the only
    difference from measuring the joined text.
    """
    lengths = TextLengths()
    _measure(root, lengths, in_link=False)
    return lengths


def _measure(element: HtmlElement, lengths: TextLengths, in_link: bool) -> tuple[int, int]:
    if element.tag in NON_TEXT_TAGS:
        return 0, 0
    in_link = in_link or element.tag == "a"
    total = text_length(element.text) if element.text else 0
    linked = total if in_link else 0
    for child in element:
        if is_element(child):
            child_total, child_linked = _measure(child, lengths, in_link)
            total += child_total
            linked += child_linked
        if child.tail:
            tail = text_length(child.tail)
            total += tail
            linked += tail if in_link else 0
    lengths.total[element] = total
    lengths.linked[element] = linked
    return total, linked
