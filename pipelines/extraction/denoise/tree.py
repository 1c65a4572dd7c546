"""Reading the tree for the denoising steps: shown text lengths (scripts and styles
aside), outermost elements, links and their share, story blocks, class names without
state names; and the removal that keeps tails."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache

from pipelines.extraction.denoise.vocabulary import CODE_TAGS, FILED_UNDER, STATE_NAME, TAXONOMY_TERM
from pipelines.extraction.dom import HtmlElement, remove_keeping_tail
from pipelines.extraction.lengths import text_length


def outermost_of(elements: list[HtmlElement]) -> list[HtmlElement]:
    """Those of ``elements`` that lie inside none of the others."""
    members = set(elements)
    return [el for el in elements if not any(a in members for a in el.iterancestors())]


def outermost_length(elements: list[HtmlElement]) -> int:
    """Shown text length of ``elements``, each counted once (not again inside another)."""
    return sum(shown_length(el) for el in outermost_of(elements))


def text_outside(element: HtmlElement, tag: str) -> str:
    """Text of ``element`` without the text of its ``tag`` descendants, scripts and styles
    (its strings joined by spaces)."""
    strings: list[str] = []
    _gather_strings(element, frozenset((tag, *CODE_TAGS)), strings)
    return " ".join(strings)


def _gather_strings(element: HtmlElement, left_out: frozenset[str], strings: list[str]) -> None:
    """Append to ``strings`` the text and tails under ``element``, in document order, but
    not the text inside the ``left_out`` tags (their tails stay)."""
    strings.append(element.text or "")
    for child in element:
        if isinstance(child.tag, str) and child.tag not in left_out:
            _gather_strings(child, left_out, strings)
        strings.append(child.tail or "")


def shown_length(element: HtmlElement) -> int:
    """Text length of ``element`` without scripts and styles (0 for those themselves)."""
    if element.tag in CODE_TAGS:
        return 0
    return text_length(text_outside(element, "script"))


def inside(element: HtmlElement, tag: str) -> bool:
    return any(a.tag == tag for a in element.iterancestors())


def quoted(element: HtmlElement) -> bool:
    return element.tag == "blockquote" or inside(element, "blockquote")


def noise_marker(element: HtmlElement) -> str:
    """The class names and id that the class and discussion steps read, without the names that state what
    an element lacks or holds (``STATE_NAME``: ``hide-read-more-ad``, ``has-sidebar``), nor,
    on a post filed under taxonomy terms (``FILED_UNDER``), the terms (``TAXONOMY_TERM``:
    ``author-kgs``, ``category-game-reviews``)."""
    return _read_names(f"{element.get('class', '')} {element.get('id', '')}")


@lru_cache(maxsize=4096)
def _read_names(names: str) -> str:
    read = [name for name in names.split() if not STATE_NAME.match(name)]
    if FILED_UNDER.search(names):
        read = [name for name in read if not TAXONOMY_TERM.match(name)]
    return " ".join(read)


def links(element: HtmlElement) -> list[HtmlElement]:
    """The links under ``element`` that lead somewhere (an ``href`` other than "#")."""
    return [a for a in element.iter("a") if a.get("href", "").strip() not in ("", "#")]


def link_share(element: HtmlElement) -> float:
    """The share of ``element``'s shown text that is link text."""
    length = shown_length(element)
    return sum(shown_length(a) for a in links(element)) / length if length else 0.0


def longest_story(body: HtmlElement, discussion: list[HtmlElement]) -> int:
    """A story's length outside ``discussion``: the most ``<p>`` text under one parent, or
    the most text one block without paragraphs holds directly between ``<br>`` breaks."""
    return max(story_blocks(body, discussion).values(), default=0)


def story_blocks(body: HtmlElement, discussion: list[HtmlElement]) -> Counter[HtmlElement]:
    """Outside ``discussion``: each parent of ``<p>`` with the length of its paragraphs,
    and each block without paragraphs with the text it holds between ``<br>`` breaks."""
    discussed = set(discussion)
    by_parent: Counter[HtmlElement] = Counter()
    for paragraph in body.iter("p"):
        if not any(a in discussed for a in paragraph.iterancestors()):
            by_parent[paragraph.getparent()] += shown_length(paragraph)
    for line_break in body.iter("br"):
        block = line_break.getparent()
        if (
            block is None
            or block in by_parent
            or any(a in discussed for a in (block, *block.iterancestors()))
        ):
            continue
        by_parent[block] = text_length(" ".join([block.text or "", *(child.tail or "" for child in block)]))
    return by_parent


def text_holders(body: HtmlElement, accepts: Callable[[str], object]) -> list[HtmlElement]:
    """The element around each text node under ``body`` that ``accepts``: the element
    whose text it is, or the parent of the element whose tail it is."""
    holders = []
    for element in body.iterdescendants():
        if element.text and accepts(element.text):
            holders.append(element)
        if element.tail and accepts(element.tail):
            holders.append(element.getparent())
    return holders


def remove_all(root: HtmlElement, elements: list[HtmlElement]) -> int:
    """Remove ``elements`` (tails kept); one inside an already removed one is skipped."""
    count = 0
    for element in elements:
        ancestors = list(element.iterancestors())
        top = ancestors[-1] if ancestors else element
        if top is root and element is not root:
            remove_keeping_tail(element)
            count += 1
    return count
