"""What the page-type model sees besides pixels: the page's layout, from the element
boxes the capture already has (``crawler/capture.py``: tag, classes, path, x/y/w/h in CSS
px, visible, text_len).

* :func:`layout_raster`: the whole page (every box, also below the screenshot's cut)
  squashed to ``RASTER_HEIGHT x RASTER_WIDTH`` cells, one channel per kind of element
  (:data:`RASTER_CHANNELS`), a cell 1 where such an element covers it (at least one
  cell per element), else 0.
* :func:`dom_statistics`: a few numbers a list page and an article differ in (links and
  their share of the text, repeated sibling groups, long paragraphs, headings, linked
  headings, the class names sites give teasers, pagination and excerpts), as
  :data:`DOM_STATISTICS` names them, log-scaled;
* :func:`url_statistics`: what the page's address says (``/category/``, ``/page/2``, a
  section path ending in ``/``, a dated slug), as :data:`URL_STATISTICS` names them;
* :func:`page_statistics`: both, in :data:`STATISTICS` order (the model's input).

All are cheap (no HTML parse): a few milliseconds for thousands of boxes. Adding the
class-name and address features took a gradient-boosted probe on WCXB dev's held-out
domains from 0.910 to 0.937 accuracy (list recall 0.55 to 0.69).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

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
#: Class-name fragments that sites use for what list pages and articles hold; each
#: counts the visible elements with a class matching it.
CLASS_HINTS = {
    "pagination": r"pagination|page-numbers|nav-links|pager|paging",
    "excerpt": r"excerpt|summary|teaser|snippet|intro",
    "card": r"card|tile|grid",
    "read_more": r"read-?more|more-link|continue",
    "post": r"post|entry",
    "item": r"item",
    "product": r"product|price|cart",
    "comment": r"comment|reply",
    "author": r"author|byline",
    "share": r"share|social",
    "breadcrumb": r"breadcrumb",
    "sidebar": r"sidebar|widget",
    "taxonomy": r"tag|categor|archive",
    "meta": r"meta|date|time",
}
_CLASS_HINT_PATTERNS = {name: re.compile(pattern) for name, pattern in CLASS_HINTS.items()}
_TAXONOMY_PATH = re.compile(r"/(category|categories|tag|tags|topics?|archives?|section|author)/")
_PAGINATION_URL = re.compile(r"/page/\d+|[?&]page=")
_SECTION_PATH = re.compile(r"/(blog|news|articles|posts|stories|press|resources|insights)/?$")
_DATED_PATH = re.compile(r"\d{4}/\d{2}")
_INDEX = re.compile(r"\[\d+\]")

DOM_STATISTICS = (
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
    "linked_headings",
    "linked_heading_share",
    "largest_linked_heading_group",
    "articles_with_links",
    *(f"class_{name}" for name in CLASS_HINTS),
)
URL_STATISTICS = (
    "url_depth",
    "url_ends_with_slash",
    "url_taxonomy",
    "url_pagination",
    "url_section",
    "url_dated",
    "url_slug_length",
    "url_slug_words",
    "url_query",
    "url_root",
)
STATISTICS = DOM_STATISTICS + URL_STATISTICS


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


def page_statistics(boxes: Sequence[dict[str, Any]], width: int, url: str) -> np.ndarray:
    """The :data:`STATISTICS` of a page (its boxes and its address), float32."""
    return np.concatenate([dom_statistics(boxes, width), url_statistics(url)])


def url_statistics(url: str) -> np.ndarray:
    """The :data:`URL_STATISTICS` of an address, float32."""
    parts = urlsplit(url)
    path = parts.path.lower()
    segments = [segment for segment in path.split("/") if segment]
    slug = segments[-1] if segments else ""
    values = {
        "url_depth": math.log1p(len(segments)),
        "url_ends_with_slash": float(path.endswith("/") and bool(segments)),
        "url_taxonomy": float(bool(_TAXONOMY_PATH.search(path))),
        "url_pagination": float(bool(_PAGINATION_URL.search(url.lower()))),
        "url_section": float(bool(_SECTION_PATH.search(path))),
        "url_dated": float(bool(_DATED_PATH.search(path))),
        "url_slug_length": math.log1p(len(slug)),
        "url_slug_words": math.log1p(slug.count("-") + slug.count("_")),
        "url_query": float(bool(parts.query)),
        "url_root": float(not segments),
    }
    return np.asarray([values[name] for name in URL_STATISTICS], dtype=np.float32)


def dom_statistics(boxes: Sequence[dict[str, Any]], width: int) -> np.ndarray:
    """The :data:`DOM_STATISTICS` of a page, float32, counts as log1p."""
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

    headings = [b for b in visible if b["tag"] in HEADING_TAGS]
    linked_headings = [b for b in headings if b["path"] in holds_link]
    linked_heading_groups = Counter(_INDEX.sub("", b["path"]) for b in linked_headings)
    class_hints = Counter(
        name
        for box in visible
        for name, pattern in _CLASS_HINT_PATTERNS.items()
        if any(pattern.search(c.lower()) for c in box.get("classes") or ())
    )

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
        "linked_headings": math.log1p(len(linked_headings)),
        "linked_heading_share": len(linked_headings) / len(headings) if headings else 0.0,
        "largest_linked_heading_group": math.log1p(largest(linked_heading_groups)),
        "articles_with_links": math.log1p(
            sum(1 for b in visible if b["tag"] == "article" and b["path"] in holds_link)
        ),
        **{f"class_{name}": math.log1p(class_hints[name]) for name in CLASS_HINTS},
    }
    return np.asarray([values[name] for name in DOM_STATISTICS], dtype=np.float32)
