"""Elements left without text."""

from __future__ import annotations

from pipelines.extraction.denoise.state import DenoisingPage
from pipelines.extraction.denoise.vocabulary import SHAPING_TAGS
from pipelines.extraction.dom import HtmlElement, is_element


def empty_elements(body: HtmlElement) -> list[HtmlElement]:
    """Outermost elements of ``body`` whose text is only whitespace."""
    found: list[HtmlElement] = []
    _collect_empty(body, found)
    return found


def _collect_empty(element: HtmlElement, found: list[HtmlElement]) -> bool:
    """True when ``element`` has no text; collects its empty descendants otherwise."""
    has_text = bool(element.text and not element.text.isspace())
    empty_children = []
    for child in element:
        if is_element(child):
            if _collect_empty(child, found):
                empty_children.append(child)
            else:
                has_text = True
        if child.tail and not child.tail.isspace():
            has_text = True
    if has_text:
        found.extend(child for child in empty_children if child.tag not in SHAPING_TAGS)
    return not has_text


def remove_empty(page: DenoisingPage) -> int:
    """Elements left without any text (empty wrappers, spacers, icon holders), but ``br``, ``hr``, cells.

    Without this an empty sibling would win the article algorithm's "earlier of the two
    longest children" rule."""
    return page.remove(empty_elements(page.body))
