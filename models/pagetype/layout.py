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
* :func:`layout_statistics`: the page as a person sees it (a grid or stack of same-size
  cards, each a link with a heading or a picture, against one tall column of text; links
  on the first screen and below it; headings per screen), as :data:`LAYOUT_STATISTICS`
  names them;
* :func:`url_statistics`: what the page's address says (``/category/``, ``/page/2``, a
  section path ending in ``/``, a dated slug), as :data:`URL_STATISTICS` names them;
* :func:`models.pagetype.markup.markup_statistics`: what the page's HTML declares
  (schema.org types, ``og:type``, code blocks, forms, prices), as
  :data:`~models.pagetype.markup.MARKUP_STATISTICS` names them;
* :func:`page_statistics`: the groups a model reads (:data:`STATISTICS_GROUPS`: ``dom``,
  ``layout``, ``url``, ``markup``), in that order (the model's input; checkpoints that
  record no groups read :data:`DEFAULT_STATISTICS_GROUPS`).

All but ``markup`` are cheap (no HTML parse): a few milliseconds for thousands of boxes. Adding the
class-name and address features took a gradient-boosted probe on WCXB dev's held-out
domains from 0.910 to 0.937 accuracy (list recall 0.55 to 0.69).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from models.pagetype.markup import MARKUP_STATISTICS, markup_statistics

#: The version of what these functions compute; a model card records the one its
#: checkpoint was trained with. tests/models/pagetype/test_pagenet.py pins their output on fixed
#: boxes: when it changes, bump this and re-measure (or retrain) the shipped page-type models.
FEATURES_VERSION = 1
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
#: A screen's height over its width (the crawl's 1366 x 768 viewport).
SCREEN_ASPECT = 768 / 1366
#: Repeated blocks are measured on this many first screens.
GRID_SCREENS = 3
#: A block smaller than this (CSS px) is no card.
MIN_BLOCK_WIDTH, MIN_BLOCK_HEIGHT = 60.0, 30.0
#: Siblings of the same size: widths within this ratio of the group's first member, and
#: heights within ``HEIGHT_TOLERANCE`` (teasers in a stack differ in height).
WIDTH_TOLERANCE, HEIGHT_TOLERANCE = 0.05, 0.5
#: A group of at least this many same-size cards counts as a grid or stack of teasers.
MIN_CARDS = 3
#: Images smaller than this (CSS px, both sides) are icons.
MIN_IMAGE_SIDE = 50.0
PICTURE_TAGS = frozenset({"img", "picture", "video"})

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
LAYOUT_STATISTICS = (
    "card_group",
    "card_group_area_share",
    "card_group_columns",
    "card_group_image_share",
    "card_group_heading_share",
    "card_groups",
    "same_size_group",
    "same_size_group_area_share",
    "first_screen_link_share",
    "lower_link_share",
    "text_block_height_share",
    "text_block_text_share",
    "headings_per_screen",
    "images_first_screens",
    "largest_image_share",
)
STATISTICS_GROUPS = {
    "dom": DOM_STATISTICS,
    "layout": LAYOUT_STATISTICS,
    "url": URL_STATISTICS,
    "markup": MARKUP_STATISTICS,
}
#: The groups a statistics branch reads unless its checkpoint records others.
DEFAULT_STATISTICS_GROUPS = ("dom", "url")


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


def statistics_groups(groups: Sequence[str]) -> tuple[str, ...]:
    """Statistics groups in :data:`STATISTICS_GROUPS` order; ValueError for an unknown or
    empty choice."""
    unknown = sorted(set(groups) - set(STATISTICS_GROUPS))
    if not groups or unknown:
        raise ValueError(
            f"statistics groups must be a non-empty subset of {list(STATISTICS_GROUPS)}, got {list(groups)}"
        )
    return tuple(name for name in STATISTICS_GROUPS if name in groups)


def statistics_names(groups: Sequence[str] = DEFAULT_STATISTICS_GROUPS) -> tuple[str, ...]:
    """The names of the statistics that :func:`page_statistics` gives for ``groups``."""
    return tuple(name for group in statistics_groups(groups) for name in STATISTICS_GROUPS[group])


def page_statistics(
    boxes: Sequence[dict[str, Any]],
    width: int,
    url: str,
    groups: Sequence[str] = DEFAULT_STATISTICS_GROUPS,
    html: str = "",
) -> np.ndarray:
    """A page's statistics (its boxes, its address and, for ``markup``, its rendered HTML)
    of ``groups``, float32, in the order of :func:`statistics_names`."""
    compute = {
        "dom": lambda: dom_statistics(boxes, width),
        "layout": lambda: layout_statistics(boxes, width),
        "url": lambda: url_statistics(url),
        "markup": lambda: markup_statistics(html),
    }
    return np.concatenate([compute[group]() for group in statistics_groups(groups)])


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


def _same_size_groups(blocks: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Sibling blocks of the same size (:data:`WIDTH_TOLERANCE`, :data:`HEIGHT_TOLERANCE`),
    groups of two or more, each in document order."""
    by_parent: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
    for block in blocks:
        by_parent[block["path"].rsplit("/", 1)[0]].append(block)
    groups: list[list[dict[str, Any]]] = []
    step = math.log1p(WIDTH_TOLERANCE)
    for children in by_parent.values():
        # clusters by width bucket, so that a child is compared with near widths only
        buckets: defaultdict[int, list[list[dict[str, Any]]]] = defaultdict(list)
        clusters: list[list[dict[str, Any]]] = []
        for child in children:
            bucket = round(math.log(child["w"]) / step)
            near = (c for b in (bucket - 1, bucket, bucket + 1) for c in buckets.get(b, ()))
            for cluster in near:
                first = cluster[0]
                if (
                    abs(child["w"] - first["w"]) <= WIDTH_TOLERANCE * first["w"]
                    and abs(child["h"] - first["h"]) <= HEIGHT_TOLERANCE * first["h"]
                ):
                    cluster.append(child)
                    break
            else:
                clusters.append([child])
                buckets[bucket].append(clusters[-1])
        groups.extend(cluster for cluster in clusters if len(cluster) > 1)
    return groups


def _area_within(blocks: Sequence[dict[str, Any]], bottom: float) -> float:
    """The area of the blocks above ``bottom`` (CSS px²), the part below cut off."""
    return float(sum(b["w"] * max(0.0, min(b["y"] + b["h"], bottom) - b["y"]) for b in blocks))


def _link_share(links: Sequence[dict[str, Any]], own_text: Sequence[tuple[dict[str, Any], int]]) -> float:
    text = sum(length for _, length in own_text)
    return min(sum(b.get("text_len", 0) for b in links) / text, 1.0) if text else 0.0


def layout_statistics(boxes: Sequence[dict[str, Any]], width: int) -> np.ndarray:
    """The :data:`LAYOUT_STATISTICS` of a page, float32: what a person sees of it.

    A list page is a grid or stack of same-size sibling blocks (cards), each holding a link
    and often a heading or a picture; an article is one tall column of text. Card groups:
    the largest group of same-size siblings whose members all hold a link and a heading or
    a picture (its size, the share of the first :data:`GRID_SCREENS` screens it covers, its
    columns), and how many such groups there are; the largest same-size group of any
    blocks with text; the share of the visible text in links on the first screen and
    below it; the text block (the parent of the most paragraph text): its height and text
    shares; headings per screen; pictures on the first screens and the largest one's share
    of a screen."""
    visible = [b for b in boxes if b.get("visible")]
    page_width, page_height = page_extent(boxes, width)
    screen = page_width * SCREEN_ASPECT
    top = screen * GRID_SCREENS
    top_area = page_width * min(top, page_height)

    def ancestors_of(tags: frozenset[str]) -> set[str]:
        return {a for b in visible if b["tag"] in tags for a in _ancestors(b["path"])}

    holds_link = ancestors_of(frozenset({"a"}))
    holds_heading = ancestors_of(HEADING_TAGS)
    holds_picture = ancestors_of(PICTURE_TAGS)
    blocks = [
        b
        for b in visible
        if b["w"] >= MIN_BLOCK_WIDTH
        and b["h"] >= MIN_BLOCK_HEIGHT
        and b["tag"] not in IMAGE_TAGS
        and (b.get("text_len", 0) > 0 or b["path"] in holds_picture)
    ]
    groups = _same_size_groups(blocks)

    def is_card(b: dict[str, Any]) -> bool:
        linked = b["tag"] == "a" or b["path"] in holds_link
        return linked and (b["path"] in holds_heading or b["path"] in holds_picture)

    card_groups = [g for g in groups if sum(map(is_card, g)) >= MIN_CARDS and all(map(is_card, g))]
    cards = max(card_groups, key=lambda g: (_area_within(g, top), len(g)), default=[])
    texts = [g for g in groups if all(b.get("text_len", 0) >= GROUP_MIN_TEXT for b in g)]
    same_size = max(texts, key=lambda g: (_area_within(g, top), len(g)), default=[])

    child_text: Counter[str] = Counter()
    for b in boxes:
        child_text[b["path"].rsplit("/", 1)[0]] += b.get("text_len", 0)
    own_text = [(b, max(0, b.get("text_len", 0) - child_text[b["path"]])) for b in visible]
    links = [b for b in visible if b["tag"] == "a"]

    def above(b: dict[str, Any]) -> bool:
        return bool(b["y"] + b["h"] / 2 < screen)

    paragraph_text: Counter[str] = Counter()
    for b in visible:
        if b["tag"] == "p" and b.get("text_len", 0) >= LONG_PARAGRAPH:
            paragraph_text[b["path"].rsplit("/", 1)[0]] += b["text_len"]
    text_block = max(paragraph_text, key=paragraph_text.__getitem__, default=None)
    block_height = next((b["h"] for b in visible if b["path"] == text_block), 0.0)
    total_text = max((b.get("text_len", 0) for b in boxes), default=0)
    headings = [b for b in visible if b["tag"] in HEADING_TAGS and b.get("text_len", 0)]
    pictures = [b for b in visible if b["tag"] in PICTURE_TAGS and min(b["w"], b["h"]) >= MIN_IMAGE_SIDE]

    values = {
        "card_group": math.log1p(len(cards)),
        "card_group_area_share": min(_area_within(cards, top) / top_area, 1.0),
        "card_group_columns": math.log1p(len({round(b["x"] / 10) for b in cards})),
        "card_group_image_share": sum(b["path"] in holds_picture for b in cards) / len(cards)
        if cards
        else 0.0,
        "card_group_heading_share": sum(b["path"] in holds_heading for b in cards) / len(cards)
        if cards
        else 0.0,
        "card_groups": math.log1p(len(card_groups)),
        "same_size_group": math.log1p(len(same_size)),
        "same_size_group_area_share": min(_area_within(same_size, top) / top_area, 1.0),
        "first_screen_link_share": _link_share(
            [b for b in links if above(b)], [(b, n) for b, n in own_text if above(b)]
        ),
        "lower_link_share": _link_share(
            [b for b in links if not above(b)], [(b, n) for b, n in own_text if not above(b)]
        ),
        "text_block_height_share": min(block_height / page_height, 1.0),
        "text_block_text_share": min(paragraph_text[text_block] / total_text, 1.0)
        if total_text and text_block
        else 0.0,
        "headings_per_screen": math.log1p(len(headings) * screen / page_height),
        "images_first_screens": math.log1p(sum(1 for b in pictures if b["y"] < top)),
        "largest_image_share": min(
            max((b["w"] * b["h"] for b in pictures), default=0.0) / (page_width * screen), 1.0
        ),
    }
    return np.asarray([values[name] for name in LAYOUT_STATISTICS], dtype=np.float32)
