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
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

from pyquery import PyQuery

from pipelines.extraction.denoise.boilerplate import (
    chrome_outside_content,
    declared_description_holders,
    facet_panels,
    is_reader_feedback,
    marked_elements,
    noise_by_class,
)
from pipelines.extraction.denoise.copies import duplicate_copies, quoted_copies, twin_copies
from pipelines.extraction.denoise.discussion import discussion_blocks, post_chrome, reply_subjects
from pipelines.extraction.denoise.empty import empty_elements
from pipelines.extraction.denoise.hidden import invisible_elements, trusted_hidden, unwrap_script_fallback
from pipelines.extraction.denoise.labels import control_labels, is_control_label, photo_credits
from pipelines.extraction.denoise.teasers import teaser_blocks
from pipelines.extraction.denoise.tree import remove_all, shown_length
from pipelines.extraction.denoise.vocabulary import NOISE_TABLES, NoiseTable, marker_pattern
from pipelines.extraction.denoise.widgets import data_blocks, page_forms, sign_up_frame
from pipelines.extraction.dom import HtmlElement, body_of
from pipelines.extraction.lengths import text_length
from pipelines.extraction.metadata import Declarations, page_declarations

__all__ = [
    "NOISE_TABLES",
    "NoiseTable",
    "control_labels",
    "denoise",
    "denoiser_fingerprint",
    "invisible_elements",
    "is_control_label",
    "is_reader_feedback",
    "trusted_hidden",
    "unwrap_script_fallback",
]

#: Steps 3 to 5 leave an element alone when it holds more than this share of the page's
#: text: that is misnested markup (an unclosed <header> that swallowed the page), not noise.
MAX_REMOVED_SHARE = 0.7


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
        return remove_all(root, [element for element in elements if element not in spared])

    if boxes:
        removed["invisible"] = remove(trusted_hidden(root, boxes))
    removed["noscript unwrapped"] = unwrap_script_fallback(body_of(root))
    body = body_of(root)
    limit = MAX_REMOVED_SHARE * shown_length(body)

    def small(elements: list[HtmlElement]) -> list[HtmlElement]:
        # A text is never longer than its characters: most elements pass on those alone.
        return [el for el in elements if len(el.text_content()) <= limit or shown_length(el) <= limit]

    removed["tag"] = remove(small(list(PyQuery(root)(",".join(table.tags)))))
    removed["data"] = remove(data_blocks(body))
    removed["form"] = remove(
        [
            sign_up_frame(form, body, limit) if table.sign_up_frames else form
            for form in page_forms(body)
            if text_length(form.text_content()) <= table.form_max_length
        ],
    )
    if table.chrome_outside_content:
        removed["chrome"] = remove(small(chrome_outside_content(body)))
    removed["class"] = remove(small(noise_by_class(body, table)))
    if table.facet_panels:
        removed["facets"] = remove(small(facet_panels(body)))
    if product:
        removed["product"] = remove(
            small(marked_elements(body, marker_pattern(table.product_words), frozenset()))
        )
    # A copy's removal leaves its twin: these steps need not spare the description.
    removed["duplicate"] = remove_all(root, duplicate_copies(body))
    if table.twin_copies:
        removed["twin"] = remove_all(root, twin_copies(body))
    removed["quoted"] = remove_all(root, quoted_copies(body))
    if table.reply_subjects:
        removed["reply subject"] = remove(reply_subjects(body))
    if table.post_chrome:
        removed["post chrome"] = remove(small(post_chrome(body)))
    if table.discussion_words and not thread:
        removed["discussion"] = remove(discussion_blocks(body, table))
    if table.teaser_headings:
        removed["teaser"] = remove(teaser_blocks(body, table))
    if table.photo_credits:
        removed["photo credit"] = remove(photo_credits(body))
    if table.control_labels:
        removed["control label"] = remove(control_labels(body))
    removed["empty"] = remove(empty_elements(body_of(root)))
    return +removed
