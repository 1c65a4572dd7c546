"""Which document to extract from when the render was cut off at the load deadline.

A page whose load event never came is captured as rendered at the deadline. When a
parser-blocking script never arrived, the parser stopped there, often before the body's
content: the rendered DOM then holds a fraction of the text the server sent (a WCXB dev
page rendered 3 of the 1,630 words in its bytes). The server's bytes, stored beside the
render, are then the better input.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.lengths import subtree_lengths

#: A cut-off render showing less than this share of the text in the server's bytes
#: stopped before the content.
MIN_RENDERED_SHARE = 0.5


@dataclass(frozen=True)
class RenderShortfall:
    """Body text lengths (words; CJK characters) of the render and of the server's bytes."""

    rendered: int
    sent: int


def body_text_length(html: str) -> int:
    """Text length of the document's body, scripts and styles left out."""
    root = parse_html(html)
    if root is None:
        return 0
    body = body_of(root)
    return subtree_lengths(body)[body]


def render_shortfall(rendered_html: str, sent_html: str) -> RenderShortfall | None:
    """The lengths when the render shows less than ``MIN_RENDERED_SHARE`` of the text
    of the document the server sent, else None."""
    sent = body_text_length(sent_html)
    rendered = body_text_length(rendered_html)
    if sent and rendered < MIN_RENDERED_SHARE * sent:
        return RenderShortfall(rendered, sent)
    return None
