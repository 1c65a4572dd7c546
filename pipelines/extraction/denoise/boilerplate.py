"""Boilerplate that markup names: header and footer outside the content, elements whose
class, id or role names noise, a shop's filter panels, what surrounds a declared product;
and the product's declared description, which no step removes."""

from __future__ import annotations

import re
from collections import Counter

from pipelines.extraction.denoise.tree import link_share, noise_marker, outermost_of, story_blocks
from pipelines.extraction.denoise.vocabulary import (
    AUTHOR,
    AUTHOR_WORDS,
    CHROME_ROLES,
    CODE_TAGS,
    COMMON_NOISE_WORDS,
    FACETS,
    MODAL_ROLES,
    POST_LIST,
    POST_LIST_WORDS,
    PROTECTED_TAGS,
    READER_FEEDBACK,
    TEASER_LIST,
    NoiseTable,
    marker_pattern,
)
from pipelines.extraction.dom import HtmlElement, is_element
from pipelines.extraction.lengths import normalize_space

POST_LIST_MIN_LINK_SHARE = 0.1

MAX_AUTHOR_BLOCKS = 2

FACET_MAX_TEXT_WORDS = 20

#: A story block of at least this many words is spared step 5's common words (ads, share,
#: newsletter): almanac.com's Drupal ``body-ad-wrapper`` 0.20 → 0.99 and 0.32 → 0.99 word
#: F1, hubermanlab.com's ``rich-text-newsletter-cms`` 0.24 → 1.00; iawce on WCXB dev,
#: training / validation domains, 0.8793 / 0.8507 → 0.8808 / 0.8548, no page worse (the
#: same at 300). Sparing it the article words too kept three Amazon pages' reviews
#: (session 28, held-out domains).
MIN_SPARED_STORY = 150

#: A product's declared description (JSON-LD) must be this long (words) to be looked for.
MIN_DECLARED_DESCRIPTION_WORDS = 15

#: ... and a text node this long (characters) that it holds marks where the page shows it.
MIN_DECLARED_FRAGMENT_CHARS = 20


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


def chrome_outside_content(body: HtmlElement) -> list[HtmlElement]:
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


def noise_by_class(body: HtmlElement, table: NoiseTable) -> list[HtmlElement]:
    """Step 5's elements. The page's story block (:func:`story_blocks`, at least
    ``MIN_SPARED_STORY`` words) and its ancestors are spared the common words: there an
    ad, share, newsletter or sidebar word is the theme's name for the story's own field
    or wrapper (``body-ad-wrapper``, ``sidebar-wrap``), not a widget. The page type's own
    words and roles still apply. A block named only as a list of posts
    (``POST_LIST_WORDS``) goes when at least ``POST_LIST_MIN_LINK_SHARE`` of its text is
    links; blocks named only by ``AUTHOR_WORDS`` go when there are at most
    ``MAX_AUTHOR_BLOCKS`` of them."""
    roles = frozenset(table.roles)
    conditional = (*POST_LIST_WORDS, *AUTHOR_WORDS)
    plain_words = marker_pattern(tuple(w for w in table.noise_words if w not in conditional))
    marked: list[HtmlElement] = []
    authors: list[HtmlElement] = []
    for el in marked_elements(body, marker_pattern(table.noise_words), roles):
        marker = noise_marker(el)
        linked_post_list = POST_LIST.search(marker) and link_share(el) >= POST_LIST_MIN_LINK_SHARE
        if plain_words.search(marker) or el.get("role", "").lower() in roles or linked_post_list:
            marked.append(el)
        elif AUTHOR.search(marker):
            authors.append(el)
    if len(outermost_of(authors)) <= MAX_AUTHOR_BLOCKS:
        marked.extend(authors)
    stories = story_blocks(body, []) if marked else Counter()
    story, length = stories.most_common(1)[0] if stories else (None, 0)
    if story is None or length < MIN_SPARED_STORY:
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


def facet_panels(body: HtmlElement) -> list[HtmlElement]:
    """Step 5's filter panels on list pages: elements that ``FACET_WORDS`` name, with no
    ``<img>`` or ``<picture>`` and no text of more than ``FACET_MAX_TEXT_WORDS`` words
    (option labels, not a product grid or a section of prose)."""
    return [
        element
        for element in marked_elements(body, FACETS, frozenset())
        if element.find(".//img") is None
        and element.find(".//picture") is None
        and all(len(text.split()) <= FACET_MAX_TEXT_WORDS for text in element.itertext())
    ]


def is_reader_feedback(element: HtmlElement) -> bool:
    """Whether ``element``'s class or id names readers' feedback: comments, reviews,
    testimonials (``DISCUSSION_WORDS`` and those)."""
    return bool(READER_FEEDBACK.search(noise_marker(element)))
