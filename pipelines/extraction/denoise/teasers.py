"""Teaser lists that no class names: the block under a heading such as "Related
articles", and a row of linked ``<article>`` cards."""

from __future__ import annotations

from collections import Counter, defaultdict

from lxml import etree

from pipelines.extraction.denoise.discussion import MIN_STORY_BESIDES_DISCUSSION
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

#: A teaser heading is at most this long (words; CJK characters).
TEASER_HEADING_MAX_LENGTH = 8

#: ... and this many characters.
TEASER_HEADING_MAX_CHARS = 50

#: The block of a teaser heading is its nearest ancestor with this many link targets (two:
#: Valnet's one-story "Related" cards inside the text, a title and its author; iawce on
#: WCXB dev, training / validation domains, 3 -> 2: two pages better, xda-developers.com
#: 0.74 -> 0.76, none worse; 1: four better, one worse).
TEASER_MIN_LINKS = 2

#: ... of whose text at least this share is link text,
TEASER_MIN_LINK_SHARE = 0.25

#: ... and whose length is at most this share of the story's.
TEASER_MAX_STORY_SHARE = 0.5

#: A block of at least this many ``<article>`` children is a list of teaser cards when each
#: has a linked title (``<h2>``-``<h5>``, or an element whose class names a title: a
#: theme's ``<div class="title">``; Elementor's ``elementor-post__title``; iawce on WCXB
#: dev, training / validation domains, 0.8938 / 0.8752 -> 0.8938 / 0.8761, one page
#: better: beefound.agency 0.83 -> 0.99, none worse), ...
TEASER_MIN_CARDS = 3

#: ... holds at most this many words (title, date, excerpt), ...
TEASER_CARD_MAX_LENGTH = 120

#: ... and the block is at most this share of the story's length (a Michelin guide's
#: restaurant cards, ten times its intro, are the content). Elementor's posts widget beside
#: a post (omalleytunstall.com 0.55 → 0.98): iawce on WCXB dev, training / validation
#: domains, 0.8875 / 0.8628 → 0.8876 / 0.8648, 4 pages better, 1 worse (a service page
#: whose gold keeps its "insights" cards); at 1.0: 0.8876 / 0.8628, 2 better, none worse.
#: Cards whose excerpts are all cut short ("...") are teasers at any length (session 40:
#: searchlight.vc 0.66 -> 1.00, no other training or validation page changed; without any
#: bound blog.resy.com's restaurant cards, the content, went: 0.98 -> 0.11).
TEASER_CARDS_MAX_STORY_SHARE = 1.5


def teaser_blocks(body: HtmlElement) -> list[HtmlElement]:
    """The outermost teaser blocks (the teaser step), when the page keeps a story besides them."""
    headings = _teaser_headings(body)
    cards = _teaser_cards(body)
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
            shown_length(block) <= TEASER_CARDS_MAX_STORY_SHARE * story_length
            or all(_cut_short(card) for card in block.iterchildren("article"))
        )
    ]
    for heading in headings:
        for block in heading.iterancestors():
            if block in around_story or block.tag in PROTECTED_TAGS or block.find(".//h1") is not None:
                break
            if len({a.get("href") for a in links(block)}) < TEASER_MIN_LINKS:
                continue
            if (
                link_share(block) >= TEASER_MIN_LINK_SHARE
                and shown_length(block) <= TEASER_MAX_STORY_SHARE * story_length
            ):
                found.append(block)
            break
    outermost = outermost_of(found)
    if outermost and longest_story(body, outermost) >= MIN_STORY_BESIDES_DISCUSSION:
        return outermost
    return []


def _teaser_cards(body: HtmlElement) -> list[HtmlElement]:
    """Parents of ``TEASER_MIN_CARDS`` or more ``<article>`` children that are all teaser
    cards: a linked title and at most ``TEASER_CARD_MAX_LENGTH`` words."""
    children: defaultdict[HtmlElement, list[HtmlElement]] = defaultdict(list)
    for article in body.iter("article"):
        parent = article.getparent()
        if parent is not None:
            children[parent].append(article)
    return [
        parent
        for parent, articles in children.items()
        if len(articles) >= TEASER_MIN_CARDS and all(_teaser_card(article) for article in articles)
    ]


def _teaser_card(article: HtmlElement) -> bool:
    if text_length(article.text_content()) > TEASER_CARD_MAX_LENGTH:
        return False
    titles = [*article.iter("h2", "h3", "h4", "h5"), *CLASS_TITLES(article)]
    return any(title.find(".//a[@href]") is not None or title.getparent().tag == "a" for title in titles)


def _cut_short(card: HtmlElement) -> bool:
    """Whether a card's text ends with an excerpt cut short (a teaser of another page)."""
    return CUT_SHORT.search(card.text_content()) is not None


#: Elements that may be a teaser heading: few descendants (checked first: it stops
#: early on a wrapper of the whole page), not a link, short text. Python would build
#: every wrapper's text; this costs about 1.7 ms a page on WCXB dev.
_SHORT_TEXT_ELEMENTS = etree.XPath(
    f".//*[not(descendant::*[7])][string-length(.) <= {4 * TEASER_HEADING_MAX_CHARS}][not(self::a)]"
    f"[string-length(normalize-space(.)) <= {TEASER_HEADING_MAX_CHARS}][normalize-space(.)]"
)


def _teaser_headings(body: HtmlElement) -> list[HtmlElement]:
    """The innermost elements whose whole text is a teaser heading (links and their
    wrappers aside: a link named "Related" is a menu entry)."""
    found = []
    for element in _SHORT_TEXT_ELEMENTS(body):
        text = normalize_space(element.text_content())
        if not TEASER_HEADINGS.match(text) or text_length(text) > TEASER_HEADING_MAX_LENGTH:
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
    ``TEASER_MIN_LINKS`` link targets, is mostly links (``TEASER_MIN_LINK_SHARE``), lies
    outside the story and is less than half its length, and the page keeps a story besides
    it (as for the discussion). Utility-class themes (Tailwind) and page builders give such
    blocks no class that the class step could read. Without a heading: a block of
    ``TEASER_MIN_CARDS`` or more ``<article>`` cards, each a linked title (``<h2>``-``<h5>``,
    or an element a class names a title) and at most ``TEASER_CARD_MAX_LENGTH`` words,
    outside the story and at most ``TEASER_CARDS_MAX_STORY_SHARE`` of its length (a page
    builder's "recent posts" widget beside a short post), or of any length when every
    card's text ends with an excerpt cut short ("...", "[…]": a news site's river of other
    stories under a short one)."""
    return page.remove(teaser_blocks(page.body))
