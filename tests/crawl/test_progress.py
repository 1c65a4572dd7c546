"""The progress line: pages done and scheduled, pages/s, errors and page types so far."""

from __future__ import annotations

import logging

import pytest
from scrapy import Request
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from crawler.items import STATUS_ERROR, PageItem
from crawler.progress import Progress, ProgressExtension
from crawler.spiders.news import NewsSpider
from tests.support.project_settings import pagesight_settings


def test_progress_counts_pages_errors_and_types():
    progress = Progress(started=100.0)
    for page_type in ("article", "list", "article", None):
        progress.add(PageItem(url="http://a/", site="a", page_type=page_type))
    progress.add(PageItem(url="http://a/x", site="a", status=STATUS_ERROR))
    assert (progress.done, progress.errors) == (5, 1)
    assert progress.summary(now=110.0) == "0.50 pages/s, 1 errors, article 2, list 1"


def test_the_extension_logs_done_of_scheduled_when_not_on_a_terminal(caplog):
    crawler = get_crawler(NewsSpider, pagesight_settings())
    extension = ProgressExtension.from_crawler(crawler)
    assert not extension.config.live  # pytest captures stderr: no live bar
    for url in ("http://a/1", "http://a/2", "http://a/3", "http://a/1"):
        extension.request_scheduled(Request(url), spider=None)
    extension.request_dropped(Request("http://a/1"), spider=None)  # the duplicate
    extension.item_scraped(PageItem(url="http://a/1", site="a", page_type="article"), spider=None)
    with caplog.at_level(logging.INFO, logger="crawler.progress"):
        extension.log_line()
    assert "Progress: 1 pages done of 3 scheduled;" in caplog.text and "article 1" in caplog.text


def test_interval_zero_turns_it_off():
    with pytest.raises(NotConfigured):
        ProgressExtension.from_crawler(
            get_crawler(NewsSpider, pagesight_settings(PAGESIGHT_PROGRESS_INTERVAL=0))
        )
