"""Article or list, decided from the HTML alone: the fallback when no classifier ran
(``Page.page_type`` None, ``scrapy extract --page-type auto``)."""

from __future__ import annotations

from pipelines.extraction.dom import HtmlElement
from pipelines.extraction.lengths import subtree_lengths
from pipelines.extraction.page import ARTICLE, LIST

#: A page whose denoised text is more than this share link text is a list.
LIST_LINK_SHARE = 0.5


def guess_page_type(body: HtmlElement) -> str:
    """"list" when most of the (list-denoised) body's text sits in links, else "article".

    On WCXB dev's tune split this is right on 90% of the pages (listing and collection
    count as lists), and extraction with the guessed type scores 0.860 word F1 against
    0.862 with the true type. Rules adding the share of the text the article descent
    keeps, or the repeated-block coverage, did not do better.
    """
    lengths = subtree_lengths(body)
    total = lengths[body]
    if not total:
        return ARTICLE
    return LIST if lengths.linked.get(body, 0) / total > LIST_LINK_SHARE else ARTICLE
