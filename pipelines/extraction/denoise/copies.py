"""Text the page holds twice: duplicate blocks, adjacent twins, and quotations of a post
the page also holds."""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

from lxml import etree

from pipelines.extraction.denoise.options import DenoiseOptions
from pipelines.extraction.denoise.state import DenoisingPage
from pipelines.extraction.denoise.tree import inside, outermost_of, quoted
from pipelines.extraction.denoise.vocabulary import HIDING_CLASS
from pipelines.extraction.dom import HtmlElement
from pipelines.extraction.lengths import normalize_space, text_length


def duplicate_copies(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """The copy to drop of each block whose text ``body`` holds exactly twice (the duplicate step).

    A block is found from a long string of text (``min_duplicate_chars``) that occurs
    exactly twice: from the two elements holding it, both copies widen to their parents
    while the parents' texts stay equal. Blocks of at least ``min_duplicate_words`` words
    count; a block inside a quotation is left alone (a reply quotes the post above it), and
    a string found three times or more is a list's repeated widget, not a copy. Larger
    blocks first: the copies inside a dropped block are gone with it."""
    occurrences: defaultdict[str, list[HtmlElement]] = defaultdict(list)
    for string in body.xpath(".//text()"):
        if len(string) >= options.min_duplicate_chars:
            holder = string.getparent()
            occurrences[normalize_space(string)].append(holder.getparent() if string.is_tail else holder)
    texts: dict[HtmlElement, str] = {}
    widest: dict[tuple[HtmlElement, HtmlElement], tuple[HtmlElement, HtmlElement]] = {}
    pairs: dict[tuple[HtmlElement, HtmlElement], int] = {}
    for key, holders in occurrences.items():
        if len(key) >= options.min_duplicate_chars and len(holders) == 2:
            pair = _widest_copies(holders[0], holders[1], texts, widest)
            if pair is not None and pair not in pairs:
                pairs[pair] = text_length(texts[pair[0]])
    dropped: set[HtmlElement] = set()
    for (first, second), length in sorted(pairs.items(), key=lambda item: item[1], reverse=True):
        if length < options.min_duplicate_words or any(
            quoted(el) or el in dropped or any(a in dropped for a in el.iterancestors())
            for el in (first, second)
        ):
            continue
        dropped.add(max((first, second), key=lambda el: _drop_rank(el, second)))
    return list(dropped)


def twin_copies(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """The copy to drop of each pair of twins (the twin step): two adjacent siblings of one tag
    with the same text, of at most ``max_twin_chars``, that no third sibling repeats (a
    price or a title printed again for screen readers, a logo strip doubled for its
    scrolling loop; three or more are a list's repeated items). Paragraphs (a writer's
    own repetition), cells of a table row and items of a list are left alone."""
    texts: dict[HtmlElement, str] = {}

    def text_of(element: HtmlElement) -> str:
        if element not in texts:
            texts[element] = normalize_space(element.text_content())
        return texts[element]

    dropped = []
    for first in _twin_candidates(options.max_twin_chars)(body):
        second = first.getnext()
        if second is None or (first.tail or "").strip():
            continue
        text = text_of(first)
        if len(text) < options.min_twin_chars or text != text_of(second):
            continue
        beside = (el for el in (first.getprevious(), second.getnext()) if el is not None)
        if any(text_of(el) == text for el in beside):
            continue  # three alike: a list's repeated items
        dropped.append(max((first, second), key=lambda el: _drop_rank(el, second)))
    return outermost_of(dropped)


@lru_cache(maxsize=4)
def _twin_candidates(max_chars: int) -> etree.XPath:
    """Elements that may be the first of twins: not a paragraph, a table row's cell or a
    list's item, and the next element has their tag and, spaces normalized, their text; at
    most ``max_chars`` of it. Read in C: a Python walk over every pair cost 3.6 ms a page on
    WCXB dev's raw bodies, this about 1.5 ms. XPath normalizes ASCII spaces only, so a pair
    that differs by a no-break space is no twin (one training or validation page changed
    for it: insight.com, -0.001)."""
    return etree.XPath(
        ".//*[name() = name(following-sibling::*[1])][not(self::p)]"
        "[not(parent::tr | parent::ul | parent::ol | parent::table | parent::thead | parent::tbody)]"
        f"[string-length(.) <= {max_chars}]"
        "[normalize-space(.) = normalize-space(following-sibling::*[1])]"
    )


def quoted_copies(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """The outermost quotations of ``body`` whose text it also holds outside every
    quotation (``quoted_copy_share`` of their strings of ``min_quoted_chars`` or more;
    the quoted step): a reply's copy of a post above it. Two replies quoting a post that the page
    does not hold both stay."""
    quotes = [quote for quote in body.iter("blockquote") if not inside(quote, "blockquote")]
    if not quotes:
        return []
    unquoted = normalize_space("".join(body.xpath(".//text()[not(ancestor::blockquote)]")))
    found = []
    for quote in quotes:
        strings = [
            text
            for text in map(normalize_space, quote.xpath(".//text()"))
            if len(text) >= options.min_quoted_chars
        ]
        total = sum(map(len, strings))
        if (
            total >= options.min_quote_chars
            and sum(len(text) for text in strings if text in unquoted) >= options.quoted_copy_share * total
        ):
            found.append(quote)
    return found


def _drop_rank(copy: HtmlElement, later: HtmlElement) -> tuple[bool, bool, bool, bool]:
    """Of two copies the one ranked higher goes: hidden by markup, then outside
    ``<article>``, then outside ``<main>``, then the later one."""
    return _marked_hidden(copy), not inside(copy, "article"), not inside(copy, "main"), copy is later


def _widest_copies(
    first: HtmlElement,
    second: HtmlElement,
    texts: dict[HtmlElement, str],
    widest: dict[tuple[HtmlElement, HtmlElement], tuple[HtmlElement, HtmlElement]],
) -> tuple[HtmlElement, HtmlElement] | None:
    """The outermost two distinct, unnested ancestors-or-selves of ``first`` and ``second``
    (in document order) whose texts are equal; ``None`` when the two hold different text.
    ``texts`` and ``widest`` keep what earlier calls found: the strings of one block climb
    to the same pair."""
    climbed: list[tuple[HtmlElement, HtmlElement]] = []
    pair = (first, second)
    while pair not in widest and _separate_copies(*pair, texts):
        climbed.append(pair)
        parents = (pair[0].getparent(), pair[1].getparent())
        if parents[0] is None or parents[1] is None:
            break
        pair = parents
    found = widest.get(pair, climbed[-1] if climbed else None)
    if found is not None:
        widest.update(dict.fromkeys(climbed, found))
    return found


def _separate_copies(first: HtmlElement, second: HtmlElement, texts: dict[HtmlElement, str]) -> bool:
    """Whether two elements are distinct, neither inside the other, with the same text."""
    if first is second or first in second.iterancestors() or second in first.iterancestors():
        return False
    for element in (first, second):
        if element not in texts:
            texts[element] = normalize_space(element.text_content())
    return texts[first] == texts[second]


def _marked_hidden(element: HtmlElement) -> bool:
    """Whether markup hides ``element`` or an ancestor: the ``hidden`` attribute,
    ``aria-hidden="true"``, an inline ``display: none`` or a hiding class (``HIDING_CLASS``)."""
    for node in (element, *element.iterancestors()):
        attrib = node.attrib
        if "hidden" in attrib or attrib.get("aria-hidden", "").lower() == "true":
            return True
        if "display:none" in attrib.get("style", "").replace(" ", "").lower():
            return True
        if any(HIDING_CLASS.fullmatch(name) for name in attrib.get("class", "").split()):
            return True
    return False


def remove_duplicates(page: DenoisingPage) -> int:
    """One of the two copies of a block whose text the page holds twice.

    At least ``min_duplicate_words`` words, exactly two copies, neither inside the other nor
    in a quotation: a responsive theme's mobile and desktop versions, a site builder's
    conditionally shown twin, a carousel's clone. The copy that markup hides goes, else the
    one outside ``<article>`` when the other is inside, then ``<main>``, else the later one
    (:func:`duplicate_copies`). A copy's removal leaves its twin, so this step and the two
    other copy steps do not spare a declared product description."""
    return page.remove_copies(duplicate_copies(page.body, page.options))


def remove_twins(page: DenoisingPage) -> int:
    """One of two twins: adjacent siblings of one tag and one text that no third repeats.

    However short (a title printed again for screen readers, a logo strip doubled for its
    scrolling loop: :func:`twin_copies`)."""
    return page.remove_copies(twin_copies(page.body, page.options))


def remove_quoted_copies(page: DenoisingPage) -> int:
    """A quotation whose text the page also holds outside every quotation: a reply quoting a post.

    :func:`quoted_copies`."""
    return page.remove_copies(quoted_copies(page.body, page.options))
