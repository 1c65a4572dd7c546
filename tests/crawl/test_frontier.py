"""The frontier: links planned from a finished page's type and items, scheduled late."""

from __future__ import annotations

import html
import random

import pytest
from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.linkextractors import IGNORED_EXTENSIONS
from scrapy.settings import Settings

from crawler.frontier import FrontierConfig, FrontierPipeline, PageLink, page_links, plan_links
from crawler.items import PageCapture, PageItem
from crawler.spiders.news import VIA_META_KEY, NewsSpider
from pipelines.urls import site_of
from tests.support.project_settings import pagesight_settings

LIST_PAGE = """<html><body>
<nav><a href="/">Home</a> <a href="/world/">World</a></nav>
<ul><li><a href="/a/1.html">Harbour ferries resume</a></li><li><a href="/a/2.html">Markets calm</a></li></ul>
<nav class="pagination"><a href="/?page=2">2</a> <a class="next" href="/?page=2">Older</a></nav>
<a href="/files/report.pdf">Report</a> <a href="mailto:x@a.example">Mail</a> <a href="/world/#top">World</a>
</body></html>"""

ARTICLE_PAGE = """<html><body><nav><a href="/world/">World</a></nav>
<article><p>The council met the <a href="/a/9.html">harbour board</a> on Monday.</p></article>
<aside><a href="/a/3.html">Related story</a></aside></body></html>"""


def test_page_links_absolute_unique_and_pager_marked():
    links = page_links(LIST_PAGE, "http://a.example/", deny_extensions=["pdf"])
    assert [link.url for link in links] == [
        "http://a.example/",
        "http://a.example/world/",
        "http://a.example/a/1.html",
        "http://a.example/a/2.html",
        "http://a.example/?page=2",
    ]
    assert [link.pagination for link in links] == [False, False, False, False, True]


def test_a_list_page_schedules_items_then_pagination_then_other_links():
    links = page_links(LIST_PAGE, "http://a.example/")
    items = [{"url": "http://a.example/a/1.html"}, {"url": "http://a.example/a/2.html"}]
    plan = plan_links(links, "list", items, None, "page-type", "body")
    assert [(f.url.removeprefix("http://a.example"), f.via) for f in plan] == [
        ("/a/1.html", "list-item"),
        ("/a/2.html", "list-item"),
        ("/?page=2", "pagination"),
        ("/", "link"),
        ("/world/", "link"),
        ("/files/report.pdf", "link"),
    ]
    assert plan[0].priority > plan[2].priority > plan[3].priority


@pytest.mark.parametrize(
    ("article_links", "followed"),
    [("body", ["/a/9.html"]), ("all", ["/world/", "/a/9.html", "/a/3.html"]), ("none", [])],
)
def test_an_article_page_follows_its_body_links(article_links, followed):
    links = page_links(ARTICLE_PAGE, "http://a.example/a/5.html")
    text = "The council met the harbour board on Monday."
    plan = plan_links(links, "article", None, text, "page-type", article_links)
    assert [f.url.removeprefix("http://a.example") for f in plan] == followed
    assert {f.via for f in plan} <= {"link"}


def test_a_topic_link_whose_word_occurs_in_the_body_is_no_body_link():
    html = """<html><body><article><p>Harbour ferries resume after the <a href="/a/8.html">storm</a>.</p>
    <div class="topics">Topics: <a href="/tag/harbour/">Harbour</a> <a href="/tag/storm/">storm</a></div>
    </article></body></html>"""
    links = page_links(html, "http://a.example/a/5.html")
    assert links[0].context == "Harbour ferries resume after the storm."
    text = "Harbour ferries resume after the storm."
    plan = plan_links(links, "article", None, text, "page-type", "body")
    assert [f.url.removeprefix("http://a.example") for f in plan] == ["/a/8.html"]


def test_flat_policy_and_untyped_pages_keep_every_link_at_one_priority():
    links = [PageLink("http://a.example/x", "x", False), PageLink("http://a.example/?p=2", "2", True)]
    for plan in (
        plan_links(links, "list", [], None, "flat", "body"),
        plan_links(links, None, None, None, "page-type", "body"),
    ):
        assert [(f.via, f.priority) for f in plan] == [("link", 0), ("link", 0)]


def test_bad_frontier_settings_are_refused():
    with pytest.raises(ValueError, match="PAGESIGHT_FRONTIER_POLICY"):
        FrontierConfig.from_settings(Settings(pagesight_settings(PAGESIGHT_FRONTIER_POLICY="random")))
    with pytest.raises(ValueError, match="PAGESIGHT_FRONTIER_ARTICLE_LINKS"):
        FrontierConfig.from_settings(Settings(pagesight_settings(PAGESIGHT_FRONTIER_ARTICLE_LINKS="some")))


class RecordingEngine:
    def __init__(self) -> None:
        self.requests = []

    def crawl(self, request) -> None:
        self.requests.append(request)


def frontier(depth_limit=4, **spider_args):
    """The pipeline and the spider listening to it, on one crawler whose engine records."""
    settings = Settings(pagesight_settings(DEPTH_LIMIT=depth_limit))
    crawler = Crawler(NewsSpider, settings, init_reactor=True)
    crawler.spider = NewsSpider.from_crawler(crawler, start_urls="http://a.example/", **spider_args)
    crawler._apply_settings()
    crawler.engine = RecordingEngine()
    return FrontierPipeline.from_crawler(crawler), crawler.engine


def list_item(depth=0):
    capture = PageCapture(LIST_PAGE, b"", [], 1366, 900, 900)
    items = [{"url": "http://a.example/a/1.html"}, {"url": "http://other.example/a/2.html"}]
    return PageItem(
        "http://a.example/", "a.example", page_type="list", items=items, depth=depth, capture=capture
    )


def test_pipeline_schedules_the_plan_within_the_sites_with_depth_and_via():
    pipeline, engine = frontier()
    pipeline.process_item(list_item())
    scheduled = [(r.url, r.meta[VIA_META_KEY], r.meta["depth"]) for r in engine.requests]
    assert scheduled[0] == ("http://a.example/a/1.html", "list-item", 1)
    assert ("http://a.example/?page=2", "pagination", 1) in scheduled
    assert not any("other.example" in url for url, _, _ in scheduled)


def test_pipeline_stops_at_the_depth_limit_and_without_follow():
    pipeline, engine = frontier(depth_limit=2)
    pipeline.process_item(list_item(depth=2))
    assert engine.requests == []
    pipeline, engine = frontier(follow="false")
    pipeline.process_item(list_item())
    assert engine.requests == []


def test_a_page_wrapper_named_page_is_no_pager():
    html = '<body class="page-list"><div id="page"><a href="/a/1.html">Story</a></div></body>'
    assert [link.pagination for link in page_links(html, "http://a.example/")] == [False]


def test_a_seed_page_keeps_its_links_even_when_typed_article():
    """The demo crawl under a consent banner once typed the portal's home page an article."""
    links = page_links(LIST_PAGE, "http://a.example/")
    plan = plan_links(links, "article", None, "", "page-type", "body", seed=True)
    assert [f.url.removeprefix("http://a.example") for f in plan][:1] == ["/?page=2"]
    assert {f.url.removeprefix("http://a.example") for f in plan} >= {"/world/", "/a/1.html", "/a/2.html"}


#: Hrefs real pages carry that are no request: ports with text, scripts with colons,
#: unbalanced brackets, IPv6 literals, very long addresses, control characters.
MALFORMED_PIECES = [
    "http://a.example:Some Text/",
    "http://a.example:80:80/x",
    "https://a.example:-1/",
    "http://a.example:99999999999/",
    "javascript:void(0):alert('a:b')",
    "JavaScript:go('x:y')",
    "http://[::1",
    "http://[::1]:8080/ok",
    "http://[fe80::1%25eth0]/",
    "http://::1]/",
    "http://a.example/a]b[c",
    "http://a.example/" + "x" * 10_000,
    "/path\x00with\x01controls\x7f",
    "http://a.example/\tta\nb\r/",
    "http:///no-host",
    "http://",
    "//a.example:port/",
    "http://a.example/%zz%",
    "http://user:pa:ss@a.example/",
    "http://a.example/\u2028line",
    "data:text/html,<a href=x>",
]


def fuzzed_hrefs(count: int, seed: int = 67) -> list[str]:
    """Malformed pieces, alone and glued to each other and to good links."""
    rng = random.Random(seed)
    good = ["/a/1.html", "http://a.example/b", "?page=2", "#top"]
    hrefs = list(MALFORMED_PIECES)
    for _ in range(count):
        parts = rng.sample(MALFORMED_PIECES + good, rng.randint(1, 3))
        hrefs.append(rng.choice(["", " ", ":", "[", "]"]).join(parts))
    return hrefs


def test_fuzzed_malformed_hrefs_yield_only_links_that_can_be_requests():
    hrefs = fuzzed_hrefs(400)
    anchors = "".join(
        f'<a href="{html.escape(href, quote=True)}">link {i}</a>' for i, href in enumerate(hrefs)
    )
    page = f"<html><body><p>{anchors}</p><a href='/a/1.html'>Story</a></body></html>"
    links = page_links(page, "http://a.example/", deny_extensions=IGNORED_EXTENSIONS)
    assert "http://a.example/a/1.html" in [link.url for link in links]
    for link in links:
        Request(link.url)  # what the scheduler would build: must not raise
        assert site_of(link.url)


def test_a_page_of_malformed_links_plans_and_schedules_without_raising():
    hrefs = fuzzed_hrefs(200, seed=2026)
    anchors = "".join(f'<li><a href="{html.escape(href, quote=True)}">x</a></li>' for href in hrefs)
    page = f"<html><body><ul>{anchors}</ul><ul><li><a href='/a/1.html'>Story</a></li></ul></body></html>"
    pipeline, engine = frontier()
    item = PageItem(
        "http://a.example/", "a.example", page_type="list", capture=PageCapture(page, b"", [], 1366, 900, 900)
    )
    assert pipeline.process_item(item) is item and item.warnings == []
    assert "http://a.example/a/1.html" in [request.url for request in engine.requests]
