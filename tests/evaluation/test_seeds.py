"""Seed lists: sitemaps (index, urlset, Google News), RSS/Atom, robots.txt Sitemap lines;
the demo web publishes them; the spider seeds its frontier from them."""

from __future__ import annotations

import gzip
from urllib.parse import urljoin

import pytest
from scrapy.http import Request, TextResponse, XmlResponse

from crawler.demo.generator import NEWS_SITEMAP_PATH, RSS_ITEMS, RSS_PATH, SITEMAP_INDEX_PATH, build_web
from crawler.seeds import SeedEntry, SeedListError, parse_feed, parse_sitemap, robots_sitemaps
from crawler.spiders.news import SEED_DATE_META_KEY, VIA_META_KEY
from pipelines.evaluation.fingerprint import hamming_distance
from pipelines.evaluation.scoring import text_fingerprint
from tests.crawl.test_frontier import RecordingEngine
from tests.crawl.test_spider import make_spider

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
<entry><title>a</title><link rel="alternate" href="http://a.example/1"/><link rel="edit" href="http://a.example/e"/>
<updated>2026-01-02T00:00:00Z</updated><published>2026-01-01T00:00:00Z</published></entry>
<entry><title>b</title><link href="http://a.example/2"/></entry></feed>"""


def test_atom_entries_with_their_alternate_link_and_date():
    assert parse_feed(ATOM) == [
        SeedEntry("http://a.example/1", "2026-01-01T00:00:00Z"),
        SeedEntry("http://a.example/2", None),
    ]


def test_gzipped_sitemap_and_bad_lists():
    body = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.example/x</loc></url></urlset>'
    assert parse_sitemap(gzip.compress(body)).entries == [SeedEntry("http://a.example/x")]
    with pytest.raises(SeedListError, match="not a sitemap"):
        parse_sitemap(ATOM)
    with pytest.raises(SeedListError, match="not an RSS or Atom feed"):
        parse_feed(body)
    with pytest.raises(SeedListError):
        parse_sitemap(b"")


def test_robots_sitemap_lines():
    robots = b"User-agent: *\nDisallow: /private/\nSITEMAP: http://a.example/s.xml\nsitemap:/news.xml\n"
    assert robots_sitemaps(robots) == ["http://a.example/s.xml", "/news.xml"]


@pytest.mark.parametrize("model", build_web(2026, 12), ids=lambda m: m.spec.name)
def test_demo_sites_publish_sitemaps_and_a_feed(model):
    gold = {record["url"]: record for record in model.gold_records()}
    articles = {url for url, record in gold.items() if record["page_type"] == "article"}
    assert robots_sitemaps(model.pages["/robots.txt"].body) == [SITEMAP_INDEX_PATH]
    index = parse_sitemap(model.pages[SITEMAP_INDEX_PATH].body)
    assert index.is_index and NEWS_SITEMAP_PATH in [entry.url for entry in index.entries]
    listed = {}
    for entry in index.entries:
        sitemap = parse_sitemap(model.pages[entry.url].body)
        assert not sitemap.is_index
        listed.update({e.url: e.date for e in sitemap.entries})
    assert set(listed) == set(gold)
    news = parse_sitemap(model.pages[NEWS_SITEMAP_PATH].body).entries
    assert {e.url: e.date for e in news} == {
        url: gold[url]["published"] for url in articles if not url.startswith("/syndicated/")
    }
    feed = parse_feed(model.pages[RSS_PATH].body)
    assert len(feed) == min(RSS_ITEMS, len(news)) and {e.url for e in feed} <= articles
    assert all(e.date for e in feed)


@pytest.mark.parametrize("model", build_web(2026, 12), ids=lambda m: m.spec.name)
def test_each_site_has_a_syndicated_copy_whose_gold_names_the_original(model):
    gold = {record["url"]: record for record in model.gold_records()}
    copies = [record for record in gold.values() if "near_duplicate_of" in record]
    assert len(copies) == 1
    (copy,) = copies
    original = gold[copy["near_duplicate_of"]]
    assert (
        copy["url"] != original["url"] and model.pages[copy["url"]].body != model.pages[original["url"]].body
    )
    assert hamming_distance(text_fingerprint(copy["text"]), text_fingerprint(original["text"])) <= 3


def test_the_spider_seeds_from_a_sitemap_index_feed_and_robots():
    model = build_web(2026, 12)[0]
    base = "http://127.0.0.1:8801"
    spider = make_spider(sitemap=base + SITEMAP_INDEX_PATH, feed=base + RSS_PATH)
    spider.crawler.engine = RecordingEngine()

    def scheduled(callback, response):
        spider.crawler.engine.requests = []
        callback(response)
        return spider.crawler.engine.requests

    def respond(path, cls=XmlResponse):
        return cls(base + path, body=model.pages[path].body, request=Request(base + path))

    children = scheduled(spider.parse_sitemap, respond(SITEMAP_INDEX_PATH))
    assert [r.url for r in children] == [
        urljoin(base, e.url) for e in parse_sitemap(model.pages[SITEMAP_INDEX_PATH].body).entries
    ]
    pages = scheduled(spider.parse_sitemap, respond(NEWS_SITEMAP_PATH))
    assert pages and all(r.meta[VIA_META_KEY] == "sitemap" and r.meta[SEED_DATE_META_KEY] for r in pages)
    feed = scheduled(spider.parse_feed, respond(RSS_PATH))
    assert len(feed) == min(RSS_ITEMS, 12) and {r.meta[VIA_META_KEY] for r in feed} == {"feed"}
    robots = scheduled(spider.parse_robots, respond("/robots.txt", TextResponse))
    assert [r.url for r in robots] == [base + SITEMAP_INDEX_PATH]
