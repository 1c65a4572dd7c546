"""List pages: the I-AWCE "same depth, same class name" ranking, and item building."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from pipelines.extraction.denoise import is_control_label, is_reader_feedback
from pipelines.extraction.dom import HEADING_TAGS, HtmlElement, absolute_url, is_element
from pipelines.extraction.lengths import TextLengths, normalize_space, text_length
from pipelines.extraction.options import IawceOptions
from pipelines.extraction.page import ExtractedItem
from pipelines.extraction.textformat import Block, render_blocks


@dataclass
class Group:
    """Elements that share a (depth, class name) key, with their count O and text length L."""

    key: tuple[int, str]
    elements: list[HtmlElement] = field(default_factory=list)
    length: int = 0

    @property
    def count(self) -> int:
        return len(self.elements)


def rank(count: int, length: int) -> float:
    """R(O, L) = O · L for O >= 2, else 0: how list-like a key is.

    A list is many elements (O) that together hold much text (L); nav links are many but
    short, one big wrapper holds much text but does not repeat. Measured with the paper
    algorithm (n = 15, TL = L / O) on WCXB dev's 216 listing and collection pages, word F1
    of the items: R = O 0.530, R = L 0.530, R = L·log O 0.552, R = L·√O 0.555,
    R = O²·L 0.544, R = O·L 0.561.
    """
    return float(count * length) if count >= 2 else 0.0


def average_length(count: int, length: int) -> float:
    """TL(O, L) = L / O, the average text length of the key's elements."""
    return length / count if count else 0.0


def group_by_depth_and_class(
    root: HtmlElement,
    lengths: TextLengths,
    key: Callable[[HtmlElement], str | None] = lambda el: normalize_space(el.get("class") or "") or None,
) -> dict[tuple[int, str], Group]:
    """Walk ``root`` keeping depth; group elements by (depth, class name).

    Elements for which ``key`` returns None (by default: no class) are not grouped.
    Each group's elements are in document order.
    """
    groups: dict[tuple[int, str], Group] = {}
    stack = [(root, 0)]
    while stack:
        element, depth = stack.pop()
        name = key(element)
        if name is not None:
            group = groups.setdefault((depth, name), Group((depth, name)))
            group.elements.append(element)
            group.length += lengths[element]
        stack.extend((child, depth + 1) for child in reversed(element) if is_element(child))
    return groups


def list_items_paper(root: HtmlElement, lengths: TextLengths, options: IawceOptions) -> list[HtmlElement]:
    """The paper's list algorithm: rank (depth, class) keys by R(O, L), keep the top n
    (``options.top_n``), return the elements of the key with the largest TL(O, L)."""
    return _best_group(group_by_depth_and_class(root, lengths), options.top_n)


def list_items(root: HtmlElement, lengths: TextLengths, options: IawceOptions) -> list[HtmlElement]:
    """The improved ranking: the key is (depth, tag and class), so that ``li.card`` and
    ``div.card`` differ and class-less repeats (plain ``<li>``, ``<article>``) count; and
    only real repeats compete (see :func:`is_list`)."""
    groups = group_by_depth_and_class(root, lengths, _tag_and_class)
    lists = {key: group for key, group in groups.items() if is_list(group, options.min_items)}
    return _best_group(lists, options.top_n)


def is_list(group: Group, min_items: int) -> bool:
    """At least ``min_items`` (3) elements, or 2 that share a parent and each hold a link (the last page
    of an index). Two page-wide ``div.wrap`` blocks, one in the header and one in the
    body, share depth and class but are no list. Measured on WCXB dev listing and
    collection pages (tune split): 0.727 word F1 with any pair, with 3 or more only and
    with this rule alike; the demo web's table-layout list pages: 0.77 with any pair
    (wrapper pairs win), 0.80 with 3 or more (the 2-item last page of an index gets no
    items), 0.88 with this rule."""
    if group.count >= min_items:
        return True
    if group.count != 2:
        return False
    first, second = group.elements
    return first.getparent() is second.getparent() and all(
        next(element.iter("a"), None) is not None for element in group.elements
    )


def list_region(
    body: HtmlElement, items: list[HtmlElement], lengths: TextLengths, share: float
) -> HtmlElement:
    """The block a list page's text comes from: go down from ``body`` toward the items'
    lowest common ancestor while the next block still holds ``share`` of its parent's
    text (``IawceOptions.items_share``; page chrome around the list goes; an intro as long as the list stays)."""
    chains = [[el, *el.iterancestors()][::-1] for el in items]  # root first
    region, below_body = body, False
    for level in zip(*chains, strict=False):  # chains differ in length
        node = level[0]
        if any(el is not node for el in level) or node in items:
            break  # past the lowest common ancestor
        if below_body:
            if lengths[node] < share * lengths[region]:
                break
            region = node
        below_body = below_body or node is body
    return region


def list_surroundings(
    body: HtmlElement, region: HtmlElement, base: str, options: IawceOptions
) -> tuple[list[Block], list[Block]]:
    """What a list region leaves out of the block it shares with the page's first
    ``<h1>``: before it, from the title on, and after it. Kept are headings and paragraphs
    of at least ``IawceOptions.surrounding_min_words`` words with at most
    ``IawceOptions.max_link_density`` link text (a category page's title and description
    over its grid, its buying guide under it), never readers' feedback
    (:func:`denoise.is_reader_feedback`: comments, reviews, testimonials). Nothing before
    it when the region holds the ``<h1>`` or comes first."""
    heading = next(body.iter("h1"), None)
    if region is body or heading is None:
        return [], []
    around_region = {region, *region.iterancestors()}
    common = next((a for a in heading.iterancestors() if a in around_region), None)
    if common is None:
        return [], []
    order = {element: index for index, element in enumerate(common.iter())}
    region_holders = set(region.iterancestors())  # not the region itself
    holders = region_holders | {heading, *heading.iterancestors()}
    start, end = order[heading], order[region]
    last = max(order[element] for element in region.iter())

    def kept(blocks: list[Block]) -> list[Block]:
        return [
            block
            for block in blocks
            if block.kind == "heading"
            or (
                block.kind == "paragraph"
                and block.length >= options.surrounding_min_words
                and block.link_density <= options.max_link_density
            )
        ]

    def not_before(element: HtmlElement) -> bool:
        outside = element not in holders and not start < order.get(element, -1) < end
        return outside or is_reader_feedback(element)

    def not_after(element: HtmlElement) -> bool:
        outside = element not in region_holders and order.get(element, -1) <= last
        return outside or is_reader_feedback(element)

    has_before = start < end and region.find(".//h1") is None
    before = kept(render_blocks(common, base, skip=not_before)) if has_before else []
    return before, kept(render_blocks(common, base, skip=not_after))


def _tag_and_class(element: HtmlElement) -> str:
    return f"{element.tag}.{normalize_space(element.get('class') or '')}"


def _best_group(groups: dict[tuple[int, str], Group], top_n: int) -> list[HtmlElement]:
    ranked = sorted(groups.values(), key=lambda g: rank(g.count, g.length), reverse=True)
    top = [g for g in ranked[:top_n] if rank(g.count, g.length) > 0]
    if not top:
        return []
    best = max(top, key=lambda g: average_length(g.count, g.length))
    return best.elements


def build_item(element: HtmlElement, base: str) -> ExtractedItem | None:
    """Title (first heading, else the main link's text), absolute URL and text of one item."""
    blocks = render_blocks(element, base)
    if not blocks:
        return None
    links = [a for a in element.iter("a") if normalize_space(a.text_content())]
    heading = next((h for h in element.iter(*HEADING_TAGS) if normalize_space(h.text_content())), None)
    if heading is not None:
        title = normalize_space(heading.text_content())
        link = next((a for a in heading.iter("a")), None)
        if link is None:
            link = next((a for a in heading.iterancestors("a")), None)
        if link is None and links:
            link = links[0]
    elif links:
        link = max(links, key=lambda a: len(normalize_space(a.text_content())))
        title = normalize_space(link.text_content())
    else:
        link, title = None, blocks[0].text.split("\n")[0]
    url = absolute_url(link.get("href"), base) if link is not None else ""
    # The title is not repeated in the text (cards often show it twice: image alt
    # link and heading).
    lines = [line for block in blocks for line in block.text.split("\n") if line]
    if title in lines:
        lines = [line for line in lines if line != title]
    elif lines and lines[0].startswith(title):
        lines[0] = lines[0][len(title) :].strip()
    else:
        lines = lines[_lines_joined_as(title, lines) :]
    return ExtractedItem(title=title, url=url, text="\n".join(line for line in lines if line))


#: A card's main link holds at most this many of its lines (title, excerpt, badge).
TITLE_MAX_LINES = 4


def _lines_joined_as(title: str, lines: list[str]) -> int:
    """How many of ``lines``, from the first, the ``title`` is made of (a card whose link
    wraps its heading and excerpt: the link's text is the two lines run together), else 0.
    Leaving those lines out of the item's text: iawce on WCXB dev's training / validation
    domains 0.89622 / 0.87684 -> 0.89659 / 0.87690, 6 list pages better, none worse."""
    for count in range(2, min(TITLE_MAX_LINES, len(lines)) + 1):
        head = lines[:count]
        if title in (" ".join(head), "".join(head)):
            return count
    return 0


#: A line that at least this share of a list's items hold, word for word (and at least
#: ``ITEM_CHROME_MIN_ITEMS`` items), is the card's chrome, not its text: "View Details",
#: "Compare", "Quick view", "Add to cart". iawce on WCXB dev's listing and collection
#: pages, word F1, training / validation domains: 0.7221 / 0.7834 keeping them; at a share
#: of 0.6 0.7272 / 0.7892 (17 / 2 pages better, 5 / 1 worse); 0.8: 0.7266 / 0.7886; 1.0:
#: 0.7253 / 0.7863. Without the word limit, lines such as a coupon's "Call today to
#: schedule" went too (validation 0.7753). Held-out, read once after the choice: listing
#: 0.808 -> 0.805, collection 0.752 -> 0.753 (4 pages better, 4 worse: arXiv's repeated
#: "Authors:" labels, which WCXB's gold keeps).
ITEM_CHROME_SHARE = 0.6
#: ... a chrome line has at most this many words and no digit (prices, counts and dates
#: differ from item to item, or are content when they do not),
ITEM_CHROME_MAX_WORDS = 3
#: ... and a list has at least this many items for its chrome to be told.
ITEM_CHROME_MIN_ITEMS = 3
_DIGIT = re.compile(r"\d")


def without_item_chrome(items: list[ExtractedItem]) -> list[ExtractedItem]:
    """``items`` without the lines that most of them repeat word for word (their buttons
    and badges: ``ITEM_CHROME_SHARE``) and without the lines that are a control's label
    (denoise's :func:`~pipelines.extraction.denoise.is_control_label`, read here once the
    ranking has chosen the items; iawce on WCXB dev's listing and collection pages, word
    F1, training / validation domains: 0.7368 / 0.7892 -> 0.7380 / 0.7899, 28 pages better,
    2 worse: a shop whose gold keeps its "Add to cart" lines), and without a line that
    repeats the one above it (a price printed again for screen readers or as the sale
    price: 10 pages better, 2 worse, one of them shop.bombas.com, whose gold keeps each
    line thrice); titles are left alone."""
    chrome: set[str] = set()
    if len(items) >= ITEM_CHROME_MIN_ITEMS:
        holders = Counter(line for item in items for line in set(item.text.split("\n")) if line)
        least = max(ITEM_CHROME_MIN_ITEMS, ITEM_CHROME_SHARE * len(items))
        chrome = {
            line
            for line, count in holders.items()
            if count >= least and len(line.split()) <= ITEM_CHROME_MAX_WORDS and not _DIGIT.search(line)
        }
    cleaned = []
    for item in items:
        lines = item.text.split("\n")
        text = "\n".join(
            line
            for index, line in enumerate(lines)
            if line not in chrome
            and not is_control_label(line)
            and not (index and line and line == lines[index - 1])
        )
        cleaned.append(item if text == item.text else replace(item, text=text))
    return cleaned


def without_repeated_blocks(blocks: list[Block]) -> list[Block]:
    """A list page's blocks with each block of several lines once: one that an earlier
    block already gave goes (a card's "Compare / Remove from comparison" toggle, a
    sponsored entry shown between the items again and again, an item of a "featured"
    strip repeated in the grid). Headings and one-line blocks stay (two products may share
    a name). iawce on WCXB dev's training / validation domains: 0.89591 / 0.87684 ->
    0.89622 / 0.87684, 10 pages better, none worse; one-line blocks too: 35 better, 8
    worse (weworkremotely.com's gold keeps its repeated "Featured" lines)."""
    seen: set[str] = set()
    kept = []
    for block in blocks:
        if block.kind != "heading" and "\n" in block.text and block.text in seen:
            continue
        seen.add(block.text)
        kept.append(block)
    return kept


def entry_block(item: ExtractedItem) -> Block:
    """One item as a block of a list page's text: "TITLE\nTEXT"."""
    text = f"{item.title}\n{item.text}" if item.text else item.title
    heading = f"### [{item.title}]({item.url})" if item.url else f"### {item.title}"
    markdown = f"{heading}\n\n{item.text}" if item.text else heading
    return Block("entry", text, markdown, 0, text_length(text))
