"""Parsing and small tree helpers shared by the extraction modules (lxml)."""

from __future__ import annotations

import re
import threading
from urllib.parse import urljoin

from lxml import etree
from lxml import html as lxml_html
from lxml.html import HtmlElement as HtmlElement  # re-exported: the element type of every module

_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
#: End tags a browser passes over: after an early ``</body>`` or ``</html>`` (a theme
#: that closes the document after its header) it goes on filling the body (HTML's "after
#: body" insertion modes), where libxml2 drops the rest of the page. iawce on WCXB dev's
#: training domains 0.8821 -> 0.8828 word F1 (escalon.services 0.08 -> 0.76), no other
#: page of the training and validation domains changed.
_DOCUMENT_END_TAGS = re.compile(r"</(?:body|html)\s*>", re.IGNORECASE)
#: Tag lists shared by text measuring, rendering and the peers' fragment text.
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
#: Tags whose text is never shown as content, even when denoising left them in.
NON_TEXT_TAGS = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "svg",
        "math",
        "canvas",
        "iframe",
        "object",
        "embed",
        "video",
        "audio",
        "picture",
        "img",
        "head",
        "title",
        "meta",
        "link",
        "select",
        "option",
        "textarea",
        "input",
    }
)
BLOCK_TAGS = (
    frozenset(
        {
            "address",
            "article",
            "aside",
            "blockquote",
            "body",
            "center",
            "dd",
            "details",
            "dialog",
            "dir",
            "div",
            "dl",
            "dt",
            "fieldset",
            "figcaption",
            "figure",
            "footer",
            "form",
            "header",
            "hgroup",
            "hr",
            "html",
            "legend",
            "li",
            "main",
            "menu",
            "nav",
            "ol",
            "p",
            "pre",
            "section",
            "summary",
            "table",
            "tbody",
            "thead",
            "tfoot",
            "tr",
            "td",
            "th",
            "caption",
            "ul",
        }
    )
    | HEADING_TAGS
)


# Characters lxml refuses in text and attributes (XML 1.0): NUL and the C0 controls but
# tab, newline and carriage return, and the noncharacters U+FFFE and U+FFFF.
_INCOMPATIBLE_CHARS = "\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff"
_XML_INCOMPATIBLE = re.compile(f"[{_INCOMPATIBLE_CHARS}]")
# A surrogate code point on its own (a str decoded with errors="surrogateescape", or
# text cut inside a pair): libxml2 stops reading at it and drops the rest of the page.
_SURROGATES = "\ud800-\udfff"
_LONE_SURROGATE = re.compile(f"[{_SURROGATES}]")
# Either: one scan tells whether a page needs the two substitutions (most do not).
_UNSAFE_CHAR = re.compile(f"[{_INCOMPATIBLE_CHARS}{_SURROGATES}]")
# A numeric character reference (``&#1;``, ``&#x1f;``): libxml2 turns those that name a
# control character into that character, so they are screened like the text itself.
_CHARACTER_REFERENCE = re.compile(r"&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,10}));?")
# lxml parsers must not be shared between threads (the extract pipeline runs in a pool).
_PARSERS = threading.local()
#: React's streamed server rendering: each chunk arrives as ``<div hidden id="S:x">``, and
#: a script moves its content into ``<template id="P:x">`` (a placeholder) or
#: ``<template id="B:x">`` (a Suspense boundary, in place of the fallback after it, up
#: to the boundary's ``<!--/$-->`` comment).
_STREAMED_CHUNK = '<div hidden id="S:'
_STREAMED_CHUNK_ID = re.compile(r"S:([0-9a-z]+)")


def parse_html(html: str) -> HtmlElement | None:
    """The document's root element, or None when ``html`` holds no markup at all.

    Comments and processing instructions are dropped while parsing (they are never
    content). Characters XML cannot hold are removed (C0 controls, U+FFFE, U+FFFF) or
    replaced with U+FFFD (lone surrogates), so that no later tree edit can fail on
    them. ``</body>`` and ``</html>`` end tags are dropped: a browser puts what follows
    an early one into the body, where libxml2 would lose it. Chunks of React's streamed
    rendering are moved where the page's scripts would move them (:func:`place_streamed_chunks`).
    Other broken markup is repaired the way libxml2 does; it never raises.
    """
    if not isinstance(html, str):
        raise TypeError(f"parse_html needs str, got {type(html).__name__}; decode bytes with decode_html")
    html = _DOCUMENT_END_TAGS.sub("", xml_compatible(_XML_DECLARATION.sub("", html, count=1)))
    if not html.strip():
        return None
    streamed = _STREAMED_CHUNK in html
    try:
        root = lxml_html.document_fromstring(html, parser=_parser(keep_comments=streamed))
    except (etree.ParserError, ValueError):
        return None
    if streamed:
        place_streamed_chunks(root)
        etree.strip_elements(root, etree.Comment, with_tail=False)
    return root


#: Every element is an ``HtmlElement``, chosen in C: lxml.html's own lookup (form, input and
#: label classes, none of which this package uses) is a Python call for every element
#: proxy: iawce's median on WCXB dev's validation pages 22.9 -> 21.6 ms without it.
_ELEMENT_CLASSES = etree.ElementDefaultClassLookup(element=HtmlElement, comment=lxml_html.HtmlComment)


def _parser(keep_comments: bool) -> lxml_html.HTMLParser:
    """This thread's parser; comments are kept only when :func:`place_streamed_chunks`
    needs the boundaries they mark."""
    name = "with_comments" if keep_comments else "parser"
    parser = getattr(_PARSERS, name, None)
    if parser is None:
        parser = lxml_html.HTMLParser(
            remove_comments=not keep_comments, remove_pis=True, default_doctype=False
        )
        parser.set_element_class_lookup(_ELEMENT_CLASSES)
        setattr(_PARSERS, name, parser)
    return parser


def place_streamed_chunks(root: HtmlElement) -> None:
    """Do what React's scripts do in a browser: move each streamed chunk's content, in
    document order, into its placeholder, or into its Suspense boundary in place of the
    fallback (kept when no ``<!--/$-->`` comment marks where it ends). Without this a page's
    later sections sit hidden at the end of the body (fool.com's article body, nine
    chunks). The scripts themselves are not read: a saved page may have lost them."""
    templates = {el.get("id"): el for el in root.iter("template")}
    chunks = [
        (el, match.group(1))
        for el in root.iter("div")
        if el.get("hidden") is not None and (match := _STREAMED_CHUNK_ID.fullmatch(el.get("id") or ""))
    ]
    for chunk, suffix in chunks:
        placeholder, boundary = templates.get(f"P:{suffix}"), templates.get(f"B:{suffix}")
        target = placeholder if placeholder is not None else boundary
        if target is None or target.getparent() is None or any(a is chunk for a in target.iterancestors()):
            continue
        _remove(chunk, keep_tail=True)
        if target is boundary:
            fallback = _boundary_fallback(boundary)
            if fallback is not None:
                for element in fallback:
                    _remove(element, keep_tail=False)
                boundary.tail = None
        _replace_with_content(target, chunk)


def _boundary_fallback(template: HtmlElement) -> list[HtmlElement] | None:
    """The siblings after a boundary's ``<template>`` up to its ``<!--/$-->`` comment
    (nested boundaries counted), that comment excluded; None without one."""
    fallback: list[HtmlElement] = []
    depth = 0
    for sibling in template.itersiblings():
        if sibling.tag is etree.Comment:
            if sibling.text == "/$":
                if depth == 0:
                    return fallback
                depth -= 1
            elif sibling.text in ("$", "$?", "$!"):
                depth += 1
        fallback.append(sibling)
    return None


def _remove(element: HtmlElement, keep_tail: bool) -> None:
    """Take ``element`` out of its parent, its tail text kept in place or dropped."""
    parent = element.getparent()
    if keep_tail and element.tail:
        _append_text(parent, parent.index(element), element.tail)
    parent.remove(element)


def _replace_with_content(target: HtmlElement, source: HtmlElement) -> None:
    """Put ``source``'s text and children where ``target`` is; ``target`` goes, its tail
    text stays after them."""
    parent, tail = target.getparent(), target.tail
    index = parent.index(target)
    if source.text:
        _append_text(parent, index, source.text)
    children = list(source)
    parent.remove(target)
    for offset, child in enumerate(children):
        parent.insert(index + offset, child)
    if tail:
        if children:
            children[-1].tail = (children[-1].tail or "") + tail
        else:
            _append_text(parent, index, tail)


def _append_text(parent: HtmlElement, index: int, text: str) -> None:
    """Add ``text`` where the child at ``index`` was (after the previous child, or at the
    start of ``parent``)."""
    if index > 0:
        previous = parent[index - 1]
        previous.tail = (previous.tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def xml_compatible(text: str) -> str:
    """``text`` without the characters lxml refuses: controls and U+FFFE/U+FFFF (and
    the character references that name them) removed, lone surrogates replaced with
    U+FFFD."""
    if _UNSAFE_CHAR.search(text):
        text = _LONE_SURROGATE.sub("\ufffd", _XML_INCOMPATIBLE.sub("", text))
    if "&#" in text:
        text = _CHARACTER_REFERENCE.sub(_screen_reference, text)
    return text


def _screen_reference(match: re.Match[str]) -> str:
    hexadecimal, decimal = match.groups()
    code = int(hexadecimal, 16) if hexadecimal else int(decimal)
    if code < 0x110000 and _XML_INCOMPATIBLE.match(chr(code)):
        return ""
    return match.group(0)


def body_of(root: HtmlElement) -> HtmlElement:
    """The <body> element, or the root itself for a fragment without one."""
    body = root.find("body")
    return body if body is not None else root


def is_element(node: object) -> bool:
    """True for elements, False for comments, processing instructions and entities."""
    return isinstance(node, etree._Element) and isinstance(node.tag, str)


def base_url(root: HtmlElement, page_url: str) -> str:
    """The URL relative links resolve against: <base href> or the page URL."""
    for base in root.iter("base"):
        href = str(base.get("href") or "").strip()
        if href:
            return urljoin(page_url, href)
    return page_url


def absolute_url(href: str | None, base: str) -> str:
    """``href`` made absolute against ``base``; "" for empty, fragment-only, script or
    malformed links (``http://[broken/``)."""
    href = (href or "").strip()
    if (
        not href
        or href.startswith("#")
        or href.lower().startswith(("javascript:", "mailto:", "tel:", "data:"))
    ):
        return ""
    try:
        return urljoin(base, href)
    except ValueError:
        return ""


def remove_keeping_tail(element: HtmlElement) -> None:
    """Remove ``element`` from its tree but keep the text that follows it."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail
    if tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)
