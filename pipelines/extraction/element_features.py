"""One feature vector per rendered element: constractor's 17 features (seed 002) with the
geometry taken from the capture's element boxes, plus what the render adds.

Candidates are the elements under ``<body>`` that have a box in the capture (joined by
``path``, the XPath lxml's ``getpath`` writes) and some text. Font size and weight are
not collected by the capture, so they are not features.

The original 17, in its order (text lengths are :func:`text_length` units, words or CJK
characters; W and H the page's extent, the union of all boxes):

- ``relative_points_count``: full stops (``.``, ``。``) per unit of text
- ``content_tag_weight``: 1 for p, div, article, table, td, tr, tbody, span, form, body;
  0 for other HTML tags; 0.5 for unknown tags
- ``content_class_weight``, ``content_id_weight``: 1 when the class/id holds a content
  word, 0 when it holds a noise word, else 0.5
- ``total_childs_per_symbol``: descendant elements per unit of text
- ``childs_per_symbol``: child elements per unit of text
- ``relative_text_length``: share of the body's text
- ``link_text_density``: share of the text inside links
- ``link_density``: links per descendant element
- ``relative_area``, ``relative_width``, ``relative_height``: of the box, against W×H, W, H
- ``in_the_middle_of_width``, ``in_the_middle_of_height``: the box spans the page's
  vertical / horizontal centre line
- ``contains_h1``: the element is or holds an h1
- ``text_length_vs_html_length``: characters of text per character of its HTML
- ``imgs_per_symbol``: images per unit of text, capped at 1

What the render adds (:data:`RENDER_FEATURES`): ``visible`` (the box is shown),
``depth`` (below body), ``top_in_screens`` (top edge in first-screen heights, capped at
10), ``in_first_screen`` (the top edge is on the first screen), ``relative_left``,
``parent_text_share`` (share of the parent's text). Two more from the tree
(:data:`STRUCTURE_FEATURES`): ``largest_child_share`` (share of the text in the element's
largest child: near 1 when a child would do as well) and ``unlinked_text_share`` (share of
the body's text outside links).

What the cleaning keeps (:data:`CLEANING_FEATURES`): ``kept_share``, the share of the
element's text that iawce's denoiser (:func:`pipelines.extraction.denoise.denoise` for the
page type, on a copy of the page: :class:`DenoisedCopy`, the same cleaning the extractor
applies to its pick) keeps, capped at 1; 0 when it drops the element. One denoised copy
serves all candidates of a page.

Page-relative features (:data:`PAGE_FEATURES`, :func:`page_relative`) place each candidate
among the page's candidates: ``text_rank``, ``area_rank`` (share of candidates with more
text / a larger box), ``link_density_rank`` (share with less linked text),
``depth_from_core`` and ``unlinked_share_of_core`` (depth below, and share of the unlinked
text of, the text core: the deepest candidate holding at least half as much unlinked text
as the candidate holding the most; the core's ancestors have a negative depth from it, its
parts a positive one).
"""

from __future__ import annotations

from collections.abc import Sequence
from copy import deepcopy
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from pipelines.extraction.denoise import denoise
from pipelines.extraction.dom import NON_TEXT_TAGS, HtmlElement, body_of, is_element
from pipelines.extraction.lengths import TextLengths, subtree_lengths
from pipelines.extraction.page import ARTICLE

ORIGINAL_FEATURES = (
    "relative_points_count",
    "content_tag_weight",
    "content_class_weight",
    "content_id_weight",
    "total_childs_per_symbol",
    "childs_per_symbol",
    "relative_text_length",
    "link_text_density",
    "link_density",
    "relative_area",
    "relative_width",
    "relative_height",
    "in_the_middle_of_width",
    "in_the_middle_of_height",
    "contains_h1",
    "text_length_vs_html_length",
    "imgs_per_symbol",
)
RENDER_FEATURES = (
    "visible",
    "depth",
    "top_in_screens",
    "in_first_screen",
    "relative_left",
    "parent_text_share",
)
STRUCTURE_FEATURES = ("largest_child_share", "unlinked_text_share")
PAGE_FEATURES = ("text_rank", "area_rank", "link_density_rank", "depth_from_core", "unlinked_share_of_core")
CLEANING_FEATURES = ("kept_share",)
#: Named feature sets; a checkpoint stores the names it was trained on.
FEATURE_SETS = {
    "original": ORIGINAL_FEATURES,
    "render": ORIGINAL_FEATURES + RENDER_FEATURES,
    "extended": ORIGINAL_FEATURES + RENDER_FEATURES + STRUCTURE_FEATURES,
    "original-page": ORIGINAL_FEATURES + PAGE_FEATURES,
    "extended-page": ORIGINAL_FEATURES + RENDER_FEATURES + STRUCTURE_FEATURES + PAGE_FEATURES,
    "original-page-kept": ORIGINAL_FEATURES + PAGE_FEATURES + CLEANING_FEATURES,
}
ALL_FEATURES = FEATURE_SETS["extended-page"] + CLEANING_FEATURES
#: The features of one candidate alone (what :func:`page_relative` derives the rest from).
ELEMENT_FEATURES = FEATURE_SETS["extended"]
#: Share of the most unlinked text any candidate holds that the text core holds at least.
CORE_SHARE = 0.5

CONTENT_TAGS = frozenset({"p", "div", "article", "table", "td", "tr", "tbody", "span", "form", "body"})
#: HTML elements (living standard plus common obsolete ones); others weigh 0.5.
KNOWN_TAGS = CONTENT_TAGS | frozenset(
    (  # noqa: SIM905 (a word list reads better as one string)
        "a abbr address area aside audio b base bdi bdo big blockquote br button canvas caption "
        "center cite code col colgroup data datalist dd del details dfn dialog dir dl dt em "
        "embed fieldset figcaption figure font footer h1 h2 h3 h4 h5 h6 header hgroup hr i "
        "iframe img input ins kbd label legend li main map mark menu meta meter nav noscript "
        "object ol optgroup option output param picture pre progress q rp rt ruby s samp "
        "script search section select slot small source strike strong style sub summary sup "
        "svg template textarea tfoot th thead time title track tt u ul var video wbr"
    ).split()
)
CONTENT_WORDS = ("content", "article", "post", "hentry", "entry", "text", "body")
NOISE_WORDS = ("menu", "header", "footer", "comment", "meta", "footnote", "foot")
FULL_STOPS = (".", "\u3002")
MAX_SCREENS = 10.0


@dataclass(frozen=True)
class Candidate:
    """One element that gets a feature vector, with its box."""

    element: HtmlElement
    path: str
    box: dict[str, Any]


@dataclass(frozen=True)
class DenoisedCopy:
    """A copy of a parsed page, denoised for one page type, and each original element's
    copy (``twins``, taken before denoising: an element the denoiser removed is no longer
    under ``root``'s body)."""

    root: HtmlElement
    twins: dict[HtmlElement, HtmlElement]

    @classmethod
    def of(cls, root: HtmlElement, page_type: str) -> DenoisedCopy:
        """Copy ``root`` and denoise the copy for ``page_type`` (without boxes: what the
        render hid is the caller's to skip)."""
        copy = deepcopy(root)
        twins = dict(zip(root.iter(), copy.iter(), strict=True))
        denoise(copy, page_type)
        return cls(copy, twins)

    def kept(self, element: HtmlElement) -> HtmlElement | None:
        """The copy of ``element`` when the denoiser left it in the page, else None."""
        twin = self.twins.get(element)
        if twin is None or (twin is not self.root and self.root not in twin.iterancestors()):
            return None
        return twin


@dataclass(slots=True)
class _Counts:
    """Per-subtree counts gathered in one bottom-up pass."""

    descendants: int = 0
    links: int = 0
    images: int = 0
    stops: int = 0
    text_chars: int = 0
    html_chars: int = 0
    has_h1: bool = False


@lru_cache(maxsize=4096)
def word_weight(value: str) -> float:
    """constractor's class/id weight: 1 for a content word, 0 for a noise word, else 0.5
    (also for no class or id: ``""``)."""
    value = value.lower()
    if any(word in value for word in CONTENT_WORDS):
        return 1.0
    if any(word in value for word in NOISE_WORDS):
        return 0.0
    return 0.5


def tag_weight(tag: str) -> float:
    if tag in CONTENT_TAGS:
        return 1.0
    return 0.0 if tag in KNOWN_TAGS else 0.5


def element_paths(root: HtmlElement) -> dict[str, HtmlElement]:
    """Every element under body by its XPath (the capture's ``path``)."""
    tree = root.getroottree()
    return {tree.getpath(el): el for el in body_of(root).iter() if is_element(el)}


def candidates(root: HtmlElement, boxes: Sequence[dict[str, Any]]) -> list[Candidate]:
    """The boxed elements under body with some text, in document order (box order)."""
    by_path = element_paths(root)
    found = []
    for box in boxes:
        element = by_path.get(box.get("path", ""))
        if element is None or element.tag in NON_TEXT_TAGS:
            continue
        if box.get("text_len", 0) <= 0:
            continue
        found.append(Candidate(element, box["path"], box))
    return found


def _count(element: HtmlElement, counts: dict[HtmlElement, _Counts]) -> _Counts:
    tag = element.tag
    shown = tag not in NON_TEXT_TAGS
    html_chars = 2 * len(tag) + 5 + sum(len(k) + len(v) + 4 for k, v in element.attrib.items())
    links, images, has_h1 = int(tag == "a"), int(tag == "img"), tag == "h1"
    descendants = stops = text_chars = 0
    for text in (element.text, *(child.tail for child in element)):
        if text:
            html_chars += len(text)
            if shown:
                text_chars += len(text)
                stops += sum(map(text.count, FULL_STOPS))
    for child in element:
        if not is_element(child):
            continue
        sub = _count(child, counts)
        descendants += 1 + sub.descendants
        links += sub.links
        images += sub.images
        html_chars += sub.html_chars
        if shown:
            stops += sub.stops
            text_chars += sub.text_chars
        has_h1 = has_h1 or sub.has_h1
    own = counts[element] = _Counts(descendants, links, images, stops, text_chars, html_chars, has_h1)
    return own


def feature_matrix(
    root: HtmlElement,
    boxes: Sequence[dict[str, Any]],
    names: Sequence[str],
    viewport_height: int,
    page_type: str = ARTICLE,
    denoised: DenoisedCopy | None = None,
) -> tuple[list[Candidate], np.ndarray]:
    """The candidates of a parsed page and one row of features (``names``) for each, an
    array of shape (candidates, names). The cleaning features use ``denoised`` (a copy of
    ``root``; made for ``page_type`` when they are asked for and it is not given)."""
    body = body_of(root)
    found = candidates(root, boxes)
    if not found:
        return [], np.zeros((0, len(names)))
    lengths = subtree_lengths(body)
    counts: dict[HtmlElement, _Counts] = {}
    _count(body, counts)
    columns = element_columns(found, lengths, counts, boxes, body, viewport_height)
    if any(name in PAGE_FEATURES for name in names):
        relative = page_relative(np.column_stack([columns[name] for name in ELEMENT_FEATURES]))
        columns.update(zip(PAGE_FEATURES, relative.T, strict=True))
    if any(name in CLEANING_FEATURES for name in names):
        shares = kept_shares(found, lengths, denoised or DenoisedCopy.of(root, page_type))
        columns["kept_share"] = np.array(shares, dtype=float)
    return found, np.column_stack([columns[name] for name in names])


def kept_shares(found: Sequence[Candidate], lengths: TextLengths, denoised: DenoisedCopy) -> list[float]:
    """For each candidate, the share of its text (``lengths``, of the original page) that
    ``denoised`` keeps, capped at 1 (an unwrapped ``<noscript>`` adds text); 0 when the
    denoiser removed the element. The copy is measured once, bottom-up."""
    cleaned = subtree_lengths(body_of(denoised.root))
    shares = []
    for candidate in found:
        twin = denoised.twins.get(candidate.element)
        kept = cleaned.total.get(twin, 0) if twin is not None else 0
        shares.append(min(1.0, kept / max(lengths[candidate.element], 1)))
    return shares


def page_relative(rows: np.ndarray) -> np.ndarray:
    """The :data:`PAGE_FEATURES` columns of one page's candidates (at least one), from
    their :data:`ELEMENT_FEATURES` rows (one row per candidate, in that order)."""
    column = {name: rows[:, i] for i, name in enumerate(ELEMENT_FEATURES)}
    unlinked, depth = column["unlinked_text_share"], column["depth"]
    holders = np.flatnonzero(unlinked >= CORE_SHARE * unlinked.max())
    core = holders[np.argmax(depth[holders])]
    return np.column_stack(
        [
            _share_above(column["relative_text_length"]),
            _share_above(column["relative_area"]),
            _share_above(-column["link_text_density"]),
            depth - depth[core],
            unlinked / max(float(unlinked[core]), 1e-9),
        ]
    )


def _share_above(values: np.ndarray) -> np.ndarray:
    """For each value, the share of ``values`` strictly greater than it."""
    ordered = np.sort(values)
    above: np.ndarray = (len(values) - np.searchsorted(ordered, values, side="right")) / len(values)
    return above


def element_columns(
    found: Sequence[Candidate],
    lengths: TextLengths,
    counts: dict[HtmlElement, _Counts],
    boxes: Sequence[dict[str, Any]],
    body: HtmlElement,
    viewport_height: int,
) -> dict[str, np.ndarray]:
    """The :data:`ELEMENT_FEATURES` columns of the candidates: one pass gathers what each
    candidate counts, then each feature is one array operation. W and H are the page's
    extent (the union of all ``boxes``)."""
    page_w = max((b["x"] + b["w"] for b in boxes), default=0.0) or 1.0
    page_h = max((b["y"] + b["h"] for b in boxes), default=0.0) or 1.0
    body_depth = len(body.getroottree().getpath(body).split("/"))
    empty = _Counts()
    gathered = []
    for candidate in found:
        element, box = candidate.element, candidate.box
        count = counts.get(element, empty)
        text = lengths[element]
        parent = element.getparent()
        children = [lengths[child] for child in element if is_element(child)]
        gathered.append(
            (
                text,
                lengths.linked.get(element, 0),
                lengths[parent] if parent is not None else text,
                len(children),
                max(children, default=0),
                count.stops,
                count.descendants,
                count.links,
                count.images,
                count.text_chars,
                count.html_chars,
                count.has_h1,
                tag_weight(element.tag),
                word_weight(element.get("class") or ""),
                word_weight(element.get("id") or ""),
                candidate.path.count("/") + 1 - body_depth,
                bool(box.get("visible")),
                box["x"],
                box["y"],
                box["w"],
                box["h"],
            )
        )
    (
        text, linked, parent_text, children, largest_child, stops, descendants, links, images,
        text_chars, html_chars, has_h1, tag, class_weight, id_weight, depth, visible, x, y, w, h,
    ) = np.array(gathered, dtype=float).T  # fmt: skip
    per_text = np.maximum(text, 1)
    return {
        "relative_points_count": stops / per_text,
        "content_tag_weight": tag,
        "content_class_weight": class_weight,
        "content_id_weight": id_weight,
        "total_childs_per_symbol": descendants / per_text,
        "childs_per_symbol": children / per_text,
        "relative_text_length": text / max(lengths[body], 1),
        "link_text_density": linked / per_text,
        "link_density": links / np.maximum(descendants, 1),
        "relative_area": (w * h) / (page_w * page_h),
        "relative_width": w / page_w,
        "relative_height": h / page_h,
        "in_the_middle_of_width": ((x <= page_w / 2) & (page_w / 2 <= x + w)).astype(float),
        "in_the_middle_of_height": ((y <= page_h / 2) & (page_h / 2 <= y + h)).astype(float),
        "contains_h1": has_h1,
        "text_length_vs_html_length": text_chars / np.maximum(html_chars, 1),
        "imgs_per_symbol": np.minimum(1.0, images / per_text),
        "visible": visible,
        "depth": depth,
        "top_in_screens": np.minimum(MAX_SCREENS, y / max(viewport_height, 1)),
        "in_first_screen": (y < viewport_height).astype(float),
        "relative_left": x / page_w,
        "parent_text_share": text / np.maximum(parent_text, 1),
        "largest_child_share": largest_child / per_text,
        "unlinked_text_share": (text - linked) / max(lengths.unlinked(body), 1),
    }
