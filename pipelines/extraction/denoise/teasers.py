"""Teaser lists that no class names: the block under a heading such as "Related
articles", and a row of linked ``<article>`` cards."""

from __future__ import annotations

from collections import Counter, defaultdict
from functools import lru_cache

from lxml import etree

from pipelines.extraction.denoise.options import DenoiseOptions
from pipelines.extraction.denoise.state import DenoisingPage
from pipelines.extraction.denoise.tree import (
    link_share,
    links,
    longest_story,
    outermost_of,
    shown_length,
    story_blocks,
)
from pipelines.extraction.denoise.vocabulary import (
    CLASS_TITLES,
    CUT_SHORT,
    PROTECTED_TAGS,
    TEASER_HEADINGS,
)
from pipelines.extraction.dom import HtmlElement, is_element
from pipelines.extraction.lengths import normalize_space, text_length


def teaser_blocks(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """The outermost teaser blocks (the teaser step), when the page keeps a story besides them."""
    headings = _teaser_headings(body, options)
    cards = _teaser_cards(body, options)
    stories = story_blocks(body, []) if headings or cards else Counter()
    if not stories:
        return []
    story, story_length = stories.most_common(1)[0]
    around_story = {story, *story.iterancestors()}
    found = [
        block
        for block in cards
        if block not in around_story
        and block.find(".//h1") is None
        and (
            shown_length(block) <= options.teaser_cards_max_story_share * story_length
            or all(_cut_short(card) for card in block.iterchildren("article"))
        )
    ]
    for heading in headings:
        for block in heading.iterancestors():
            if block in around_story or block.tag in PROTECTED_TAGS or block.find(".//h1") is not None:
                break
            if len({a.get("href") for a in links(block)}) < options.teaser_min_links:
                continue
            if (
                link_share(block) >= options.teaser_min_link_share
                and shown_length(block) <= options.teaser_max_story_share * story_length
            ):
                found.append(block)
            break
    outermost = outermost_of(found)
    if outermost and longest_story(body, outermost) >= options.min_story_besides_discussion:
        return outermost
    return []


def _teaser_cards(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """Parents of ``teaser_min_cards`` or more ``<article>`` children that are all teaser
    cards: a linked title and at most ``teaser_card_max_length`` words."""
    children: defaultdict[HtmlElement, list[HtmlElement]] = defaultdict(list)
    for article in body.iter("article"):
        parent = article.getparent()
        if parent is not None:
            children[parent].append(article)
    return [
        parent
        for parent, articles in children.items()
        if len(articles) >= options.teaser_min_cards
        and all(_teaser_card(article, options.teaser_card_max_length) for article in articles)
    ]


def _teaser_card(article: HtmlElement, max_length: int) -> bool:
    if text_length(article.text_content()) > max_length:
        return False
    titles = [*article.iter("h2", "h3", "h4", "h5"), *CLASS_TITLES(article)]
    return any(title.find(".//a[@href]") is not None or title.getparent().tag == "a" for title in titles)


def _cut_short(card: HtmlElement) -> bool:
    """Whether a card's text ends with an excerpt cut short (a teaser of another page)."""
    return CUT_SHORT.search(card.text_content()) is not None


@lru_cache(maxsize=4)
def _short_text_elements(max_chars: int) -> etree.XPath:
    """Elements that may be a teaser heading: few descendants (checked first: it stops
    early on a wrapper of the whole page), not a link, at most ``max_chars`` of text.
    Python would build every wrapper's text; this costs about 1.7 ms a page on WCXB dev."""
    return etree.XPath(
        f".//*[not(descendant::*[7])][string-length(.) <= {4 * max_chars}][not(self::a)]"
        f"[string-length(normalize-space(.)) <= {max_chars}][normalize-space(.)]"
    )


def _teaser_headings(body: HtmlElement, options: DenoiseOptions) -> list[HtmlElement]:
    """The innermost elements whose whole text is a teaser heading (links and their
    wrappers aside: a link named "Related" is a menu entry)."""
    found = []
    for element in _short_text_elements(options.teaser_heading_max_chars)(body):
        text = normalize_space(element.text_content())
        if not TEASER_HEADINGS.match(text) or text_length(text) > options.teaser_heading_max_length:
            continue
        if any(normalize_space(child.text_content()) == text for child in element if is_element(child)):
            continue
        if not any(a.tag == "a" for a in element.iterancestors()):
            found.append(element)
    return found


def remove_teasers(page: DenoisingPage) -> int:
    """Teaser lists that no class names: under a heading such as "Related articles", or rows of cards.

    The block under a short heading that names one ("Recommended For You", "More in Tech",
    "Latest News", "Читайте также", "相关文章", "関連記事", "À lire aussi"...:
    ``TEASER_HEADINGS``), when that block, the heading's nearest ancestor with
    ``teaser_min_links`` link targets, is mostly links (``teaser_min_link_share``), lies
    outside the story and is less than half its length, and the page keeps a story besides
    it (as for the discussion). Utility-class themes (Tailwind) and page builders give such
    blocks no class that the class step could read. Without a heading: a block of
    ``teaser_min_cards`` or more ``<article>`` cards, each a linked title (``<h2>``-``<h5>``,
    or an element a class names a title) and at most ``teaser_card_max_length`` words,
    outside the story and at most ``teaser_cards_max_story_share`` of its length (a page
    builder's "recent posts" widget beside a short post), or of any length when every
    card's text ends with an excerpt cut short ("...", "[…]": a news site's river of other
    stories under a short one)."""
    return page.remove(teaser_blocks(page.body, page.options))
