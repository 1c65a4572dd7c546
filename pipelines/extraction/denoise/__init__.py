"""Denoising: remove what is never main content before an extraction algorithm runs.

One :class:`NoiseTable` per page type says what goes. Removal happens in this order
(element paths of the capture's boxes refer to the untouched tree, so they come first):

1. elements the browser reported invisible (``visible: false`` in the element boxes,
   matched by their lxml-style XPath ``path`` and tag); an invisible box with a visible
   descendant box stays (a zero-height container of floated children is "invisible"
   but shows its content), ``<noscript>`` is left to step 2, and when the invisible
   elements hold more than ``MAX_HIDDEN_SHARE`` of the page's text nothing goes: the
   render never revealed the page (a fade-in or an app shell whose script did not run),
   and what a reader would see once it did is the page itself. Content a reader opens
   with a click stays too: inside a closed ``<details>`` or a container whose class, id or
   role names a tab, accordion, collapsible, toggle, panel, spoiler or FAQ
   (``REVEALABLE_MARKERS``);
2. ``<noscript>`` is unwrapped (its content kept) when it holds more text than the rest
   of the page: that is a server-rendered fallback of a script-built page (Discourse
   forums, for one) read without running its scripts; otherwise it goes with step 4;
3. tags that never hold content (``NoiseTable.tags``, popovers too), with PyQuery, short
   forms (on articles with their frame when it invites the reader to sign up: a
   newsletter box's heading and consent line, :func:`_sign_up_frame`; not the forms of
   one class that show no control and hold a paragraph, when a page has
   ``MIN_CONTROLLESS_FORMS`` of them: old Reddit's comments, 0.39 -> 0.87, no other WCXB
   dev training or validation page changed), and data: an
   element outside code whose whole text is a JSON object or array of at least
   ``MIN_DATA_CHARS`` characters (a script's state parked in a hidden element) or a UUID
   (eBay hides one in a span between the visible letters of "Sponsored");
4. ``header``/``footer`` (and their ARIA roles) outside ``<article>``/``<main>``;
5. elements whose ``class``/``id`` or ``role`` marks them as noise (cookie banners, ads,
   share bars, sidebars, ...; an article's byline and author box unless the page has
   more than ``MAX_AUTHOR_BLOCKS`` of them: a thread's posters), and on a page that
   declares a product (JSON-LD, Open Graph or microdata) what surrounds it
   (``NoiseTable.product_words``: reviews, carousels, the buy box); on list pages a
   shop's filter panel (``FACET_WORDS``, with no picture and only short texts:
   :func:`facet_panels`). ``html``, ``body``,
   ``main``, ``article`` and anything that holds the page's ``<h1>`` (unless it is a
   modal dialog) are never removed this way, nor is the block holding the page's story
   (``MIN_SPARED_STORY``) by the common words (ads, share, newsletter, sidebar). A name
   that states what an element lacks, hides or holds, or that puts a sidebar on one side
   (``STATE_NAME``: ``has-sidebar``, ``hide-read-more-ad``, ``c-layout-sidebar-left``) is
   not read here nor in step 7;
6. one of the two copies of a block whose text the page holds twice (at least
   ``MIN_DUPLICATE_WORDS`` words, exactly two copies, neither inside the other nor in a
   quotation): a responsive theme's mobile and desktop versions, a site builder's
   conditionally shown twin, a carousel's clone. The copy that markup hides goes, else the
   one outside ``<article>`` when the other is inside, then ``<main>``, else the later one
   (:func:`duplicate_copies`); on articles, one of two twins, adjacent siblings of one
   tag and one text that no third repeats, however short (a title printed again for
   screen readers, a logo strip doubled for its scrolling loop: :func:`twin_copies`);
   a quotation whose text the page also holds outside every quotation: a forum reply
   quoting a post of the thread (:func:`quoted_copies`); on articles, the subject line a
   thread repeats over its replies ("Re: <title>": :func:`reply_subjects`) and the chrome
   a forum prints beside each post ("Joined 2019", "Posts: 1,204", "Reply", "3 years
   ago": :func:`post_chrome`);
7. on articles, reader discussion (comment threads, marked by ``class``/``id``) when the
   page keeps at least ``NoiseTable.min_text_besides_discussion`` words outside it, and
   a story (``NoiseTable.min_story_besides_discussion`` words of ``<p>`` under one
   parent, or of lines between ``<br>`` in one block): a news story's comments go, a
   forum thread (whose posts are its content and are often marked "comment", the rest of
   the page a sidebar) keeps them. A page that declares itself a thread or a Q&A page
   (``metadata.page_declarations``: JSON-LD or microdata ``DiscussionForumPosting``,
   ``QAPage``) keeps them too: Vanilla marks the replies under a first post of several
   paragraphs as comments (open.vanillaforums.com 0.67 -> 0.98; no other WCXB dev
   training or validation page changed);
8. on articles, teaser lists that no class names: the block under a short heading
   that names one ("Recommended For You", "More in Tech", "Latest News", "Читайте
   также", "相关文章", "関連記事", "À lire aussi"...: ``TEASER_HEADINGS``), when that
   block, the heading's nearest ancestor with ``TEASER_MIN_LINKS`` link targets, is
   mostly links (``TEASER_MIN_LINK_SHARE``), lies outside the story and is less than
   half its length, and the page keeps a story besides it (as in step 7). Utility-class
   themes (Tailwind) and page builders give such blocks no class that step 5 could read.
   Without a heading: a block of ``TEASER_MIN_CARDS`` or more ``<article>`` cards, each
   a linked title (``<h2>``-``<h5>``, or an element a class names a title) and at most
   ``TEASER_CARD_MAX_LENGTH`` words,
   outside the story and at most ``TEASER_CARDS_MAX_STORY_SHARE`` of its length (a page
   builder's "recent posts" widget beside a short post), or of any length when every
   card's text ends with an excerpt cut short ("...", "[…]": a news site's river of
   other stories under a short one);
9. on articles, photo credits: an element whose whole text is a short credit line
   ("Photo: Jane Doe", "Image credit: Getty Images", "Credit: Amazon", "Фото: ТАСС";
   ``PHOTO_CREDIT``), not a heading. A caption with its credit inside stays;
10. on articles, control labels: an element whose whole text is a button's or a toggle's
   label that no ``<button>`` tag marks ("Read more", "Show caption", "Add to cart",
   "Weiterlesen", "続きを読む"; ``CONTROL_LABELS``), not a heading nor a link that
   running text follows. On list pages they stay until the list ranking has read them
   (a card's "More info" is part of the repeated structure it reads); the list
   extractor drops them from the items it chose (:func:`is_control_label`);
11. elements left without any text (empty wrappers, spacers, icon holders), except the
   ones that shape text (``br``, ``hr``, table cells). Without this an empty sibling
   would win the article algorithm's "earlier of the two longest children" rule.

On a page that declares a product whose JSON-LD gives its description, the elements
that show that description, and their ancestors, are removed by no step but the copy
steps of 6 (:func:`declared_description_holders`): shops keep it in a drawer, a modal
sheet or a tab that steps 3-5 read as noise. iawce on WCXB dev's training / validation
domains 0.89659 / 0.87690 -> 0.89734 / 0.87690 (gymshark.com 0.15 -> 0.79, ikea.com
0.40 -> 0.48; no page worse; sparing the copies too cost two shops their duplicate).

Markup hints of hiddenness (``hidden``, ``aria-hidden``, inline ``display:none``) are not
trusted: scripts reveal such content, and on WCXB's raw HTML honouring them cost 0.012
word F1 on article-like pages (0.859 → 0.847). Only the browser's verdict counts; the
hints only choose which of two copies goes (step 6).
Comments and processing instructions are already gone: :func:`dom.parse_html` drops them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from lxml import etree
from pyquery import PyQuery

from pipelines.extraction.denoise.vocabulary import (
    ARTICLE_NOISE_WORDS,
    AUTHOR,
    AUTHOR_WORDS,
    CHROME_ROLES,
    CHROME_SPARING_TAGS,
    CLASS_TITLES,
    CODE_TAGS,
    COMMON_NOISE_ROLES,
    COMMON_NOISE_WORDS,
    COMMON_TAGS,
    CONTROL_LABELS,
    CUT_SHORT,
    DISCUSSION_WORDS,
    FACETS,
    HIDING_CLASS,
    INLINE_TAGS,
    LITERAL_TAGS,
    LONE_NUMBER,
    MODAL_ROLES,
    NUMBERED_POST,
    PHOTO_CREDIT,
    POST_CHROME,
    POST_CHROME_CANDIDATES,
    POST_LIST,
    POST_LIST_WORDS,
    PRODUCT_NOISE_WORDS,
    PROTECTED_TAGS,
    READER_FEEDBACK,
    REPLY_PREFIX,
    REPLY_SUBJECT,
    REVEALABLE_MARKERS,
    SHAPING_TAGS,
    SIGN_UP_WORDS,
    STATE_NAME,
    TEASER_HEADINGS,
    TEASER_LIST,
    UUID,
    marker_pattern,
)
from pipelines.extraction.dom import HEADING_TAGS, HtmlElement, body_of, is_element, remove_keeping_tail
from pipelines.extraction.lengths import normalize_space, text_length
from pipelines.extraction.metadata import Declarations, page_declarations
from pipelines.extraction.page import ARTICLE, LIST

POST_LIST_MIN_LINK_SHARE = 0.1

MAX_AUTHOR_BLOCKS = 2

FACET_MAX_TEXT_WORDS = 20

#: A photo credit is at most this long (words; CJK characters).
PHOTO_CREDIT_MAX_LENGTH = 12

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

#: Words an article must keep outside its discussion for the discussion to go.
MIN_TEXT_BESIDES_DISCUSSION = 150

#: A story block of at least this many words is spared step 5's common words (ads, share,
#: newsletter): almanac.com's Drupal ``body-ad-wrapper`` 0.20 → 0.99 and 0.32 → 0.99 word
#: F1, hubermanlab.com's ``rich-text-newsletter-cms`` 0.24 → 1.00; iawce on WCXB dev,
#: training / validation domains, 0.8793 / 0.8507 → 0.8808 / 0.8548, no page worse (the
#: same at 300). Sparing it the article words too kept three Amazon pages' reviews
#: (session 28, held-out domains).
MIN_SPARED_STORY = 150

#: Words of ``<p>`` text under one parent (a story) the page must keep outside its
#: discussion for the discussion to go. iawce on WCXB dev's training / validation domains,
#: word F1: 0.8692 / 0.8448 without this rule, 0.8713 / 0.8468 at 50 (forum pages 0.738 →
#: 0.773 / 0.627 → 0.657; article pages 0.945 → 0.944 / 0.942), 0.8712 at 100, 0.8704 at 150.
#: A story written as lines between ``<br>`` (old blog and Slashdot-style posts) counts
#: too: 0.8718 → 0.8728 on the training domains, validation unchanged (0.8469).
MIN_STORY_BESIDES_DISCUSSION = 50

#: A <form> with at most this much text (words; CJK characters) is a search, login,
#: contact or newsletter form and goes; a longer one wraps content (forum software wraps
#: whole threads in a form).
FORM_MAX_LENGTH = 100

#: A short form goes with its frame, the outermost ancestor of at most this many words,
#: when the frame invites the reader to sign up (``SIGN_UP_WORDS``): the newsletter box's
#: heading, pitch and consent line ("Be the first to know!", "By signing up, you agree
#: ..."). iawce on WCXB dev, word F1, training / validation domains: 0.8903 / 0.8695 →
#: 0.8904 / 0.8702 (9 pages better, 3 worse whose gold keeps a sign-up or log-in box;
#: travelnoire.com 0.83 → 1.00, mashable.com 0.82 → 0.86); at 40 words 0.8904 / 0.8702
#: without mashable.com; without the words, Steam's buy boxes went too. On list pages one
#: page changed, for the worse (4dayweek.io 0.36 → 0.34), so only articles do this.
SIGN_UP_FRAME_MAX_LENGTH = 60

#: An element whose whole text is a JSON object or array this long (characters) is a
#: script's data, not content (step 3): Avada's hidden ``DynamicProductValue`` spans,
#: Amazon's ``aok-hidden`` grid state. Shorter JSON is left alone, and JSON in code always.
#: With the UUIDs too (eBay's scrambled "Sponsored" labels were the longest text of its item
#: pages' "Similar items" carousels): iawce on WCXB dev, training / validation domains,
#: 0.8873 / 0.8564 → 0.8875 / 0.8628 (tribelifting.com 0.81 → 1.00; three eBay item pages
#: 0.00-0.04 → 0.33-0.48), no page worse.
MIN_DATA_CHARS = 200

#: Steps 3 to 5 leave an element alone when it holds more than this share of the page's
#: text: that is misnested markup (an unclosed <header> that swallowed the page), not noise.
MAX_REMOVED_SHARE = 0.7

#: Invisible elements holding more than this share of the page's text are a page the
#: render did not reveal, not hidden boilerplate (module docstring, step 1). iawce on the
#: captures of WCXB dev's training and validation domains (1,086 pages, rendered DOM and
#: boxes), word F1: 0.840 trusting every verdict; 0.863 / 0.862 / 0.861 with this share at
#: 0.2 / 0.35 / 0.5; 0.863 with no boxes at all.
MAX_HIDDEN_SHARE = 0.2

#: A block of at least this many words whose text appears exactly twice on the page loses
#: one copy (step 6). iawce on WCXB dev's raw HTML, word F1, training / validation domains:
#: 0.8730 / 0.8473 keeping both copies, 0.8759 / 0.8478 keeping one.
MIN_DUPLICATE_WORDS = 20

#: A block is found from a string of its text at least this long (characters) that occurs
#: exactly twice on the page.
MIN_DUPLICATE_CHARS = 50

#: Twins (two adjacent siblings of one tag and one text, no third beside them) of at least
#: this many characters lose one copy however short (step 6, on articles:
#: :func:`twin_copies`). iawce on WCXB dev, training / validation domains: 0.89525 /
#: 0.87626 -> 0.89562 / 0.87683 (31 pages better: eBay's screen-reader copies of each
#: title and price, logo strips doubled for a scrolling loop; 6 worse by at most 0.01).
#: Paragraphs stay (as two short ones alike always did: one page worse by 0.006 for it).
#: Pairs among any number of siblings, runs of three or more included: 36 better, 10
#: worse (a plan table's repeated rows, a docs page's identical tab panels); only the
#: two children of an element: 14 better, none worse, half the gain. On list pages the
#: twins are part of the cards the list ranking reads (artistcraftsman.com 0.68 -> 0.61).
MIN_TWIN_CHARS = 3

#: ... and at most this many, whitespace included: a bound on the cost (iawce's output is
#: the same without it on every WCXB dev training and validation page).
MAX_TWIN_CHARS = 2400

#: A quotation (``<blockquote>``) goes when at least this share of its text, counted in
#: strings of at least ``MIN_QUOTED_CHARS`` characters (shorter ones are attributions and
#: buttons: "jtbell said:", "Click to expand..."), also stands outside every quotation on
#: the page, and it has at least ``MIN_QUOTE_CHARS`` such characters (step 6): a reply
#: that quotes a post of the same thread then holds only its own words. iawce on WCXB dev's
#: raw HTML, word F1, training / validation domains: 0.8892 / 0.8677 → 0.8902 / 0.8695 (20
#: pages better, 16 worse, all forums but two: WCXB's gold drops the quoted copy on most
#: forums and keeps it on some, physicsforums.com and tomshardware.com among them). A first
#: version that counted any second copy, quoted or not: 0.8903 / 0.8695, 23 better and 20
#: worse; with it, shares 0.5 and 0.95 scored 0.8901 on training.
QUOTED_COPY_SHARE = 0.8

MIN_QUOTED_CHARS = 20

MIN_QUOTE_CHARS = 40

REPLY_SUBJECT_MAX_WORDS = 20

#: A page with this many post chrome elements is a thread, where an element whose whole
#: text is a number (``LONE_NUMBER``: votes, a poster's post count) is chrome too, outside
#: ordered lists: 0.8907 / 0.8703 → 0.8908 / 0.8704 (26 pages better, 21 of them threads;
#: 5 worse by at most 0.003); at 10, 17 better and 2 worse.
MIN_THREAD_CHROME = 5


@dataclass(frozen=True)
class NoiseTable:
    """What denoising removes on one page type."""

    tags: tuple[str, ...]
    noise_words: tuple[str, ...]
    roles: tuple[str, ...]
    chrome_outside_content: bool = True  # header/footer outside <article>/<main>
    form_max_length: int = FORM_MAX_LENGTH
    discussion_words: tuple[str, ...] = ()
    product_words: tuple[str, ...] = ()  # step 5, on a page that declares a product
    teaser_headings: bool = False  # step 8
    photo_credits: bool = False  # step 9
    control_labels: bool = False  # step 10
    facet_panels: bool = False  # step 5
    min_text_besides_discussion: int = MIN_TEXT_BESIDES_DISCUSSION
    min_story_besides_discussion: int = MIN_STORY_BESIDES_DISCUSSION
    reply_subjects: bool = False  # step 6
    twin_copies: bool = False  # step 6
    post_chrome: bool = False  # step 6
    sign_up_frames: bool = False  # step 3


NOISE_TABLES: dict[str, NoiseTable] = {
    ARTICLE: NoiseTable(
        tags=COMMON_TAGS,
        noise_words=(*COMMON_NOISE_WORDS, *ARTICLE_NOISE_WORDS),
        roles=COMMON_NOISE_ROLES,
        discussion_words=DISCUSSION_WORDS,
        product_words=PRODUCT_NOISE_WORDS,
        teaser_headings=True,
        photo_credits=True,
        control_labels=True,
        reply_subjects=True,
        twin_copies=True,
        post_chrome=True,
        sign_up_frames=True,
    ),
    # List pages keep link blocks such as "related" lists (links are their content) but
    # lose navigation marked by class only: their items are short, so menus and footers
    # left in outweigh them (WCXB listing and collection pages: 0.714 → 0.730 word F1;
    # the same words cost article-like pages 0.003).
    LIST: NoiseTable(
        tags=COMMON_TAGS,
        noise_words=(
            *COMMON_NOISE_WORDS,
            "nav",
            "navbar",
            "navigation",
            "menu",
            "footer",
            "breadcrumb",
            "breadcrumbs",
            "pagination",
            "pager",
            "legal",
        ),
        roles=COMMON_NOISE_ROLES,
        facet_panels=True,
    ),
}


@lru_cache(maxsize=1)
def denoiser_fingerprint() -> str:
    """A short hash of this package's source (its modules in name order). Caches of what the
    denoiser computed (training rows, BoilerNet's prepared pages) record it, so that one
    built by other rules is not reused."""
    digest = hashlib.sha256()
    for module in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(module.read_bytes())
    return digest.hexdigest()[:16]


def denoise(root: HtmlElement, page_type: str, boxes: list[dict[str, Any]] | None = None) -> Counter[str]:
    """Remove noise from the tree of ``root`` in place; returns removals by reason."""
    table = NOISE_TABLES.get(page_type)
    if table is None:
        raise ValueError(f"no noise table for page type {page_type!r}; known: {', '.join(NOISE_TABLES)}")
    removed: Counter[str] = Counter()
    # What the page says it is, read before step 3 takes the head, where a table asks.
    asks = table.product_words or table.discussion_words
    declared = page_declarations(root) if asks else Declarations(product=False, thread=False)
    product = bool(table.product_words) and declared.product
    thread = bool(table.discussion_words) and declared.thread
    spared = declared_description_holders(body_of(root), declared.description) if product else frozenset()

    def remove(elements: list[HtmlElement]) -> int:
        return _remove_all(root, [element for element in elements if element not in spared])

    if boxes:
        removed["invisible"] = remove(trusted_hidden(root, boxes))
    removed["noscript unwrapped"] = unwrap_script_fallback(body_of(root))
    body = body_of(root)
    limit = MAX_REMOVED_SHARE * _shown_length(body)

    def small(elements: list[HtmlElement]) -> list[HtmlElement]:
        # A text is never longer than its characters: most elements pass on those alone.
        return [el for el in elements if len(el.text_content()) <= limit or _shown_length(el) <= limit]

    removed["tag"] = remove(small(list(PyQuery(root)(",".join(table.tags)))))
    removed["data"] = remove(_data_blocks(body))
    removed["form"] = remove(
        [
            _sign_up_frame(form, body, limit) if table.sign_up_frames else form
            for form in _forms(body)
            if text_length(form.text_content()) <= table.form_max_length
        ],
    )
    if table.chrome_outside_content:
        removed["chrome"] = remove(small(_chrome_outside_content(body)))
    removed["class"] = remove(small(_noise_by_class(body, table)))
    if table.facet_panels:
        removed["facets"] = remove(small(facet_panels(body)))
    if product:
        removed["product"] = remove(small(_marked(body, marker_pattern(table.product_words), frozenset())))
    # A copy's removal leaves its twin: these steps need not spare the description.
    removed["duplicate"] = _remove_all(root, duplicate_copies(body))
    if table.twin_copies:
        removed["twin"] = _remove_all(root, twin_copies(body))
    removed["quoted"] = _remove_all(root, quoted_copies(body))
    if table.reply_subjects:
        removed["reply subject"] = remove(reply_subjects(body))
    if table.post_chrome:
        removed["post chrome"] = remove(small(post_chrome(body)))
    if table.discussion_words and not thread:
        removed["discussion"] = remove(_discussion(body, table))
    if table.teaser_headings:
        removed["teaser"] = remove(_teasers(body, table))
    if table.photo_credits:
        removed["photo credit"] = remove(photo_credits(body))
    if table.control_labels:
        removed["control label"] = remove(control_labels(body))
    removed["empty"] = remove(_empty_elements(body_of(root)))
    return +removed


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


#: At least this many forms of one class that show no control and hold a paragraph are
#: the page's posts: old Reddit wraps each comment in a ``usertext`` form.
MIN_CONTROLLESS_FORMS = 5


def _forms(body: HtmlElement) -> list[HtmlElement]:
    """``body``'s forms, less the posts that ``MIN_CONTROLLESS_FORMS`` tells."""
    forms = list(body.iter("form"))
    bare = [form for form in forms if not _has_controls(form) and form.find(".//p") is not None]
    classes = Counter(form.get("class", "") for form in bare)
    posts = {form for form in bare if classes[form.get("class", "")] >= MIN_CONTROLLESS_FORMS}
    return [form for form in forms if form not in posts]


def _has_controls(form: HtmlElement) -> bool:
    return any(
        control.tag != "input" or (control.get("type") or "").strip().lower() != "hidden"
        for control in form.iter("input", "textarea", "select", "button")
    )


def trusted_hidden(
    root: HtmlElement, boxes: list[dict[str, Any]], scope: HtmlElement | None = None
) -> list[HtmlElement]:
    """The elements the render hid (:func:`invisible_elements`), or none when they hold
    more than ``MAX_HIDDEN_SHARE`` of the text of ``scope`` (the body unless given): that
    much hidden text is content the render did not reveal (a fade-in that never ran), not
    hidden boilerplate."""
    hidden = invisible_elements(root, boxes)
    within = body_of(root) if scope is None else scope
    return hidden if _outermost_length(hidden) <= MAX_HIDDEN_SHARE * _shown_length(within) else []


def invisible_elements(root: HtmlElement, boxes: list[dict[str, Any]]) -> list[HtmlElement]:
    """Elements whose box says ``visible: false``, that have no visible descendant box and
    that a reader cannot reveal with a click (:func:`revealable`)."""
    shows_content: set[str] = set()
    hidden: list[dict[str, Any]] = []
    for box in boxes:
        path = box.get("path")
        if not isinstance(path, str) or not path.startswith("/"):
            continue
        if box.get("visible", True):
            while path:
                if path in shows_content:
                    break
                shows_content.add(path)
                path = path.rpartition("/")[0]
        else:
            hidden.append(box)
    tree = root.getroottree()
    found = []
    for box in hidden:
        if box["path"] in shows_content:
            continue
        try:
            matches = tree.xpath(box["path"])
        except Exception:  # lxml raises XPathEvalError subclasses; a bad path is just skipped
            continue
        if not isinstance(matches, list):  # a tag like `divclass="x"` makes the path an expression
            continue
        if (
            len(matches) == 1
            and is_element(matches[0])
            and matches[0].tag == box.get("tag", matches[0].tag)
            and matches[0].tag != "noscript"  # always invisible where scripts run: step 2 decides
            and not revealable(matches[0])
        ):
            found.append(matches[0])
    return found


def revealable(element: HtmlElement) -> bool:
    """Whether ``element`` sits in a closed ``<details>`` or a tab, accordion or other
    container that a reader opens (``REVEALABLE_MARKERS``)."""
    for node in (element, *element.iterancestors()):
        if node.tag == "details":
            return True
        attrib = node.attrib
        marker = f"{attrib.get('class', '')} {attrib.get('id', '')} {attrib.get('role', '')}"
        if REVEALABLE_MARKERS.search(marker):
            return True
    return False


def _outermost(elements: list[HtmlElement]) -> list[HtmlElement]:
    """Those of ``elements`` that lie inside none of the others."""
    members = set(elements)
    return [el for el in elements if not any(a in members for a in el.iterancestors())]


def _outermost_length(elements: list[HtmlElement]) -> int:
    """Shown text length of ``elements``, each counted once (not again inside another)."""
    return sum(_shown_length(el) for el in _outermost(elements))


def unwrap_script_fallback(body: HtmlElement) -> int:
    """Unwrap (in place) the outermost <noscript> elements when they hold more of the
    body's text than the rest of it: a script-built page's server-rendered fallback.
    Returns how many were unwrapped."""
    outermost = [n for n in body.iter("noscript") if not any(a.tag == "noscript" for a in n.iterancestors())]
    if not outermost:
        return 0
    inside = sum(text_length(n.text_content()) for n in outermost)
    if inside <= text_length(_text_outside(body, "noscript")):
        return 0
    for noscript in outermost:
        noscript.drop_tag()
    return len(outermost)


def _text_outside(element: HtmlElement, tag: str) -> str:
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


def _shown_length(element: HtmlElement) -> int:
    """Text length of ``element`` without scripts and styles (0 for those themselves)."""
    if element.tag in CODE_TAGS:
        return 0
    return text_length(_text_outside(element, "script"))


def duplicate_copies(body: HtmlElement) -> list[HtmlElement]:
    """The copy to drop of each block whose text ``body`` holds exactly twice (step 6).

    A block is found from a long string of text (``MIN_DUPLICATE_CHARS``) that occurs
    exactly twice: from the two elements holding it, both copies widen to their parents
    while the parents' texts stay equal. Blocks of at least ``MIN_DUPLICATE_WORDS`` words
    count; a block inside a quotation is left alone (a reply quotes the post above it), and
    a string found three times or more is a list's repeated widget, not a copy. Larger
    blocks first: the copies inside a dropped block are gone with it."""
    occurrences: defaultdict[str, list[HtmlElement]] = defaultdict(list)
    for string in body.xpath(".//text()"):
        if len(string) >= MIN_DUPLICATE_CHARS:
            holder = string.getparent()
            occurrences[normalize_space(string)].append(holder.getparent() if string.is_tail else holder)
    texts: dict[HtmlElement, str] = {}
    widest: dict[tuple[HtmlElement, HtmlElement], tuple[HtmlElement, HtmlElement]] = {}
    pairs: dict[tuple[HtmlElement, HtmlElement], int] = {}
    for key, holders in occurrences.items():
        if len(key) >= MIN_DUPLICATE_CHARS and len(holders) == 2:
            pair = _widest_copies(holders[0], holders[1], texts, widest)
            if pair is not None and pair not in pairs:
                pairs[pair] = text_length(texts[pair[0]])
    dropped: set[HtmlElement] = set()
    for (first, second), length in sorted(pairs.items(), key=lambda item: item[1], reverse=True):
        if length < MIN_DUPLICATE_WORDS or any(
            _quoted(el) or el in dropped or any(a in dropped for a in el.iterancestors())
            for el in (first, second)
        ):
            continue
        dropped.add(max((first, second), key=lambda el: _drop_rank(el, second)))
    return list(dropped)


def twin_copies(body: HtmlElement) -> list[HtmlElement]:
    """The copy to drop of each pair of twins (step 6): two adjacent siblings of one tag
    with the same text, of at most ``MAX_TWIN_CHARS``, that no third sibling repeats (a
    price or a title printed again for screen readers, a logo strip doubled for its
    scrolling loop; three or more are a list's repeated items). Paragraphs (a writer's
    own repetition), cells of a table row and items of a list are left alone."""
    texts: dict[HtmlElement, str] = {}

    def text_of(element: HtmlElement) -> str:
        if element not in texts:
            texts[element] = normalize_space(element.text_content())
        return texts[element]

    dropped = []
    for first in _TWIN_CANDIDATES(body):
        second = first.getnext()
        if second is None or (first.tail or "").strip():
            continue
        text = text_of(first)
        if len(text) < MIN_TWIN_CHARS or text != text_of(second):
            continue
        beside = (el for el in (first.getprevious(), second.getnext()) if el is not None)
        if any(text_of(el) == text for el in beside):
            continue  # three alike: a list's repeated items
        dropped.append(max((first, second), key=lambda el: _drop_rank(el, second)))
    return _outermost(dropped)


#: Elements that may be the first of twins: not a paragraph, a table row's cell or a list's
#: item, and the next element has their tag and, spaces normalized, their text; at most
#: ``MAX_TWIN_CHARS`` of it. Read in C: a Python walk over every pair cost 3.6 ms a page
#: on WCXB dev's raw bodies, this about 1.5 ms. XPath normalizes ASCII spaces only, so a
#: pair that differs by a no-break space is no twin (one training or validation page
#: changed for it: insight.com, -0.001).
_TWIN_CANDIDATES = etree.XPath(
    ".//*[name() = name(following-sibling::*[1])][not(self::p)]"
    "[not(parent::tr | parent::ul | parent::ol | parent::table | parent::thead | parent::tbody)]"
    f"[string-length(.) <= {MAX_TWIN_CHARS}]"
    "[normalize-space(.) = normalize-space(following-sibling::*[1])]"
)


def quoted_copies(body: HtmlElement) -> list[HtmlElement]:
    """The outermost quotations of ``body`` whose text it also holds outside every
    quotation (``QUOTED_COPY_SHARE`` of their strings of ``MIN_QUOTED_CHARS`` or more;
    step 6): a reply's copy of a post above it. Two replies quoting a post that the page
    does not hold both stay."""
    quotes = [quote for quote in body.iter("blockquote") if not _inside(quote, "blockquote")]
    if not quotes:
        return []
    unquoted = normalize_space("".join(body.xpath(".//text()[not(ancestor::blockquote)]")))
    found = []
    for quote in quotes:
        strings = [
            text for text in map(normalize_space, quote.xpath(".//text()")) if len(text) >= MIN_QUOTED_CHARS
        ]
        total = sum(map(len, strings))
        if (
            total >= MIN_QUOTE_CHARS
            and sum(len(text) for text in strings if text in unquoted) >= QUOTED_COPY_SHARE * total
        ):
            found.append(quote)
    return found


def reply_subjects(body: HtmlElement) -> list[HtmlElement]:
    """The elements of ``body`` that hold only a reply's subject line
    (``REPLY_SUBJECT``, the widest such element around it), when the same subject heads
    at least two of them (step 6): "Re: <the thread's title>" over each reply."""
    holders: dict[HtmlElement, str] = {}
    for string in body.xpath(".//text()"):
        if not REPLY_PREFIX.match(string):
            continue
        holder = string.getparent()
        if string.is_tail:
            holder = holder.getparent()
        if holder is None or holder is body:
            continue
        subject = normalize_space(holder.text_content())
        if not REPLY_SUBJECT.match(subject) or text_length(subject) > REPLY_SUBJECT_MAX_WORDS:
            continue
        while (parent := holder.getparent()) is not None and parent is not body:
            if normalize_space(parent.text_content()) != subject:
                break
            holder = parent
        holders[holder] = subject.lower()
    repeated = Counter(holders.values())
    return [holder for holder, subject in holders.items() if repeated[subject] >= 2]


def post_chrome(body: HtmlElement) -> list[HtmlElement]:
    """The outermost elements of ``body`` whose whole text is a forum's chrome around a
    post (``POST_CHROME``), outside code and table cells, and on a thread the lone numbers
    outside ordered lists too (step 6)."""
    chrome: list[HtmlElement] = []
    numbers: list[HtmlElement] = []
    for element in POST_CHROME_CANDIDATES(body):
        text = normalize_space(element.text_content())
        if POST_CHROME.fullmatch(text):
            kind = chrome
        elif LONE_NUMBER.fullmatch(text):
            kind = numbers
        else:
            continue
        if not any(node.tag in CHROME_SPARING_TAGS for node in (element, *element.iterancestors())):
            kind.append(element)
    found = _outermost(chrome)
    if len(found) < MIN_THREAD_CHROME:
        return found
    return _outermost(found + [number for number in numbers if not _inside(number, "ol")])


def _drop_rank(copy: HtmlElement, later: HtmlElement) -> tuple[bool, bool, bool, bool]:
    """Of two copies the one ranked higher goes: hidden by markup, then outside
    ``<article>``, then outside ``<main>``, then the later one."""
    return _marked_hidden(copy), not _inside(copy, "article"), not _inside(copy, "main"), copy is later


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


def _inside(element: HtmlElement, tag: str) -> bool:
    return any(a.tag == tag for a in element.iterancestors())


def _quoted(element: HtmlElement) -> bool:
    return element.tag == "blockquote" or _inside(element, "blockquote")


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


def _chrome_outside_content(body: HtmlElement) -> list[HtmlElement]:
    found = []
    for element in body.iter("header", "footer", "div", "section"):
        if element.tag in ("div", "section") and element.get("role", "").lower() not in CHROME_ROLES:
            continue
        if not any(a.tag in ("article", "main") for a in element.iterancestors()):
            found.append(element)
    return found


def _marked(body: HtmlElement, words: re.Pattern[str], roles: frozenset[str]) -> list[HtmlElement]:
    """Elements marked by ``words`` (class/id) or ``roles``, except the protected ones,
    those holding the ``<h1>`` and those holding a story (:func:`_holds_story`). A modal
    dialog (``aria-modal="true"``) goes even with an ``<h1>``: it covers the page, and
    its heading is its own (a terms-of-service overlay's "Table of Contents")."""
    found = []
    named: dict[str, bool] = {}  # a page repeats its class names: each is searched once
    for element in body.xpath(".//*[@class or @id or @role]"):  # the only ones a marker can name
        if element.tag in PROTECTED_TAGS:
            continue
        attrib = element.attrib
        marker = _noise_marker(element)
        if marker not in named:
            named[marker] = bool(marker and words.search(marker))
        role = attrib.get("role", "").lower()
        if not (named[marker] or role in roles):
            continue
        modal = role in MODAL_ROLES and attrib.get("aria-modal", "").lower() == "true"
        if (modal or element.find(".//h1") is None) and not _holds_story(element, marker):
            found.append(element)
    return found


def _holds_story(element: HtmlElement, marker: str) -> bool:
    """Whether ``element`` holds a ``<main>`` or an ``<article>``. Several articles in a
    block named a teaser list (``TEASER_LIST_WORDS``: a "related posts" carousel of
    ``<article>`` cards) are cards, not a story."""
    if element.find(".//main") is not None:
        return True
    articles = len(element.findall(".//article"))
    return articles == 1 or (articles > 1 and not TEASER_LIST.search(marker))


def _noise_marker(element: HtmlElement) -> str:
    """The class names and id that steps 5 and 7 read, without the names that state what
    an element lacks or holds (``STATE_NAME``: ``hide-read-more-ad``, ``has-sidebar``)."""
    return _without_state_names(f"{element.get('class', '')} {element.get('id', '')}")


@lru_cache(maxsize=4096)
def _without_state_names(names: str) -> str:
    return " ".join(name for name in names.split() if not STATE_NAME.match(name))


def _noise_by_class(body: HtmlElement, table: NoiseTable) -> list[HtmlElement]:
    """Step 5's elements. The page's story block (:func:`_story_blocks`, at least
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
    for el in _marked(body, marker_pattern(table.noise_words), roles):
        marker = _noise_marker(el)
        linked_post_list = POST_LIST.search(marker) and _link_share(el) >= POST_LIST_MIN_LINK_SHARE
        if plain_words.search(marker) or el.get("role", "").lower() in roles or linked_post_list:
            marked.append(el)
        elif AUTHOR.search(marker):
            authors.append(el)
    if len(_outermost(authors)) <= MAX_AUTHOR_BLOCKS:
        marked.extend(authors)
    stories = _story_blocks(body, []) if marked else Counter()
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
        or (own_words is not None and own_words.search(_noise_marker(el)))
    ]


def _links(element: HtmlElement) -> list[HtmlElement]:
    """The links under ``element`` that lead somewhere (an ``href`` other than "#")."""
    return [a for a in element.iter("a") if a.get("href", "").strip() not in ("", "#")]


def _link_share(element: HtmlElement) -> float:
    """The share of ``element``'s shown text that is link text."""
    length = _shown_length(element)
    return sum(_shown_length(a) for a in _links(element)) / length if length else 0.0


def _discussion(body: HtmlElement, table: NoiseTable) -> list[HtmlElement]:
    """The outermost discussion blocks, when the body keeps enough text besides them.

    A discussion may hold ``<article>`` elements (one per comment in HTML5 themes).
    Inline elements and code (a highlighter's ``hljs-comment``) are no discussion. When
    numbered posts (``id="comment-4398546_wrap"``), several, hold most of the discussion's
    text, the page is a forum thread whose posts are its content, and nothing goes (a
    story's comment section with a short list of numbered pingbacks beside it still goes).
    Nor does it go from a page without a story besides it, in paragraphs or in lines
    between ``<br>`` (a thread whose posts a "comments" block wraps, next to a sidebar)."""
    words = marker_pattern(table.discussion_words)
    marked = []
    for element in body.xpath(".//*[@class or @id]"):
        if element.tag in PROTECTED_TAGS or element.tag in INLINE_TAGS:
            continue
        if words.search(_noise_marker(element)) and element.find(".//h1") is None:
            marked.append(element)
    found = set(marked)
    outermost = [
        el for el in marked if not any(a in found or a.tag in ("pre", "code") for a in el.iterancestors())
    ]
    if not outermost:
        return []
    numbered = [el for el in outermost if NUMBERED_POST.search(f"{el.get('class', '')} {el.get('id', '')}")]
    discussion_length = sum(_shown_length(el) for el in outermost)
    if len(numbered) > 1 and 2 * sum(_shown_length(el) for el in numbered) > discussion_length:
        return []
    besides = _shown_length(body) - discussion_length
    if besides < table.min_text_besides_discussion:
        return []
    return outermost if _story_length(body, outermost) >= table.min_story_besides_discussion else []


def _story_length(body: HtmlElement, discussion: list[HtmlElement]) -> int:
    """A story's length outside ``discussion``: the most ``<p>`` text under one parent, or
    the most text one block without paragraphs holds directly between ``<br>`` breaks."""
    return max(_story_blocks(body, discussion).values(), default=0)


def _story_blocks(body: HtmlElement, discussion: list[HtmlElement]) -> Counter[HtmlElement]:
    """Outside ``discussion``: each parent of ``<p>`` with the length of its paragraphs,
    and each block without paragraphs with the text it holds between ``<br>`` breaks."""
    inside = set(discussion)
    by_parent: Counter[HtmlElement] = Counter()
    for paragraph in body.iter("p"):
        if not any(a in inside for a in paragraph.iterancestors()):
            by_parent[paragraph.getparent()] += _shown_length(paragraph)
    for line_break in body.iter("br"):
        block = line_break.getparent()
        if block is None or block in by_parent or any(a in inside for a in (block, *block.iterancestors())):
            continue
        by_parent[block] = text_length(" ".join([block.text or "", *(child.tail or "" for child in block)]))
    return by_parent


def _teasers(body: HtmlElement, table: NoiseTable) -> list[HtmlElement]:
    """The outermost teaser blocks (step 8), when the page keeps a story besides them."""
    headings = _teaser_headings(body)
    cards = _teaser_cards(body)
    stories = _story_blocks(body, []) if headings or cards else Counter()
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
            _shown_length(block) <= TEASER_CARDS_MAX_STORY_SHARE * story_length
            or all(_cut_short(card) for card in block.iterchildren("article"))
        )
    ]
    for heading in headings:
        for block in heading.iterancestors():
            if block in around_story or block.tag in PROTECTED_TAGS or block.find(".//h1") is not None:
                break
            if len({a.get("href") for a in _links(block)}) < TEASER_MIN_LINKS:
                continue
            if (
                _link_share(block) >= TEASER_MIN_LINK_SHARE
                and _shown_length(block) <= TEASER_MAX_STORY_SHARE * story_length
            ):
                found.append(block)
            break
    outermost = _outermost(found)
    if outermost and _story_length(body, outermost) >= table.min_story_besides_discussion:
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


def facet_panels(body: HtmlElement) -> list[HtmlElement]:
    """Step 5's filter panels on list pages: elements that ``FACET_WORDS`` name, with no
    ``<img>`` or ``<picture>`` and no text of more than ``FACET_MAX_TEXT_WORDS`` words
    (option labels, not a product grid or a section of prose)."""
    return [
        element
        for element in _marked(body, FACETS, frozenset())
        if element.find(".//img") is None
        and element.find(".//picture") is None
        and all(len(text.split()) <= FACET_MAX_TEXT_WORDS for text in element.itertext())
    ]


def photo_credits(body: HtmlElement) -> list[HtmlElement]:
    """The outermost elements whose whole text is a photo credit (step 9). Only the
    elements around a text node that starts like one are read (a regular expression on
    every small element's whole text costs twice as much)."""
    found = []
    for element in _text_holders(body, PHOTO_CREDIT.match):
        credit = None
        while element is not None and element is not body and element.tag not in HEADING_TAGS:
            text = normalize_space(element.text_content())
            if text_length(text) > PHOTO_CREDIT_MAX_LENGTH:
                break
            if PHOTO_CREDIT.match(text):
                credit = element
            element = element.getparent()
        if credit is not None:
            found.append(credit)
    return _outermost(found)


def control_labels(body: HtmlElement) -> list[HtmlElement]:
    """The outermost elements whose whole text is a control's label (step 10); not a
    heading, nor a link that running text follows. Only the elements around a text node
    that is one are read, as for photo credits."""
    found = []
    for element in _text_holders(body, is_control_label):
        if element is body or not is_control_label(element.text_content()):
            continue
        for ancestor in element.iterancestors():
            if ancestor is body or not is_control_label(ancestor.text_content()):
                break
            element = ancestor
        heading = element.tag in HEADING_TAGS or any(a.tag in HEADING_TAGS for a in element.iterancestors())
        if not heading and not (element.tail or "").strip():
            found.append(element)
    return _outermost(found)


def is_control_label(text: str) -> bool:
    """Whether ``text``, spaces aside, is a control's label (``CONTROL_LABELS``)."""
    return bool(CONTROL_LABELS.fullmatch(normalize_space(text)))


def is_reader_feedback(element: HtmlElement) -> bool:
    """Whether ``element``'s class or id names readers' feedback: comments, reviews,
    testimonials (``DISCUSSION_WORDS`` and those)."""
    return bool(READER_FEEDBACK.search(_noise_marker(element)))


def _text_holders(body: HtmlElement, accepts: Callable[[str], object]) -> list[HtmlElement]:
    """The element around each text node under ``body`` that ``accepts``: the element
    whose text it is, or the parent of the element whose tail it is."""
    holders = []
    for element in body.iterdescendants():
        if element.text and accepts(element.text):
            holders.append(element)
        if element.tail and accepts(element.tail):
            holders.append(element.getparent())
    return holders


def _sign_up_frame(form: HtmlElement, body: HtmlElement, limit: float) -> HtmlElement:
    """What goes with a short ``form``: its frame (the outermost ancestor below ``body`` of
    at most ``SIGN_UP_FRAME_MAX_LENGTH`` words, within ``limit``) when the frame's text
    names a sign-up, else the form alone."""
    frame = form
    for ancestor in form.iterancestors():
        if ancestor is body or text_length(ancestor.text_content()) > SIGN_UP_FRAME_MAX_LENGTH:
            break
        frame = ancestor
    if frame is form or _shown_length(frame) > limit or not SIGN_UP_WORDS.search(frame.text_content()):
        return form
    return frame


def _data_blocks(body: HtmlElement) -> list[HtmlElement]:
    """Elements outside code whose text, all of it, is a UUID or a JSON object or array of
    at least ``MIN_DATA_CHARS`` characters."""
    return [
        element
        for element in body.iter()
        if is_element(element)
        and not len(element)
        and _is_data((element.text or "").strip())
        and not any(node.tag in LITERAL_TAGS for node in (element, *element.iterancestors()))
    ]


def _is_data(text: str) -> bool:
    if UUID.fullmatch(text):
        return True
    if len(text) < MIN_DATA_CHARS or text[0] + text[-1] not in ("{}", "[]"):
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _empty_elements(body: HtmlElement) -> list[HtmlElement]:
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


def _remove_all(root: HtmlElement, elements: list[HtmlElement]) -> int:
    """Remove ``elements`` (tails kept); one inside an already removed one is skipped."""
    count = 0
    for element in elements:
        ancestors = list(element.iterancestors())
        top = ancestors[-1] if ancestors else element
        if top is root and element is not root:
            remove_keeping_tail(element)
            count += 1
    return count
