"""The crawl frontier: which links of a finished page are followed, how urgently, and why.

Links are scheduled after a page is classified and extracted (by :class:`FrontierPipeline`,
the last pipeline), because the plan needs the page type and the list items: a list
page's items come first, then its pagination, then its other links; an article page's
links are followed only from its body (``PAGESIGHT_FRONTIER_ARTICLE_LINKS``). The
``flat`` policy is the crawl as it was: every link at one priority.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

import lxml.html
from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.settings import BaseSettings
from scrapy.utils.url import url_has_any_extension
from w3lib.url import safe_url_string

from crawler import signals as pagesight_signals
from crawler.items import STATUS_OK, PageItem
from models.pagetype.labels import LabelMapping
from pipelines.evaluation.scoring import page_type_label, page_type_mapping

logger = logging.getLogger(__name__)

#: How a page was reached (the feed's ``via``).
VIA_SEED = "seed"
VIA_SITEMAP = "sitemap"
VIA_FEED = "feed"
VIA_LIST_ITEM = "list-item"
VIA_PAGINATION = "pagination"
VIA_LINK = "link"

POLICIES = ("page-type", "flat")
ARTICLE_LINKS = ("body", "all", "none")

#: Request priorities by how a link was found (higher is fetched first).
PRIORITY = {VIA_SITEMAP: 30, VIA_FEED: 30, VIA_LIST_ITEM: 30, VIA_PAGINATION: 20, VIA_SEED: 0, VIA_LINK: 0}

#: Class or id words of a pager (not "page" alone: "page-list" may wrap a whole page).
_PAGER_WORDS = re.compile(r"paginat|pager|paging|page-?num|page-?nav|\bnext\b|\bprev", re.IGNORECASE)
_PAGE_NUMBER = re.compile(r"^\s*\d{1,4}\s*$")
#: Elements whose text is a link's context (the nearest one around it).
_BLOCKS = frozenset(
    [
        "p",
        "li",
        "td",
        "th",
        "dd",
        "dt",
        "blockquote",
        "figcaption",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "div",
        "section",
        "article",
        "aside",
        "nav",
        "header",
        "footer",
        "main",
        "body",
    ]
)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class PageLink:
    """A link of a rendered page: absolute URL (no fragment), anchor text, whether it
    sits in a pager (rel next/prev, an ancestor class or id naming pages, a bare page
    number), and its context: the text of the nearest block element around it."""

    url: str
    text: str
    pagination: bool
    context: str = ""


@dataclass(frozen=True)
class FollowLink:
    """A link the frontier follows: where, why, how urgently."""

    url: str
    via: str
    priority: int


def page_links(html: str, base_url: str, deny_extensions: Iterable[str] = ()) -> list[PageLink]:
    """The http(s) links of ``html`` in document order, each URL once."""
    try:
        root = lxml.html.document_fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return []
    base = root.xpath("string(//base/@href)") or base_url
    denied = list(deny_extensions)
    links: dict[str, PageLink] = {}
    for anchor in root.iter("a"):
        href = (anchor.get("href") or "").strip()
        if not href or href.startswith(("javascript:", "mailto:", "tel:")):
            continue
        url = link_url(base, href)
        if url is None or url in links:
            continue
        if denied and url_has_any_extension(url, denied):
            continue
        text = _SPACE.sub(" ", anchor.text_content()).strip()
        links[url] = PageLink(url, text, _in_pager(anchor, text), _context(anchor))
    return list(links.values())


def link_url(base: str, href: str) -> str | None:
    """The absolute http(s) URL an ``href`` leads to, without its fragment, or None when
    it can be no request: a port that is no number (``http://a.example:Some Text/``), an
    unclosed IPv6 literal, no host. Checked here with w3lib, as Scrapy's ``Request`` will
    check it, so that no malformed link reaches the scheduler."""
    try:
        url = urldefrag(urljoin(base, href)).url
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return None
        parts.port  # noqa: B018  (raises ValueError on a port that is no number)
        safe_url_string(url)
    except ValueError:
        return None
    return url


def _context(anchor: Any) -> str:
    for element in anchor.iterancestors():
        if element.tag in _BLOCKS:
            return str(_SPACE.sub(" ", element.text_content()).strip())
    return ""


def _in_pager(anchor: Any, text: str) -> bool:
    if (anchor.get("rel") or "").lower() in ("next", "prev") or _PAGE_NUMBER.match(text):
        return True
    for element in anchor.iterancestors():
        marks = f"{element.get('class') or ''} {element.get('id') or ''}"
        if _PAGER_WORDS.search(marks) or element.tag == "body":
            return bool(_PAGER_WORDS.search(marks))
    return bool(_PAGER_WORDS.search(anchor.get("class") or ""))


def plan_links(
    links: list[PageLink],
    page_type: str | None,
    items: list[dict[str, Any]] | None,
    text: str | None,
    policy: str,
    article_links: str,
    seed: bool = False,
) -> list[FollowLink]:
    """The links to follow from one page, each once, most urgent first.

    ``page-type``: on a list page, its items (``via`` list-item), its pager (pagination),
    then its other links; on an article page, per ``article_links``: the links whose
    context (its paragraph, list item...) is part of its extracted text (body: a tag or
    "related" link whose anchor word merely occurs in the text is not), every link (all),
    or none; a page of no known type keeps every link. A ``seed`` page (the crawl's entry point) keeps
    every link whatever its type: a home page mistaken for an article must not end the
    crawl of its site. ``flat``: every link, one priority.
    """
    if policy == "flat":
        return [FollowLink(link.url, VIA_LINK, PRIORITY[VIA_LINK]) for link in links]
    planned: dict[str, FollowLink] = {}
    if page_type == "list" or seed:
        for entry in items or []:
            url = entry.get("url")
            if url:
                planned.setdefault(url, FollowLink(url, VIA_LIST_ITEM, PRIORITY[VIA_LIST_ITEM]))
        for link in links:
            via = VIA_PAGINATION if link.pagination else VIA_LINK
            planned.setdefault(link.url, FollowLink(link.url, via, PRIORITY[via]))
    elif page_type == "article":
        body = _SPACE.sub(" ", text or "")
        for link in links:
            in_body = bool(link.text) and (link.context or link.text) in body
            keep = article_links == "all" or (article_links == "body" and in_body)
            if keep:
                planned.setdefault(link.url, FollowLink(link.url, VIA_LINK, PRIORITY[VIA_LINK]))
    else:
        for link in links:
            planned.setdefault(link.url, FollowLink(link.url, VIA_LINK, PRIORITY[VIA_LINK]))
    return sorted(planned.values(), key=lambda follow: -follow.priority)


@dataclass(frozen=True)
class FrontierConfig:
    """The frontier's settings, read once."""

    policy: str
    article_links: str
    depth_limit: int
    deny_extensions: list[str]
    label_mapping: LabelMapping

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> FrontierConfig:
        config = cls(
            policy=settings.get("PAGESIGHT_FRONTIER_POLICY"),
            article_links=settings.get("PAGESIGHT_FRONTIER_ARTICLE_LINKS"),
            depth_limit=settings.getint("DEPTH_LIMIT"),
            deny_extensions=settings.getlist("PAGESIGHT_DENY_EXTENSIONS"),
            label_mapping=page_type_mapping(settings),
        )
        if config.policy not in POLICIES:
            raise ValueError(
                f"PAGESIGHT_FRONTIER_POLICY must be one of {', '.join(POLICIES)}, got {config.policy!r}"
            )
        if config.article_links not in ARTICLE_LINKS:
            raise ValueError(
                f"PAGESIGHT_FRONTIER_ARTICLE_LINKS must be one of {', '.join(ARTICLE_LINKS)}, "
                f"got {config.article_links!r}"
            )
        return config


class FrontierPipeline:
    """The last pipeline: plans the links of each finished ok page (typed, extracted) and
    sends them with ``links_planned``; the spider, which knows its sites and whether it
    follows links at all, schedules them. Depth is counted here, since requests
    scheduled through the engine do not pass the depth middleware."""

    def __init__(self, crawler: Crawler, config: FrontierConfig):
        self.crawler = crawler
        self.config = config

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> FrontierPipeline:
        return cls(crawler, FrontierConfig.from_settings(crawler.settings))

    def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if item.status != STATUS_OK or item.capture is None:
            return item
        depth = item.depth + 1
        if self.config.depth_limit and depth > self.config.depth_limit:
            self.crawler.stats.inc_value("pagesight/frontier/depth_limited")
            return item
        base = item.capture.final_url or item.url
        links = page_links(item.capture.html, base, self.config.deny_extensions)
        page_type = page_type_label(self.config.label_mapping, item.page_type)
        plan = plan_links(
            links,
            page_type,
            item.items,
            item.text,
            self.config.policy,
            self.config.article_links,
            seed=item.via == VIA_SEED,
        )
        self.crawler.signals.send_catch_log(
            pagesight_signals.links_planned, item=item, links=plan, depth=depth
        )
        return item
