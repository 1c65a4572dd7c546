"""Seed lists the web publishes: sitemaps (index, urlset, Google News), RSS and Atom feeds,
and robots.txt ``Sitemap:`` lines. Pure parsing: bytes in, (URL, date) entries out."""

from __future__ import annotations

import gzip
from dataclasses import dataclass

from lxml import etree

GZIP_MAGIC = b"\x1f\x8b"
#: Largest sitemap or feed read, bytes (the sitemap protocol's own limit is 50 MB).
MAX_SEED_LIST_BYTES = 50 * 1024 * 1024


@dataclass(frozen=True)
class SeedEntry:
    """A URL a seed list names, with the date it gives (or None)."""

    url: str
    date: str | None = None


@dataclass(frozen=True)
class Sitemap:
    """A parsed sitemap: an index names further sitemaps, a urlset names pages."""

    is_index: bool
    entries: list[SeedEntry]


class SeedListError(ValueError):
    """A sitemap or feed that cannot be read."""


def _root(body: bytes) -> etree._Element:
    if body[:2] == GZIP_MAGIC:
        try:
            body = gzip.decompress(body)
        except (OSError, EOFError) as error:
            raise SeedListError(f"broken gzip: {error}") from error
    if len(body) > MAX_SEED_LIST_BYTES:
        raise SeedListError(f"larger than {MAX_SEED_LIST_BYTES} bytes")
    parser = etree.XMLParser(resolve_entities=False, no_network=True, recover=True, huge_tree=False)
    root = etree.fromstring(body, parser=parser) if body.strip() else None
    if root is None:
        raise SeedListError("not XML")
    return root


def _local(element: etree._Element) -> str:
    return etree.QName(element).localname.lower() if isinstance(element.tag, str) else ""


def _child_text(element: etree._Element, *names: str) -> str | None:
    """Text of the first descendant named any of ``names`` (namespace ignored), in ``names`` order."""
    for name in names:
        for child in element.iter():
            if _local(child) == name and child.text and child.text.strip():
                return str(child.text).strip()
    return None


def parse_sitemap(body: bytes) -> Sitemap:
    """A sitemap index (its sitemaps) or urlset (its pages; the date is the Google News
    ``publication_date`` if any, else ``lastmod``)."""
    root = _root(body)
    kind = _local(root)
    if kind not in ("sitemapindex", "urlset"):
        raise SeedListError(f"not a sitemap: root element <{kind}>")
    child = "sitemap" if kind == "sitemapindex" else "url"
    entries = []
    for element in root:
        if _local(element) != child:
            continue
        loc = _child_text(element, "loc")
        if loc:
            entries.append(SeedEntry(loc, _child_text(element, "publication_date", "lastmod")))
    return Sitemap(is_index=kind == "sitemapindex", entries=entries)


def parse_feed(body: bytes) -> list[SeedEntry]:
    """The items of an RSS 2.0 feed (link, pubDate) or entries of an Atom feed (the
    alternate link, published or updated)."""
    root = _root(body)
    kind = _local(root)
    entries = []
    if kind == "rss":
        for item in root.iter():
            if _local(item) == "item" and (link := _child_text(item, "link")):
                entries.append(SeedEntry(link, _child_text(item, "pubdate", "date")))
    elif kind == "feed":
        for entry in root:
            if _local(entry) != "entry":
                continue
            links = [c for c in entry if _local(c) == "link" and c.get("rel", "alternate") == "alternate"]
            if links and links[0].get("href"):
                entries.append(SeedEntry(links[0].get("href"), _child_text(entry, "published", "updated")))
    else:
        raise SeedListError(f"not an RSS or Atom feed: root element <{kind}>")
    return entries


def robots_sitemaps(body: bytes) -> list[str]:
    """The URLs of a robots.txt's ``Sitemap:`` lines, in order."""
    urls = []
    for line in body.decode("utf-8", errors="replace").splitlines():
        name, _, value = line.partition(":")
        if name.strip().lower() == "sitemap" and value.strip():
            urls.append(value.strip())
    return urls
