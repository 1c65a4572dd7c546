"""Boilerplate that markup names: header and footer outside the content, elements whose
class, id or role names noise, a shop's filter panels, and what surrounds a declared product."""

from __future__ import annotations

import re
from collections import Counter

from pipelines.extraction.denoise.options import DenoiseOptions
from pipelines.extraction.denoise.state import DenoisingPage
from pipelines.extraction.denoise.tree import link_share, noise_marker, outermost_of, story_blocks
from pipelines.extraction.denoise.vocabulary import (
    AUTHOR,
    AUTHOR_WORDS,
    CHROME_ROLES,
    COMMON_NOISE_WORDS,
    FACETS,
    MODAL_ROLES,
    POST_LIST,
    POST_LIST_WORDS,
    PRODUCT,
    PROTECTED_TAGS,
    READER_FEEDBACK,
    TEASER_LIST,
    NoiseTable,
    marker_pattern,
)
from pipelines.extraction.dom import HtmlElement


def chrome_outside_content(body: HtmlElement) -> list[HtmlElement]:
    """``header`` and ``footer`` elements, and elements whose role is ``banner`` or
    ``contentinfo``, outside ``<article>`` and ``<main>``."""
    found = []
    for element in body.iter("header", "footer", "div", "section"):
        if element.tag in ("div", "section") and element.get("role", "").lower() not in CHROME_ROLES:
            continue
        if not any(a.tag in ("article", "main") for a in element.iterancestors()):
            found.append(element)
    return found


def marked_elements(body: HtmlElement, words: re.Pattern[str], roles: frozenset[str]) -> list[HtmlElement]:
    """Elements marked by ``words`` (class/id) or ``roles``, except the protected ones,
    those holding the ``<h1>`` and those holding a story (:func:`holds_story`). A modal
    dialog (``aria-modal="true"``) goes even with an ``<h1>``: it covers the page, and
    its heading is its own (a terms-of-service overlay's "Table of Contents")."""
    found = []
    named: dict[str, bool] = {}  # a page repeats its class names: each is searched once
    for element in body.xpath(".//*[@class or @id or @role]"):  # the only ones a marker can name
        if element.tag in PROTECTED_TAGS:
            continue
        attrib = element.attrib
        marker = noise_marker(element)
        if marker not in named:
            named[marker] = bool(marker and words.search(marker))
        role = attrib.get("role", "").lower()
        if not (named[marker] or role in roles):
            continue
        modal = role in MODAL_ROLES and attrib.get("aria-modal", "").lower() == "true"
        if (modal or element.find(".//h1") is None) and not holds_story(element, marker):
            found.append(element)
    return found


def holds_story(element: HtmlElement, marker: str) -> bool:
    """Whether ``element`` holds a ``<main>`` or an ``<article>``. Several articles in a
    block named a teaser list (``TEASER_LIST_WORDS``: a "related posts" carousel of
    ``<article>`` cards) are cards, not a story."""
    if element.find(".//main") is not None:
        return True
    articles = len(element.findall(".//article"))
    return articles == 1 or (articles > 1 and not TEASER_LIST.search(marker))


def noise_by_class(body: HtmlElement, table: NoiseTable, options: DenoiseOptions) -> list[HtmlElement]:
    """The class step's elements. The page's story block (:func:`story_blocks`, at least
    ``min_spared_story`` words) and its ancestors are spared the common words: there an
    ad, share, newsletter or sidebar word is the theme's name for the story's own field
    or wrapper (``body-ad-wrapper``, ``sidebar-wrap``), not a widget. The page type's own
    words and roles still apply. A block named only as a list of posts
    (``POST_LIST_WORDS``) goes when at least ``post_list_min_link_share`` of its text is
    links; blocks named only by ``AUTHOR_WORDS`` go when there are at most
    ``max_author_blocks`` of them."""
    roles = frozenset(table.roles)
    conditional = (*POST_LIST_WORDS, *AUTHOR_WORDS)
    plain_words = marker_pattern(tuple(w for w in table.noise_words if w not in conditional))
    marked: list[HtmlElement] = []
    authors: list[HtmlElement] = []
    for el in marked_elements(body, marker_pattern(table.noise_words), roles):
        marker = noise_marker(el)
        linked_post_list = POST_LIST.search(marker) and link_share(el) >= options.post_list_min_link_share
        if plain_words.search(marker) or el.get("role", "").lower() in roles or linked_post_list:
            marked.append(el)
        elif AUTHOR.search(marker):
            authors.append(el)
    if len(outermost_of(authors)) <= options.max_author_blocks:
        marked.extend(authors)
    stories = story_blocks(body, []) if marked else Counter()
    story, length = stories.most_common(1)[0] if stories else (None, 0)
    if story is None or length < options.min_spared_story:
        return marked
    spared = {story, *story.iterancestors()}
    own = tuple(w for w in table.noise_words if w not in COMMON_NOISE_WORDS)
    own_words = marker_pattern(own) if own else None
    return [
        el
        for el in marked
        if el not in spared
        or el.get("role", "").lower() in roles
        or (own_words is not None and own_words.search(noise_marker(el)))
    ]


def facet_panels(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """The facets step's filter panels on list pages: elements that ``FACET_WORDS`` name, with no
    ``<img>`` or ``<picture>`` and no text of more than ``facet_max_text_words`` words
    (option labels, not a product grid or a section of prose)."""
    return [
        element
        for element in marked_elements(body, FACETS, frozenset())
        if element.find(".//img") is None
        and element.find(".//picture") is None
        and all(len(text.split()) <= options.facet_max_text_words for text in element.itertext())
    ]


def is_reader_feedback(element: HtmlElement) -> bool:
    """Whether ``element``'s class or id names readers' feedback: comments, reviews,
    testimonials (``DISCUSSION_WORDS`` and those)."""
    return bool(READER_FEEDBACK.search(noise_marker(element)))


def remove_chrome(page: DenoisingPage) -> int:
    """Page headers and footers (their tags or ARIA roles) outside ``<article>`` and ``<main>``."""
    return page.remove(page.small(chrome_outside_content(page.body)))


def remove_noise_by_class(page: DenoisingPage) -> int:
    """Elements whose class, id or role names noise: cookie banners, ads, share bars, sidebars...

    The table's words and roles; on articles also related lists, author boxes (unless the
    page has more than ``max_author_blocks`` of them: a thread's posters), small print.
    ``html``, ``body``, ``main``, ``article`` and anything that holds the page's ``<h1>``
    (unless it is a modal dialog) are never removed this way, nor is the block holding the
    page's story (``min_spared_story``) by the common words (ads, share, newsletter,
    sidebar). A name that states what an element lacks, hides or holds, or that puts a
    sidebar on one side (``STATE_NAME``: ``has-sidebar``, ``hide-read-more-ad``,
    ``c-layout-sidebar-left``) is not read here nor by the discussion step."""
    return page.remove(page.small(noise_by_class(page.body, page.table, page.options)))


def remove_facet_panels(page: DenoisingPage) -> int:
    """A shop's filter panel (``FACET_WORDS``), with no picture and only short texts."""
    return page.remove(page.small(facet_panels(page.body, page.options)))


def remove_product_surroundings(page: DenoisingPage) -> int:
    """On a page that declares a product, what surrounds it: reviews, carousels, the buy box.

    The declaration is JSON-LD, Open Graph or microdata
    (:func:`~pipelines.extraction.metadata.page_declarations`); the words are
    ``PRODUCT_NOISE_WORDS``."""
    if not page.declared.product:
        return 0
    return page.remove(page.small(marked_elements(page.body, PRODUCT, frozenset())))
