"""The crawl process's glibc heap: arenas capped, big blocks mapped, trimmed every N feed lines."""

from __future__ import annotations

import pytest
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from crawler import extensions
from crawler.extensions import M_ARENA_MAX, M_MMAP_THRESHOLD, GlibcHeapExtension, glibc_malloc_trim
from crawler.items import PageItem
from crawler.spiders.news import NewsSpider
from tests.support.project_settings import pagesight_settings


def test_the_heap_is_trimmed_every_n_feed_lines():
    crawler = get_crawler(NewsSpider, pagesight_settings(PAGESIGHT_MALLOC_TRIM_PAGES=3))
    extension = GlibcHeapExtension.from_crawler(crawler)
    calls: list[int] = []
    extension.trim = lambda pad: calls.append(pad) or 1
    for n in range(7):
        crawler.signals.send_catch_log(
            signals.item_scraped, item=PageItem(url=f"http://a/{n}", site="a"), response=None, spider=None
        )
    assert calls == [0, 0]
    assert crawler.stats.get_value("pagesight/memory/malloc_trims") == 2


def test_zeros_turn_it_off():
    off = {
        "PAGESIGHT_MALLOC_TRIM_PAGES": 0,
        "PAGESIGHT_MALLOC_ARENA_MAX": 0,
        "PAGESIGHT_MALLOC_MMAP_THRESHOLD": 0,
    }
    with pytest.raises(NotConfigured):
        GlibcHeapExtension.from_crawler(get_crawler(NewsSpider, pagesight_settings(**off)))


def test_the_arenas_are_capped_and_big_blocks_mapped_at_start(monkeypatch):
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(
        extensions, "glibc_mallopt", lambda: lambda parameter, value: calls.append((parameter, value)) or 1
    )
    crawler = get_crawler(NewsSpider, pagesight_settings(PAGESIGHT_MALLOC_TRIM_PAGES=0))
    extension = GlibcHeapExtension.from_crawler(crawler)
    assert calls == [(M_ARENA_MAX, 2), (M_MMAP_THRESHOLD, 131072)]  # the project's settings
    extension.trim = lambda pad: pytest.fail("PAGESIGHT_MALLOC_TRIM_PAGES=0 never trims")
    crawler.signals.send_catch_log(
        signals.item_scraped, item=PageItem(url="http://a/1", site="a"), response=None, spider=None
    )


@pytest.mark.skipif(extensions.glibc_mallopt() is None, reason="the C library is not glibc")
def test_glibc_takes_the_projects_heap_settings():
    mallopt = extensions.glibc_mallopt()
    assert mallopt is not None and mallopt(M_ARENA_MAX, 2) == 1 and mallopt(M_MMAP_THRESHOLD, 131072) == 1


@pytest.mark.skipif(glibc_malloc_trim() is None, reason="the C library is not glibc")
def test_glibc_trim_runs():
    trim = glibc_malloc_trim()
    assert trim is not None and trim(0) in (0, 1)


def test_the_trim_first_empties_trafilaturas_string_caches():
    from trafilatura.deduplication import Simhash, _vector_to_add
    from trafilatura.utils import trim

    crawler = get_crawler(NewsSpider, pagesight_settings(PAGESIGHT_MALLOC_TRIM_PAGES=2))
    extension = GlibcHeapExtension.from_crawler(crawler)
    extension.trim = lambda pad: 1
    trim("  a text node   kept as a cache key  ")
    Simhash("tokens of a page kept as the simhash's cache keys")
    caches = (trim, _vector_to_add)
    assert all(cache.cache_info().currsize >= 1 for cache in caches)
    for n in range(2):
        crawler.signals.send_catch_log(
            signals.item_scraped, item=PageItem(url=f"http://a/{n}", site="a"), response=None, spider=None
        )
    assert [cache.cache_info().currsize for cache in caches] == [0, 0]
