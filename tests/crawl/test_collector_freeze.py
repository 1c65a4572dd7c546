"""The objects alive when the spider opens stay out of Python's garbage collector until it closes."""

from __future__ import annotations

import gc

import pytest
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from crawler.extensions import CollectorFreezeExtension
from crawler.spiders.news import NewsSpider
from tests.support.project_settings import pagesight_settings


@pytest.fixture
def unfrozen():
    assert gc.get_freeze_count() == 0
    yield
    gc.unfreeze()


def test_open_freezes_what_is_alive_and_close_gives_it_back(unfrozen):
    crawler = get_crawler(NewsSpider, pagesight_settings())
    extension = CollectorFreezeExtension.from_crawler(crawler)  # the signals hold it weakly
    crawler.stats.open_spider(None)
    alive = object.__new__(type("Alive", (), {}))  # a tracked object made before the spider opens
    crawler.signals.send_catch_log(signals.spider_opened, spider=None)
    assert gc.get_freeze_count() > 0
    assert crawler.stats.get_value("pagesight/memory/gc_frozen_objects") >= gc.get_freeze_count()
    assert not any(thing is alive for thing in gc.get_objects())  # frozen ones are not walked
    after = object.__new__(type("After", (), {}))
    assert any(thing is after for thing in gc.get_objects())  # what the crawl makes is collected
    crawler.signals.send_catch_log(signals.spider_closed, spider=None, reason="finished")
    assert gc.get_freeze_count() == 0
    assert any(thing is alive for thing in gc.get_objects())
    assert extension.crawler is crawler


def test_off_when_the_setting_is_off():
    with pytest.raises(NotConfigured):
        CollectorFreezeExtension.from_crawler(
            get_crawler(NewsSpider, pagesight_settings(PAGESIGHT_GC_FREEZE=False))
        )
