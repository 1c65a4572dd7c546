"""What the page-type model sees besides pixels: the page's layout, from the element
boxes the capture already has (``crawler/capture.py``: tag, classes, path, x/y/w/h in CSS
px, visible, text_len).

* :func:`layout_raster`: the whole page (every box, also below the screenshot's cut)
  squashed to ``RASTER_HEIGHT x RASTER_WIDTH`` cells, one channel per kind of element
  (:data:`RASTER_CHANNELS`), a cell 1 where such an element covers it (at least one
  cell per element), else 0.
* :func:`dom_statistics`: a few numbers a list page and an article differ in (links and
  their share of the text, repeated sibling groups, long paragraphs, headings), as
  :data:`STATISTICS` names them, log-scaled.

Both are cheap (no HTML parse): a few milliseconds for thousands of boxes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

RASTER_HEIGHT = 128
RASTER_WIDTH = 48
RASTER_CHANNELS = ("text", "link", "heading", "image", "list", "item")
TEXT_TAGS = frozenset(
    {"p", "li", "td", "th", "dd", "dt", "blockquote", "pre", "span", "label", "figcaption", "time"}
)
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
IMAGE_TAGS = frozenset({"img", "svg", "picture", "video", "canvas", "iframe"})
LIST_TAGS = frozenset({"ul", "ol", "dl", "table"})
ITEM_TAGS = frozenset({"li", "article", "tr", "dt"})
#: A paragraph this long (characters) reads as running text.
LONG_PARAGRAPH = 150
#: Sibling groups count elements with at least this much text.
GROUP_MIN_TEXT = 20

STATISTICS = (
    "links",
    "link_text_share",
    "text_length",
    "long_paragraphs",
    "longest_paragraph",
    "paragraph_text_share",
    "first_long_paragraph_y",
    "h1",
    "h2",
    "h3_h6",
    "images",
    "list_items",
    "articles",
    "times",
    "largest_sibling_group",
    "largest_sibling_group_with_links",
    "largest_same_class_group",
    "page_height_ratio",
    "link_area_share",
)


def _channels(tag: str) -> list[int]:
    found = []
    if tag in TEXT_TAGS:
        found.append(0)
    if tag == "a":
        found.append(1)
    if tag in HEADING_TAGS:
        found.append(2)
    if tag in IMAGE_TAGS:
        found.append(3)
    if tag in LIST_TAGS:
        found.append(4)
    if tag in ITEM_TAGS:
        found.append(5)
    return found


def _ancestors(path: str) -> list[str]:
    """``/html/body/div/a`` → ``/html/body/div``, ``/html/body``, ``/html``."""
    parts = path.split("/")
    return ["/".join(parts[:end]) for end in range(2, len(parts))]


def page_extent(boxes: Sequence[dict[str, Any]], width: int) -> tuple[float, float]:
    """(width, height) of the page in CSS px: the viewport width and the lowest box."""
    height = max((b["y"] + b["h"] for b in boxes if b.get("visible")), default=0.0)
    return float(width), float(max(height, 1.0))


def layout_raster(boxes: Sequence[dict[str, Any]], width: int) -> np.ndarray:
    """``(len(RASTER_CHANNELS), RASTER_HEIGHT, RASTER_WIDTH)`` float32 masks (0 or 1)."""
    page_width, page_height = page_extent(boxes, width)
    raster = np.zeros((len(RASTER_CHANNELS), RASTER_HEIGHT, RASTER_WIDTH), dtype=np.float32)
    scale_y, scale_x = RASTER_HEIGHT / page_height, RASTER_WIDTH / page_width
    for box in boxes:
        if not box.get("visible"):
            continue
        channels = _channels(box["tag"])
        if not channels or (channels == [0] and not box.get("text_len")):
            continue
        r0 = min(int(box["y"] * scale_y), RASTER_HEIGHT - 1)
        c0 = min(int(box["x"] * scale_x), RASTER_WIDTH - 1)
        r1 = max(round((box["y"] + box["h"]) * scale_y), r0 + 1)
        c1 = max(round(min(box["x"] + box["w"], page_width) * scale_x), c0 + 1)
        raster[channels, r0:r1, c0:c1] = 1.0
    return raster


def dom_statistics(boxes: Sequence[dict[str, Any]], width: int) -> np.ndarray:
    """The :data:`STATISTICS` of a page, float32, counts as log1p."""
    visible = [b for b in boxes if b.get("visible")]
    page_width, page_height = page_extent(boxes, width)
    tags = Counter(b["tag"] for b in visible)
    text_length = max((b.get("text_len", 0) for b in boxes), default=0)
    links = [b for b in visible if b["tag"] == "a"]
    link_text = sum(b.get("text_len", 0) for b in links)
    paragraphs = [b for b in visible if b["tag"] == "p"]
    long_paragraphs = [b for b in paragraphs if b.get("text_len", 0) >= LONG_PARAGRAPH]
    paragraph_text = sum(b.get("text_len", 0) for b in paragraphs)
    first_long = min((b["y"] for b in long_paragraphs), default=page_height) / page_height
    link_area = sum(b["w"] * b["h"] for b in links) / (page_width * page_height)

    siblings: Counter[tuple[str, str, tuple[str, ...]]] = Counter()
    siblings_with_links: Counter[tuple[str, str, tuple[str, ...]]] = Counter()
    same_class: Counter[tuple[int, str, tuple[str, ...]]] = Counter()
    holds_link = {ancestor for b in links for ancestor in _ancestors(b["path"])}
    for box in visible:
        if box.get("text_len", 0) < GROUP_MIN_TEXT or box["tag"] == "a":
            continue
        path = box["path"]
        parent = path.rsplit("/", 1)[0]
        key = (parent, box["tag"], tuple(box.get("classes") or ()))
        siblings[key] += 1
        if path in holds_link:
            siblings_with_links[key] += 1
        if box.get("classes"):
            same_class[(path.count("/"), box["tag"], tuple(box["classes"]))] += 1

    def largest(counter: Counter[Any]) -> int:
        return max(counter.values(), default=0)

    values = {
        "links": math.log1p(len(links)),
        "link_text_share": link_text / text_length if text_length else 0.0,
        "text_length": math.log1p(text_length),
        "long_paragraphs": math.log1p(len(long_paragraphs)),
        "longest_paragraph": math.log1p(max((b.get("text_len", 0) for b in paragraphs), default=0)),
        "paragraph_text_share": min(paragraph_text / text_length, 1.0) if text_length else 0.0,
        "first_long_paragraph_y": first_long,
        "h1": math.log1p(tags["h1"]),
        "h2": math.log1p(tags["h2"]),
        "h3_h6": math.log1p(sum(tags[t] for t in ("h3", "h4", "h5", "h6"))),
        "images": math.log1p(sum(tags[t] for t in IMAGE_TAGS)),
        "list_items": math.log1p(tags["li"]),
        "articles": math.log1p(tags["article"]),
        "times": math.log1p(tags["time"]),
        "largest_sibling_group": math.log1p(largest(siblings)),
        "largest_sibling_group_with_links": math.log1p(largest(siblings_with_links)),
        "largest_same_class_group": math.log1p(largest(same_class)),
        "page_height_ratio": math.log(page_height / page_width),
        "link_area_share": min(link_area, 1.0),
    }
    return np.asarray([values[name] for name in STATISTICS], dtype=np.float32)
