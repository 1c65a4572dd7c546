"""Article pages: the I-AWCE "same-depth text length standard deviation" algorithm."""

from __future__ import annotations

import re
from collections.abc import Callable
from statistics import pstdev

from pipelines.extraction.dom import BLOCK_TAGS, HtmlElement, is_element
from pipelines.extraction.lengths import TextLengths
from pipelines.extraction.options import IawceOptions

#: The improved descent leaves preformatted text out of its measure while an element
#: holds at least this many words of other text (:func:`content_element`). iawce on WCXB
#: dev, word F1, pages of the five article-like types, training / validation domains:
#: 0.9056 / 0.8649 counting it, 0.9062 / 0.8658 without (4 pages better, none worse:
#: klaviyo.com's hidden ``<pre>`` copy of the article 0.62 -> 0.98, a forum thread with
#: a long log in one post 0.16 -> 0.27); the same at 0 and at 50, 0.8655 on validation
#: at 150. Without the guard a page that is one code listing under a title would descend
#: into the title.
MIN_PROSE = 50
#: A class name that marks a post of a thread (:func:`repeated_after`): post, message,
#: reply, comment, answer or entry as a word of it (``message--post``, ``sectionMain
#: message``, ``comment-body``), not a page builder's generic component (``paragraph``,
#: ``section``), whose like-named siblings are related cards as often as the rest of a story.
POST_CLASS = re.compile(
    r"(?:^|[\s_-])(?:post|message|reply|replies|comment|answer|entry)s?(?:$|[\s_-])", re.IGNORECASE
)


def descent_start(body: HtmlElement, lengths: TextLengths, share: float) -> HtmlElement:
    """Where the improved descent starts on an article: the page's one outermost
    ``<main>`` (or ``role="main"``) when it holds at least ``share`` of the text outside
    links (``IawceOptions.main_share``), else ``body``. From the body, a footer or
    sidebar that no markup names and that is longer than the story stops the descent
    there."""
    mains = [el for el in body.iter("*") if el.tag == "main" or el.get("role", "").lower() == "main"]
    outermost = [el for el in mains if not any(a in mains for a in el.iterancestors())]
    if len(outermost) == 1 and lengths.unlinked(outermost[0]) >= share * lengths.unlinked(body):
        return outermost[0]
    return body


def article_element_paper(element: HtmlElement, lengths: TextLengths, gap_words: int) -> HtmlElement:
    """The paper's ArticleExtract(element), returning the element whose text is the content.

    - no children: the parent's text;
    - one child: recurse into it;
    - else, with m1, m2 the two children with the longest texts (l1 >= l2) and std the
      population standard deviation of all children's text lengths:
      if l1 - l2 > std: return the earlier of m1, m2 in document order when
      l1 - l2 > ``gap_words`` (the paper's 100, ``IawceOptions.paper_gap``; its pseudocode has a typo there, "m2.text0"), else the
      element itself; otherwise recurse into m1.

    ``lengths`` holds each element's language-aware text length (``subtree_lengths``).
    """
    while True:
        children = [child for child in element if is_element(child)]
        if not children:
            parent = element.getparent()
            return parent if parent is not None else element
        if len(children) == 1:
            element = children[0]
            continue
        child_lengths = [lengths[child] for child in children]
        # Stable sort: among equal lengths the earlier child ranks first.
        first, second = sorted(range(len(children)), key=lambda i: child_lengths[i], reverse=True)[:2]
        gap = child_lengths[first] - child_lengths[second]
        if gap > pstdev(child_lengths):
            if gap > gap_words:
                return children[min(first, second)]
            return element
        element = children[first]


def content_element(
    element: HtmlElement,
    lengths: TextLengths,
    share: float,
    count_links: bool = False,
    article: IawceOptions | None = None,
) -> HtmlElement:
    """The improved descent: go into the child holding the most text while it holds at
    least ``share`` of its parent's (``IawceOptions.article_share``/``list_share``); stop
    where the text spreads over several children, and, given the ``article`` options
    (articles), where the children before that child are the content's lead
    (:func:`leads`) or the ones after it repeat it (:func:`repeated_after`).

    Text inside links is left out of the measure unless ``count_links`` (list pages), and
    so is preformatted text (``<pre>``) while the element holds ``MIN_PROSE`` words
    besides it: a long log in one forum post, or a hidden raw copy of the article, does
    not draw the descent away from the rest.
    """
    with_code = lengths.__getitem__ if count_links else lengths.unlinked

    def prose(el: HtmlElement) -> int:
        return with_code(el) - lengths.preformatted.get(el, 0)

    while True:
        children = [child for child in element if is_element(child)]
        if not children:
            return element
        measure = prose if prose(element) >= MIN_PROSE else with_code
        best = max(children, key=measure)
        best_length, total = measure(best), measure(element)
        if not best_length or best_length < share * total:
            return element
        at = children.index(best)
        if article is not None and (
            leads(children[:at], total, measure, lengths, article)
            or repeated_after(best, children[at + 1 :], total, measure, lengths, article)
        ):
            return element
        element = best


def leads(
    before: list[HtmlElement],
    total: int,
    measure: Callable[[HtmlElement], int],
    lengths: TextLengths,
    options: IawceOptions,
) -> bool:
    """Whether the children ``before`` the one that holds most of an element's text
    (``total``, by ``measure``) are its lead: those that hold a paragraph of at least
    ``options.lead_paragraph_words`` words together hold ``options.lead_words`` words and
    ``options.lead_share`` of the text. A question above its answers, a thread's first
    post above the replies, a product's or service's pitch above its details, a
    standfirst above the story."""
    least = max(options.lead_words, options.lead_share * total)
    sizes = [measure(child) for child in before]
    if sum(sizes) < least:
        return False
    paragraph = options.lead_paragraph_words
    return (
        sum(
            n
            for child, n in zip(before, sizes, strict=True)
            if n and _holds_paragraph(child, lengths, paragraph)
        )
        >= least
    )


def repeated_after(
    best: HtmlElement,
    after: list[HtmlElement],
    total: int,
    measure: Callable[[HtmlElement], int],
    lengths: TextLengths,
    options: IawceOptions,
) -> bool:
    """Whether the children ``after`` the one that holds most of an element's text
    (``best``, a post by its class: ``POST_CLASS``) repeat it: at least
    ``options.repeat_siblings`` of them have its tag and first class name and hold a
    paragraph, and those siblings are a lead's size (:func:`leads`). A thread's replies
    after its longest post: the longest is not the content alone."""
    classes = best.get("class") or ""
    if not POST_CLASS.search(classes):
        return False
    first_name = classes.split()[:1]
    paragraph = options.lead_paragraph_words
    repeats = [
        child
        for child in after
        if child.tag == best.tag
        and (child.get("class") or "").split()[:1] == first_name
        and _holds_paragraph(child, lengths, paragraph)
    ]
    return len(repeats) >= options.repeat_siblings and leads(repeats, total, measure, lengths, options)


def _holds_paragraph(element: HtmlElement, lengths: TextLengths, words: int) -> bool:
    """Whether ``element`` or a descendant without block children holds ``words`` words:
    prose, not a menu of short links or labels."""
    return any(
        lengths[node] >= words and not any(is_element(child) and child.tag in BLOCK_TAGS for child in node)
        for node in element.iter()
        if is_element(node)
    )
