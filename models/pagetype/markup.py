"""The ``markup`` page statistics: what a page's HTML says about its kind in standard
vocabularies and form elements, where the element boxes cannot see it.

- **schema.org types** the page declares (JSON-LD ``@type``, ``@graph`` included, and
  microdata ``itemtype``), sorted into the families of :data:`SCHEMA_FAMILIES`: a shop
  marks its products ``Product``/``Offer``, a forum its posts
  ``DiscussionForumPosting``/``QAPage``, a category page ``CollectionPage``/``ItemList``;
- the Open Graph ``og:type`` (``article``, ``product``, ``website``, ...);
- elements that belong to a kind of page: code blocks (documentation), forms and their
  fields (service and contact pages, forum reply boxes), tables, quotes, ``<time>``
  elements (posts and replies), and ``rel=next`` (a paginated list or thread);
- prices in the visible text: a currency sign or code beside a number.

Nothing here names a site or a vendor: schema.org and Open Graph are the web's shared
vocabularies, the rest is HTML itself. Counts are log1p, flags 0/1.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
from lxml import etree

from pipelines.extraction.dom import parse_html

#: schema.org types by the page kind they speak for (a type in none is ignored).
SCHEMA_FAMILIES: dict[str, frozenset[str]] = {
    "article": frozenset(
        {
            "article",
            "newsarticle",
            "blogposting",
            "reportagenewsarticle",
            "opinionnewsarticle",
            "analysisnewsarticle",
            "liveblogposting",
            "scholarlyarticle",
            "report",
        }
    ),
    "product": frozenset(
        {"product", "productgroup", "individualproduct", "productmodel", "offer", "aggregateoffer", "vehicle"}
    ),
    "forum": frozenset(
        {"discussionforumposting", "qapage", "question", "answer", "comment", "socialmediaposting"}
    ),
    "collection": frozenset({"collectionpage", "itemlist", "searchresultspage", "offercatalog", "blog"}),
    "documentation": frozenset({"techarticle", "apireference", "howto", "faqpage", "softwaresourcecode"}),
    "service": frozenset(
        {
            "service",
            "localbusiness",
            "professionalservice",
            "contactpage",
            "aboutpage",
            "softwareapplication",
            "webapplication",
            "event",
            "course",
        }
    ),
    "profile": frozenset({"profilepage", "person"}),
    "review": frozenset({"review", "aggregaterating", "rating"}),
}
#: og:type values by family (``og_other``: any other non-empty value).
OG_TYPES = ("article", "product", "website")
#: A price: a currency sign or ISO code right before or after a number. The number is
#: matched from its first digit only and never given back (a possessive run), so a page
#: of 40,000 digits takes one pass, not one per digit (35 s with a backtracking run).
PRICE = re.compile(
    r"(?:[$€£¥₹₽₩]|\b(?:USD|EUR|GBP|JPY|CNY|INR|RUB|CHF|CAD|AUD)\b)\s?\d[\d.,  ]*+"
    r"|(?<![\d.,])\d[\d.,]*+\s?(?:[$€£¥₹₽₩]|\b(?:USD|EUR|GBP|JPY|CNY|INR|RUB|CHF|CAD|AUD)\b|zł|kr\b|Kč)"
)
#: Text fields a visitor types into (not search boxes, which every kind of page has).
_TYPED_INPUTS = frozenset({"text", "email", "tel", "number", "url", "password", ""})

MARKUP_STATISTICS = (
    *(f"schema_{family}" for family in SCHEMA_FAMILIES),
    *(f"og_{name}" for name in OG_TYPES),
    "og_other",
    "code_blocks",
    "inline_code",
    "forms",
    "typed_inputs",
    "textareas",
    "selects",
    "buttons",
    "table_rows",
    "blockquotes",
    "time_elements",
    "rel_next",
    "prices",
)


def markup_statistics(html: str) -> np.ndarray:
    """The :data:`MARKUP_STATISTICS` of a page's HTML, float32 (all 0 for no HTML)."""
    values = dict.fromkeys(MARKUP_STATISTICS, 0.0)
    root = _parse(html)
    if root is None:
        return np.zeros(len(MARKUP_STATISTICS), dtype=np.float32)
    declared = set(schema_types(root))
    for family, types in SCHEMA_FAMILIES.items():
        values[f"schema_{family}"] = float(bool(declared & types))
    og_type = _og_type(root)
    if og_type in OG_TYPES:
        values[f"og_{og_type}"] = 1.0
    elif og_type:
        values["og_other"] = 1.0
    tags: dict[str, int] = {}
    inline_code = typed_inputs = 0
    for element in root.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        tags[tag] = tags.get(tag, 0) + 1
        if tag == "code" and element.getparent() is not None and element.getparent().tag != "pre":
            inline_code += 1
        elif tag == "input" and (element.get("type") or "").lower() in _TYPED_INPUTS:
            typed_inputs += 1
    counts = {
        "code_blocks": tags.get("pre", 0),
        "inline_code": inline_code,
        "forms": tags.get("form", 0),
        "typed_inputs": typed_inputs,
        "textareas": tags.get("textarea", 0),
        "selects": tags.get("select", 0),
        "buttons": tags.get("button", 0),
        "table_rows": tags.get("tr", 0),
        "blockquotes": tags.get("blockquote", 0),
        "time_elements": tags.get("time", 0),
    }
    values["rel_next"] = float(bool(root.xpath("//link[@rel='next'] | //a[@rel='next']")))
    counts["prices"] = len(PRICE.findall(_visible_text(root)))  # last: it strips the scripts
    values.update({name: math.log1p(count) for name, count in counts.items()})
    return np.asarray([values[name] for name in MARKUP_STATISTICS], dtype=np.float32)


def schema_types(root: Any) -> Iterator[str]:
    """The schema.org types a page declares, lower-cased without their vocabulary's
    address: JSON-LD ``@type`` (nested objects and ``@graph`` included) and microdata
    ``itemtype``. Unreadable JSON-LD is skipped."""
    for script in root.xpath("//script[@type='application/ld+json']"):
        try:
            data = json.loads(script.text or "")
        except ValueError:
            continue
        yield from _json_ld_types(data)
    for itemtype in root.xpath("//@itemtype"):
        for address in str(itemtype).split():
            yield address.rstrip("/").rsplit("/", 1)[-1].lower()


def _json_ld_types(data: Any) -> Iterator[str]:
    if isinstance(data, list):
        for entry in data:
            yield from _json_ld_types(entry)
    elif isinstance(data, dict):
        declared = data.get("@type")
        for name in declared if isinstance(declared, list) else [declared]:
            if isinstance(name, str):
                yield name.rsplit("/", 1)[-1].rsplit(":", 1)[-1].lower()
        for value in data.values():
            if isinstance(value, (dict, list)):
                yield from _json_ld_types(value)


def _og_type(root: Any) -> str:
    values = root.xpath("//meta[@property='og:type']/@content")
    return str(values[0]).strip().lower().split(".", 1)[0] if values else ""


def _visible_text(root: Any) -> str:
    """The body's text without scripts and styles; strips them from ``root`` (a tree parsed
    for these statistics alone), which is three times as fast as an XPath that skips them."""
    body = root.find("body")
    if body is None:
        return ""
    etree.strip_elements(body, "script", "style", "noscript", with_tail=False)
    return str(body.text_content())


def _parse(html: str) -> Any:
    """The page's tree, parsed as the extractors parse it (an XML declaration, NUL bytes
    and early end tags handled); None for no HTML."""
    return parse_html(html) if html and html.strip() else None
