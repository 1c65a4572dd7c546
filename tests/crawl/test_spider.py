"""The news spider's arguments, seeds, follow rules and error lines."""

import pickle

import pytest
from playwright.async_api import TimeoutError as PlaywrightTimeout
from scrapy.crawler import Crawler
from scrapy.http import HtmlResponse, Request
from scrapy.settings import Settings
from twisted.python.failure import Failure

from crawler.items import PageCapture
from crawler.middlewares import CAPTURE_META_KEY, CAPTURE_RESULT_KEY, CAPTURE_SKIP_KEY
from crawler.signals import demo_web_started
from crawler.spiders.news import VIA_META_KEY, NewsSpider, parse_bool, read_urls_file
from pipelines.urls import site_of
from pipelines.version import PAGESIGHT_VERSION
from tests.support.project_settings import pagesight_settings


def make_spider(**kwargs):
    """A spider made as a crawl makes it: before the settings are frozen."""
    settings = Settings(pagesight_settings(PAGESIGHT_DENY_EXTENSIONS=["pdf"]))
    crawler = Crawler(NewsSpider, settings, init_reactor=True)
    spider = NewsSpider.from_crawler(crawler, **kwargs)
    crawler._apply_settings()  # as Crawler.crawl does next: add-ons, stats, frozen settings
    return spider


@pytest.mark.parametrize(
    ("url", "site"),
    [
        ("https://www.Example.com/a?b=1", "example.com"),
        ("http://news.example.com:80/", "news.example.com"),
        ("http://127.0.0.1:8801/x", "127.0.0.1:8801"),
        ("https://example.org:8443/", "example.org:8443"),
    ],
)
def test_site_of(url, site):
    assert site_of(url) == site


@pytest.mark.parametrize(("text", "value"), [("false", False), ("0", False), ("yes", True), (True, True)])
def test_parse_bool(text, value):
    assert parse_bool(text, "follow") is value


def test_parse_bool_rejects_garbage_naming_the_argument():
    with pytest.raises(ValueError, match=r"^-a follow=maybe: not a boolean"):
        parse_bool("maybe", "follow")


def test_unknown_arguments_are_refused_but_the_schedulers_pass():
    with pytest.raises(
        ValueError, match=r"^unknown spider argument -a start_url: the news spider takes start_urls,"
    ):
        NewsSpider(start_url="http://a.example/")
    assert NewsSpider(start_urls="http://a.example/", _job="0123", _version="1").seed_urls == [
        "http://a.example/"
    ]


def test_start_urls_and_urls_file(tmp_path):
    urls = tmp_path / "urls.txt"
    urls.write_text("# seeds\nhttp://c.example/\n\n  http://d.example/x  \n", encoding="utf-8")
    spider = make_spider(start_urls="http://a.example/, http://b.example/", urls_file=str(urls))
    assert spider.seed_urls == [
        "http://a.example/",
        "http://b.example/",
        "http://c.example/",
        "http://d.example/x",
    ]
    assert spider.allowed_sites == {"a.example", "b.example", "c.example", "d.example"}
    assert read_urls_file(urls) == ["http://c.example/", "http://d.example/x"]


@pytest.mark.parametrize("url", ["ftp://x.example/", "notaurl", "http:///nohost"])
def test_bad_start_url_is_a_clear_error(url):
    with pytest.raises(ValueError, match=f"start URL '{url}' is not an http"):
        make_spider(start_urls=url)


def test_missing_urls_file_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match=r"urls_file .*missing\.txt: cannot read it: No such file"):
        make_spider(urls_file=str(tmp_path / "missing.txt"))


def test_follow_false_and_gold_arguments():
    spider = make_spider(start_urls="http://a.example/", follow="false", gold="gold.jsonl")
    assert spider.follow is False
    assert spider.crawler.settings.get("PAGESIGHT_GOLD") == "gold.jsonl"
    assert spider.crawler.settings.getbool("PAGESIGHT_DEMO_WEB") is False


def test_no_urls_turns_the_demo_web_on_and_takes_its_home_pages():
    spider = make_spider()
    assert spider.crawler.settings.getbool("PAGESIGHT_DEMO_WEB") is True
    assert spider.seed_urls == []
    spider.crawler.signals.send_catch_log(
        demo_web_started, seed_urls=["http://127.0.0.1:8801/"], gold_path="g"
    )
    assert spider.seed_urls == ["http://127.0.0.1:8801/"]
    assert spider.allowed_sites == {"127.0.0.1:8801"}


def captured_response(url, body, capture=True):
    request = Request(url, meta={CAPTURE_META_KEY: True, "depth": 1})
    response = HtmlResponse(url, body=body, encoding="utf-8", request=request)
    if capture:
        response.meta[CAPTURE_RESULT_KEY] = PageCapture(
            html=body.decode(),
            screenshot_png=b"png",
            boxes=[],
            viewport_width=1366,
            page_height=900,
            screenshot_height=900,
        )
    else:
        response.meta[CAPTURE_SKIP_KEY] = "not HTML (application/pdf)"
    return response


def test_parse_yields_only_the_item_links_wait_for_the_frontier():
    spider = make_spider(start_urls="http://a.example/")
    (item,) = spider.parse(captured_response("http://a.example/", b"<a href='/one'>1</a>"))
    assert item.status == "ok" and item.capture is not None and item.depth == 1
    assert item.provenance == {"pagesight": PAGESIGHT_VERSION}


def test_follow_request_stays_on_the_crawl_sites_and_pickles():
    spider = make_spider(start_urls="http://a.example/")
    assert spider.follow_request("http://other.example/", "link", 0, 1) is None
    request = spider.follow_request("http://a.example/one", "list-item", 30, 2)
    assert request.priority == 30 and request.meta[CAPTURE_META_KEY]
    assert request.meta["depth"] == 2 and request.meta[VIA_META_KEY] == "list-item"
    # Scheduled requests must survive pickling (a Redis scheduler stores them).
    pickle.dumps(request.meta)


def test_non_html_response_is_a_skipped_line():
    spider = make_spider(start_urls="http://a.example/")
    (item,) = spider.parse(captured_response("http://a.example/x", b"%PDF", capture=False))
    assert item.status == "skipped"
    assert "application/pdf" in item.error


def test_errback_turns_a_failure_into_an_error_line():
    spider = make_spider(start_urls="http://a.example/")
    request = Request("http://a.example/slow")
    try:
        raise PlaywrightTimeout("page.goto: Timeout 3000ms exceeded.")
    except PlaywrightTimeout:
        failure = Failure()
    failure.request = request
    item = spider.on_error(failure)
    assert item.status == "error"
    assert item.error == "timeout: page.goto: Timeout 3000ms exceeded."
    assert item.url == "http://a.example/slow"
