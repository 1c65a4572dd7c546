"""Text leaves: BoilerNet's unit, and the text nodes of the DOM PageRank graph.

A text leaf is one non-empty text node in document order: an element's ``.text`` (node
0) or the ``.tail`` of its k-th child element (node k), owned by that element. A word
split by inline markup (``<b>w</b>ord``) is two leaves. Text under the tags in
:data:`IGNORED_TAGS` (the seed's list, plus the other tags that never show text) is no
leaf. Leaves are what the annotation labels and what the BoilerNet extractor keeps or
drops, so both must enumerate them the same way: through :func:`text_leaves`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pipelines.evaluation.text import tokens
from pipelines.extraction.dom import HtmlElement, is_element

#: The seed's ignored tags (head, iframe, script, meta, link, style, input, button,
#: noscript) and the others whose text is never shown.
IGNORED_TAGS = frozenset(
    {
        "head",
        "iframe",
        "script",
        "meta",
        "link",
        "style",
        "input",
        "button",
        "noscript",
        "template",
        "svg",
        "math",
        "select",
        "option",
        "textarea",
        "title",
    }
)


@dataclass(frozen=True)
class TextLeaf:
    """One text node: its owner element (the parent of the text), which of the owner's
    text nodes it is (0 = ``owner.text``, k = the tail of the owner's k-th child
    element), its text and tokens."""

    owner: HtmlElement
    node: int
    text: str
    tokens: tuple[str, ...]
    #: The element holding the text: the owner (node 0) or the child it is the tail of.
    holder: HtmlElement

    def ancestors(self) -> Iterator[HtmlElement]:
        """The owner and its ancestors, nearest first."""
        element: HtmlElement | None = self.owner
        while element is not None:
            yield element
            element = element.getparent()

    def clear(self) -> None:
        """Remove this leaf's text from the tree."""
        if self.node == 0:
            self.holder.text = None
        else:
            self.holder.tail = None


def text_leaves(root: HtmlElement) -> list[TextLeaf]:
    """Every text leaf under ``root`` (inclusive) with at least one token, in order."""
    leaves: list[TextLeaf] = []
    # Iterative walk (pages nest deeper than Python's recursion limit). An entry is an
    # element to open (node 0), or the tail of an owner's node-th child element.
    stack: list[tuple[HtmlElement, HtmlElement | None, int]] = [(root, None, 0)]
    while stack:
        element, owner, node = stack.pop()
        if owner is not None:
            _add(leaves, owner, node, element.tail, element)
            continue
        if not is_element(element) or element.tag in IGNORED_TAGS:
            continue
        _add(leaves, element, 0, element.text, element)
        children = [child for child in element if is_element(child)]
        for index in range(len(children), 0, -1):
            stack.append((children[index - 1], element, index))
            stack.append((children[index - 1], None, 0))
    return leaves


def _add(
    leaves: list[TextLeaf], owner: HtmlElement, node: int, text: str | None, holder: HtmlElement
) -> None:
    if text and (words := tokens(text)):
        leaves.append(TextLeaf(owner, node, text, tuple(words), holder))
