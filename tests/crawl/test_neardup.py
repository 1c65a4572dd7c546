"""The near-duplicate index: bit-permutation tables over 64-bit simhash fingerprints, in
memory and shared through Redis by the workers of a distributed crawl."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator

import pytest
import redis
from scrapy.utils.test import get_crawler

from crawler.distributed.neardup import RedisFingerprintStore
from crawler.items import PageItem
from crawler.spiders.news import NewsSpider
from pipelines.dedupe import NearDuplicatePipeline
from pipelines.evaluation.fingerprint import FINGERPRINT_BITS, hamming_distance, simhash_fingerprint
from pipelines.neardup import MemoryFingerprintStore, NearDuplicateIndex, block_bounds
from tests.support.paths import ROOT
from tests.support.project_settings import pagesight_settings
from tests.support.redis_server import running_redis


def flip(fingerprint: int, bits: list[int]) -> int:
    for bit in bits:
        fingerprint ^= 1 << bit
    return fingerprint


@pytest.mark.parametrize("max_distance", [0, 3, 6, 9])
def test_blocks_cut_all_64_bits(max_distance):
    bounds = block_bounds(max_distance)
    assert len(bounds) == max_distance + 1
    assert sum(width for _, width in bounds) == FINGERPRINT_BITS
    assert [shift for shift, _ in bounds] == [sum(w for _, w in bounds[:i]) for i in range(len(bounds))]


def test_max_distance_out_of_range_is_refused():
    with pytest.raises(ValueError, match="max_distance"):
        NearDuplicateIndex(64)


@pytest.mark.parametrize("max_distance", [1, 3, 5])
def test_finds_every_fingerprint_within_the_distance_and_none_beyond(max_distance):
    """Against brute force, on random fingerprints and on flips of them."""
    rng = random.Random(7)
    index = NearDuplicateIndex(max_distance)
    filed: list[tuple[int, str]] = []
    for number in range(400):
        if filed and rng.random() < 0.5:
            base = rng.choice(filed)[0]
            fingerprint = flip(base, rng.sample(range(64), rng.randint(0, max_distance + 2)))
        else:
            fingerprint = rng.getrandbits(64)
        url = f"https://example.com/{number}"
        near = [u for f, u in filed if hamming_distance(f, fingerprint) <= max_distance]
        found = index.add(fingerprint, url)
        assert (found is None) == (not near)
        assert found is None or found in near
        filed.append((fingerprint, url))


def test_a_shared_store_is_used():
    store = MemoryFingerprintStore()
    NearDuplicateIndex(3, store).add(0xDEADBEEF, "https://a.example/")
    assert NearDuplicateIndex(3, store).add(flip(0xDEADBEEF, [0, 40, 63]), "https://b.example/") == (
        "https://a.example/"
    )


def test_texts_that_differ_by_a_credit_line_are_near_duplicates():
    body = " ".join(f"Sentence {n} of the wire story about the harbour and its ferries." for n in range(60))
    original = simhash_fingerprint(body)
    copy = simhash_fingerprint("This story first appeared on the Daily Meridian. " + body)
    index = NearDuplicateIndex(3)
    index.add(original, "https://a.example/story")
    assert index.add(copy, "https://b.example/wire/story") == "https://a.example/story"
    assert index.add(simhash_fingerprint("A different story, about markets. " * 30), "https://c/") is None


@pytest.fixture
def redis_url() -> Iterator[str]:
    with running_redis() as url:
        yield url


#: Another worker: files one fingerprint in the shared tables, prints its near-duplicate's URL.
OTHER_WORKER = """
import sys, redis
from crawler.distributed.neardup import RedisFingerprintStore
from pipelines.neardup import NearDuplicateIndex
store = RedisFingerprintStore(redis.Redis.from_url(sys.argv[1]), "news:neardup:3")
print(NearDuplicateIndex(3, store).add(int(sys.argv[2], 16), sys.argv[3]))
"""


def add_in_another_process(url: str, fingerprint: int, page: str) -> str:
    command = [sys.executable, "-c", OTHER_WORKER, url, f"{fingerprint:x}", page]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    return done.stdout.strip()


def test_processes_see_each_others_fingerprints_through_redis(redis_url):
    original = 0xDEADBEEF12345678
    assert add_in_another_process(redis_url, original, "https://a.example/") == "None"
    store = RedisFingerprintStore(redis.Redis.from_url(redis_url), "news:neardup:3")
    here = NearDuplicateIndex(3, store)
    assert here.add(flip(original, [1, 33]), "https://b.example/") == "https://a.example/"
    assert here.add(flip(original, [0, 10, 20, 30, 40]), "https://far.example/") is None
    assert add_in_another_process(redis_url, flip(original, [2, 50, 63]), "https://c.example/") == (
        "https://a.example/"
    )
    assert store.buckets(here.keys(original))[0][0] == (original, "https://a.example/")


def test_the_pipeline_shares_its_tables_when_the_crawl_is_distributed(redis_url):
    def pipeline(**settings):
        crawler = get_crawler(NewsSpider, pagesight_settings(**settings))
        return NearDuplicatePipeline.from_crawler(crawler)

    text = " ".join(f"Sentence {n} of the wire story about the harbour and its ferries." for n in range(60))
    first, second = pipeline(PAGESIGHT_REDIS_URL=redis_url), pipeline(PAGESIGHT_REDIS_URL=redis_url)
    assert isinstance(first.index.store, RedisFingerprintStore)
    assert first.index.store.prefix == "news:neardup:3"
    assert (
        first.process_item(PageItem("https://a.example/s", "a.example", text=text)).near_duplicate_of is None
    )
    copy = second.process_item(PageItem("https://b.example/s", "b.example", text="From the wire. " + text))
    assert copy.near_duplicate_of == "https://a.example/s"
    assert isinstance(pipeline().index.store, MemoryFingerprintStore)
