"""End-to-end: the frontier, seed lists and near-duplicates in real crawls of the demo web."""

from __future__ import annotations

from collections import Counter

import pytest

from crawler.demo import DemoWeb
from crawler.demo.generator import RSS_ITEMS
from tests.support.crawling import run_crawl

#: These tests start a real Chromium.
pytestmark = pytest.mark.e2e

VIAS = {"seed", "sitemap", "feed", "list-item", "pagination", "link"}


def test_every_line_says_how_its_page_was_reached(demo_crawl):
    records = demo_crawl.run.records
    assert {record["via"] for record in records} <= VIAS
    counts = Counter(record["via"] for record in records)
    assert counts["seed"] == 4 and counts["list-item"] and counts["pagination"]
    gold_types = {page["url"]: page["page_type"] for page in demo_crawl.gold}
    list_items = [r for r in records if r["via"] == "list-item" and r["url"] in gold_types]
    assert list_items and all(gold_types[r["url"]] == "article" for r in list_items)


def test_syndicated_copies_are_flagged_with_their_original(demo_crawl):
    copies = [page for page in demo_crawl.gold if "near_duplicate_of" in page]
    assert len(copies) == 4
    # Whichever of the pair the crawl reached second names the other; an original that
    # answers 5xx (error_rate) has no text to match.
    ok = {r["url"] for r in demo_crawl.run.records if r["status"] == "ok"}
    pairs = {
        frozenset((c["url"], c["near_duplicate_of"]))
        for c in copies
        if {c["url"], c["near_duplicate_of"]} <= ok
    }
    assert len(pairs) >= 2
    flagged = {
        frozenset((r["url"], r["near_duplicate_of"]))
        for r in demo_crawl.run.records
        if r.get("near_duplicate_of")
    }
    # Articles: exactly the syndicated pairs. Index pages of a small site may repeat each
    # other (a month's archive holds the home index's stories): a flagged pair that is no
    # article is two list pages.
    types = {page["url"]: page["page_type"] for page in demo_crawl.gold}
    articles = {pair for pair in flagged if any(types.get(url) == "article" for url in pair)}
    assert articles == pairs
    assert all(types.get(url) == "list" for pair in flagged - articles for url in pair)
    ok_with_text = [r for r in demo_crawl.run.records if r["status"] == "ok" and r["text"]]
    assert all(len(r["simhash"]) == 16 for r in ok_with_text)


def test_robots_sitemaps_and_a_feed_seed_the_crawl_with_their_dates(tmp_path):
    with DemoWeb(seed=2026) as demo:
        portal, _, _, magazine = demo.sites
        run = run_crawl(
            tmp_path,
            f"start_urls={magazine.base_url}/",
            "sitemaps=robots",
            f"feed={portal.base_url}/feed.xml",
            "follow=false",
            settings={"PAGESIGHT_REPORT_DIR": "", "PAGESIGHT_SCORE_ENABLED": False},
        )
        gold = {page["url"]: page for page in demo.gold}
    assert run.returncode == 0, run.log[-3000:]
    by_via = Counter(record["via"] for record in run.records)
    magazine_gold = [url for url in gold if url.startswith(magazine.base_url)]
    assert by_via["feed"] == min(RSS_ITEMS, 12)
    # Every magazine page is in its sitemaps (the home page is the seed, reached first).
    assert {r["url"] for r in run.records if r["via"] in ("sitemap", "seed")} == set(magazine_gold)
    for record in run.records:
        if record["via"] == "feed" or (record["via"] == "sitemap" and gold[record["url"]].get("published")):
            assert record["seed_date"], record["url"]
        assert record["status"] == "ok", record
