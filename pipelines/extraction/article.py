"""Article pages: the I-AWCE "same-depth text length standard deviation" algorithm."""

from __future__ import annotations

from statistics import pstdev

from pipelines.extraction.dom import HtmlElement, is_element
from pipelines.extraction.lengths import TextLengths

#: Gap (in words, or CJK characters) between the two longest children above which the
#: earlier of the two is the content (the paper's constant).
PAPER_GAP = 100


def article_element_paper(element: HtmlElement, lengths: TextLengths) -> HtmlElement:
    """The paper's ArticleExtract(element), returning the element whose text is the content.

    - no children: the parent's text;
    - one child: recurse into it;
    - else, with m1, m2 the two children with the longest texts (l1 >= l2) and std the
      population standard deviation of all children's text lengths:
      if l1 - l2 > std: return the earlier of m1, m2 in document order when
      l1 - l2 > 100 (the paper's pseudocode has a typo there, "m2.text0"), else the
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
            if gap > PAPER_GAP:
                return children[min(first, second)]
            return element
        element = children[first]


#: Share of its parent's text a child must hold to be descended into, for article pages
#: (text outside links) and list pages (all text: links are a list's content). Measured
#: on WCXB dev's tune split, see README "Extraction".
ARTICLE_SHARE = 0.7
LIST_SHARE = 0.8


def content_element(
    element: HtmlElement, lengths: TextLengths, share: float = ARTICLE_SHARE, count_links: bool = False
) -> HtmlElement:
    """The improved descent: go into the child holding the most text while it holds at
    least ``share`` of its parent's; stop where the text spreads over several children.

    Text inside links is left out of the measure unless ``count_links`` (list pages).
    """
    measure = lengths.__getitem__ if count_links else lengths.unlinked
    while True:
        children = [child for child in element if is_element(child)]
        if not children:
            return element
        best = max(children, key=measure)
        best_length = measure(best)
        if not best_length or best_length < share * measure(element):
            return element
        element = best
