"""Rendering an element as plain text and Markdown.

The plain text format (the same as the gold text's): headings on their own lines,
paragraphs separated by one blank line, whitespace normalized inside lines, no markup.
A ``<br>`` is a line break inside a paragraph; a table row is one line with its cells
joined by " | ". The Markdown rendering of the same blocks adds ``#`` headings,
``-``/``1.`` list items, ``>`` quotes, fenced code, pipe tables, links and emphasis.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from pipelines.extraction.dom import (
    BLOCK_TAGS,
    HEADING_TAGS,
    NON_TEXT_TAGS,
    HtmlElement,
    absolute_url,
    is_element,
)
from pipelines.extraction.lengths import normalize_space, text_length

_EMPHASIS = {"strong": "**", "b": "**", "em": "*", "i": "*", "code": "`"}


@dataclass
class Block:
    """One paragraph-level piece of rendered text."""

    kind: str  # "heading" | "paragraph" | "item" | "quote" | "code" | "row" | "entry" (of a list page)
    text: str
    markdown: str
    level: int = 0  # heading level, or list nesting depth of an item
    length: int = 0  # language-aware text length (see lengths)
    link_length: int = 0  # the part of ``length`` that sits inside links

    @property
    def link_density(self) -> float:
        """Share of the block's text that is link text."""
        return self.link_length / self.length if self.length else 0.0


@dataclass
class _Buffer:
    kind: str = "paragraph"
    level: int = 0
    text: list[str] = field(default_factory=list)
    markdown: list[str] = field(default_factory=list)
    link_text: list[str] = field(default_factory=list)
    ordinal: str = "-"


class _Renderer:
    def __init__(
        self, base: str, skip: Callable[[HtmlElement], bool] | None, substitutes: dict[HtmlElement, Block]
    ) -> None:
        self.base = base
        self.skip = skip
        self.substitutes = substitutes
        self.blocks: list[Block] = []
        self.link_depth = 0

    def add(self, buffer: _Buffer, text: str | None, markdown: str | None = None) -> None:
        if not text:
            return
        buffer.text.append(text)
        buffer.markdown.append(_escape_markdown(text) if markdown is None else markdown)
        if self.link_depth:
            buffer.link_text.append(text)

    def flush(self, buffer: _Buffer) -> None:
        raw = "".join(buffer.text)
        if buffer.kind == "code":
            lines = [line.rstrip() for line in raw.strip("\n").split("\n")]
            text = "\n".join(lines).strip("\n")
            markdown = f"```\n{text}\n```" if text.strip() else ""
        else:
            text = _join_lines(raw)
            markdown = _join_lines("".join(buffer.markdown))
        if text.strip() and (buffer.kind == "code" or not is_escaped_markup(text)):
            link_length = text_length(" ".join(buffer.link_text))
            self.blocks.append(
                Block(
                    buffer.kind,
                    text,
                    _block_markdown(buffer, markdown),
                    buffer.level,
                    text_length(text),
                    link_length,
                )
            )
        buffer.text.clear()
        buffer.markdown.clear()
        buffer.link_text.clear()

    def walk(self, element: HtmlElement, buffer: _Buffer, list_depth: int, ordinal: int = 0) -> None:
        tag = element.tag if is_element(element) else None
        if tag is None or tag in NON_TEXT_TAGS or (self.skip is not None and self.skip(element)):
            return
        if element in self.substitutes:
            self.flush(buffer)
            self.blocks.append(self.substitutes[element])
        elif tag == "br":
            self.add(buffer, "\n", "\n")
        elif tag == "tr":
            self.flush(buffer)
            self.row(element)
        elif tag in BLOCK_TAGS:
            self.flush(buffer)
            inner = self.block_buffer(element, buffer, list_depth, ordinal)
            depth = list_depth + 1 if tag in ("ul", "ol") else list_depth
            self.add(inner, element.text)
            items = 0
            for child in element:
                items += tag == "ol" and is_element(child) and child.tag == "li"
                self.walk(child, inner, depth, items if tag == "ol" else 0)
                self.add(inner, child.tail)
            self.flush(inner)
        else:
            self.inline(element, buffer, list_depth)

    def block_buffer(self, element: HtmlElement, outer: _Buffer, list_depth: int, ordinal: int) -> _Buffer:
        tag = element.tag
        if tag in HEADING_TAGS:
            return _Buffer("heading", int(tag[1]))
        if tag == "li":
            return _Buffer("item", max(list_depth - 1, 0), ordinal=f"{ordinal}." if ordinal else "-")
        if tag == "pre" or outer.kind == "code":
            return _Buffer("code")
        if tag == "blockquote" or outer.kind == "quote":
            return _Buffer("quote")
        if outer.kind in ("heading", "item"):
            return _Buffer(outer.kind, outer.level, ordinal=outer.ordinal)
        return _Buffer()

    def inline(self, element: HtmlElement, buffer: _Buffer, list_depth: int) -> None:
        tag = element.tag
        prefix = suffix = ""
        has_blocks = any(is_element(d) and d.tag in BLOCK_TAGS for d in element.iterdescendants())
        is_link = tag == "a"
        if not has_blocks and buffer.kind != "code":
            if is_link:
                href = absolute_url(element.get("href"), self.base)
                if href and element.text_content().strip():
                    prefix, suffix = "[", f"]({href})"
            elif tag in _EMPHASIS and element.text_content().strip():
                prefix = suffix = _EMPHASIS[tag]
        if prefix:
            buffer.markdown.append(prefix)
        self.link_depth += is_link
        self.add(buffer, element.text)
        for child in element:
            self.walk(child, buffer, list_depth)
            self.add(buffer, child.tail)
        self.link_depth -= is_link
        if suffix:
            buffer.markdown.append(suffix)

    def row(self, row: HtmlElement) -> None:
        cells = []
        for cell in row:
            if not is_element(cell) or cell.tag not in ("td", "th"):
                continue
            sub = _Renderer(self.base, self.skip, self.substitutes)
            sub.walk(cell, _Buffer(), 0)
            cells.append(
                (
                    " ".join(b.text.replace("\n", " ") for b in sub.blocks),
                    " ".join(b.markdown.replace("\n", " ") for b in sub.blocks),
                    sum(b.link_length for b in sub.blocks),
                )
            )
        if not any(text for text, _, _ in cells):
            return
        text = " | ".join(text for text, _, _ in cells)
        markdown = "| " + " | ".join(md.replace("|", "\\|") for _, md, _ in cells) + " |"
        self.blocks.append(
            Block("row", text, markdown, len(cells), text_length(text), sum(links for _, _, links in cells))
        )


#: A tag written out as text: ``<img src="…">``, ``</div>``, ``<br/>`` (from ``&lt;…&gt;``
#: in the page, or markup a site escaped by mistake).
_TAG_AS_TEXT = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")
#: A block whose visible characters are at least this share written-out tags is markup.
ESCAPED_MARKUP_SHARE = 0.5


def is_escaped_markup(text: str) -> bool:
    """Whether a paragraph is mostly tags written out as text (a literal ``<img …>``
    line), which is never a page's content outside ``<pre>``/``<code>`` (code blocks are
    not asked). Prose that names a tag (``the <div> element``) is kept."""
    tags = sum(len(match.group()) for match in _TAG_AS_TEXT.finditer(text))
    return bool(tags) and tags >= ESCAPED_MARKUP_SHARE * len("".join(text.split()))


def render_blocks(
    element: HtmlElement,
    base_url: str = "",
    skip: Callable[[HtmlElement], bool] | None = None,
    substitutes: dict[HtmlElement, Block] | None = None,
) -> list[Block]:
    """The blocks of ``element`` in document order; ``skip(el)`` drops a subtree and
    ``substitutes`` renders the given elements as the given blocks (list items)."""
    renderer = _Renderer(base_url, skip, substitutes or {})
    buffer = _Buffer()
    renderer.walk(element, buffer, 0)
    renderer.flush(buffer)
    return renderer.blocks


def to_text(blocks: Iterable[Block]) -> str:
    """Plain text: one block per paragraph, paragraphs separated by a blank line."""
    return "\n\n".join(block.text for block in blocks)


def to_markdown(blocks: Iterable[Block]) -> str:
    """Markdown of the same blocks; a run of table rows becomes one pipe table."""
    parts: list[str] = []
    previous: Block | None = None
    for block in blocks:
        if block.kind == "row" and previous is not None and previous.kind == "row":
            if parts[-1].count("\n") == 0:
                parts[-1] += "\n|" + " --- |" * previous.level
            parts[-1] += "\n" + block.markdown
        elif block.kind == "item" and previous is not None and previous.kind == "item":
            parts[-1] += "\n" + block.markdown
        else:
            parts.append(block.markdown)
        previous = block
    return "\n\n".join(parts)


#: Characters that show nothing: a line of only these and spaces is blank (page builders
#: write ``<p>&zwj;</p>`` as a spacer: 193 such lines on 19 WCXB dev training and
#: validation pages). Inside a line they stay (emoji sequences, Indic and Persian script).
INVISIBLE = "\u00ad\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"
_BLANK = INVISIBLE + " "


def _join_lines(raw: str) -> str:
    lines = (normalize_space(line) for line in raw.split("\n"))
    return "\n".join(line for line in lines if line.strip(_BLANK))


def _block_markdown(buffer: _Buffer, markdown: str) -> str:
    if buffer.kind == "heading":
        return "#" * buffer.level + " " + markdown.replace("\n", " ")
    if buffer.kind == "item":
        return "  " * buffer.level + f"{buffer.ordinal} " + markdown.replace("\n", " ")
    if buffer.kind == "quote":
        return "\n".join("> " + line for line in markdown.split("\n"))
    return markdown


def _escape_markdown(text: str) -> str:
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_").replace("`", "\\`")
