"""Article or list, decided from the HTML alone (the fallback when no classifier ran)."""

from __future__ import annotations

from pipelines.extraction.dom import HtmlElement
from pipelines.extraction.lengths import subtree_lengths
from pipelines.extraction.page import ARTICLE, LIST
from pipelines.extraction.textlen import text_length


def guess_page_type(body: HtmlElement) -> str:
    """"list" when most of the denoised body's text sits in links, else "article"."""
    lengths = subtree_lengths(body)
    total = lengths[body]
    if not total:
        return ARTICLE
    linked = sum(text_length(a.text_content()) for a in body.iter("a"))
    return LIST if linked / total > 0.5 else ARTICLE
