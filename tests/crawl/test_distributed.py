"""The distributed crawl on a real Redis: leases (take, renew, acknowledge, expire and put
back), and two `scrapy crawl news` workers sharing one frontier, one of them killed with
SIGKILL mid-crawl: nothing is lost and only its in-flight pages come twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
import redis
from scrapy import Request
from scrapy.utils.test import get_crawler
from scrapy_redis.dupefilter import RFPDupeFilter

from crawler.demo import DemoWeb, Faults
from crawler.distributed.meta import LEASE_META_KEY, RECRAWLED_META_KEY
from crawler.distributed.queue import LeaseQueue
from crawler.distributed.stats import SharedStatsCollector
from crawler.spiders.news import NewsSpider
from tests.support.crawling import processes_with_marker
from tests.support.paths import ROOT
from tests.support.project_settings import pagesight_settings
from tests.support.redis_server import running_redis


@pytest.fixture
def redis_url() -> Iterator[str]:
    with running_redis() as url:
        yield url


def lease_queue(url: str, lease_seconds: float) -> LeaseQueue:
    queue = LeaseQueue(redis.Redis.from_url(url), SimpleNamespace(name="news"), "%(spider)s:requests")
    queue.lease_seconds = lease_seconds
    return queue


def test_a_request_stays_leased_until_acknowledged(redis_url):
    queue = lease_queue(redis_url, lease_seconds=30)
    queue.push(Request("http://127.0.0.1/a", priority=1))
    queue.push(Request("http://127.0.0.1/b"))
    taken = queue.pop()
    assert taken.url == "http://127.0.0.1/a"  # priority order, as scrapy-redis'
    assert len(queue) == 1 and queue.outstanding() == 1
    queue.ack(taken.meta[LEASE_META_KEY])
    assert queue.outstanding() == 0 and queue.held == set()
    assert queue.put_back_expired() == 0


def test_an_expired_lease_puts_the_request_back_recrawled_and_a_renewed_one_stays(redis_url):
    dying = lease_queue(redis_url, lease_seconds=0.3)
    living = lease_queue(redis_url, lease_seconds=0.3)
    dying.push(Request("http://127.0.0.1/dies"))
    lost = dying.pop()
    living.push(Request("http://127.0.0.1/lives"))
    kept = living.pop()
    for _ in range(4):
        time.sleep(0.15)
        living.renew()
    assert living.put_back_expired() == 1  # only the dead worker's lease
    assert dying.put_back_expired() == 0  # put back once, whoever looks
    again = living.pop()
    assert again.url == lost.url and again.meta[RECRAWLED_META_KEY] and again.dont_filter
    assert kept.meta[LEASE_META_KEY] in living.held
    dying.ack(lost.meta[LEASE_META_KEY])  # the dead worker's late ack changes nothing
    assert living.outstanding() == 2


def test_workers_add_their_counters_to_the_shared_stats(redis_url):
    one, two = (
        SharedStatsCollector(get_crawler(NewsSpider, pagesight_settings(PAGESIGHT_REDIS_URL=redis_url)))
        for _ in range(2)
    )
    one.inc_value("pagesight/items/ok", 3)
    two.inc_value("pagesight/items/ok")
    two.set_value("start_time", "not a counter")
    assert one.get_value("pagesight/items/ok") == 3  # each worker's own stats stay its own
    assert one.shared() == two.shared() == {"pagesight/items/ok": 4}


def start_worker(out: Path, seeds: list[str], redis_url: str, marker: str) -> subprocess.Popen:
    """One `scrapy crawl news` worker on the shared frontier, in its own process group
    (so that SIGKILL takes its Chromium too), writing out/feed.jsonl."""
    out.mkdir(parents=True, exist_ok=True)
    settings = {
        "PAGESIGHT_REDIS_URL": redis_url,
        "PAGESIGHT_REDIS_LEASE_SECONDS": "6",
        "PAGESIGHT_REDIS_IDLE_CLOSE_SECONDS": "3",
        "PAGESIGHT_STORE_URI": str(out / "store"),
        "PAGESIGHT_REPORT_DIR": "",
        "PAGESIGHT_SCORE_ENABLED": "false",
        "PAGESIGHT_SCROLL_STEPS": "0",
    }
    command = [sys.executable, "-m", "scrapy", "crawl", "news", "-O", str(out / "feed.jsonl"), "-a"]
    command.append(f"start_urls={','.join(seeds)}")
    for name, value in settings.items():
        command += ["-s", f"{name}={value}"]
    log = (out / "log.txt").open("w")
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=dict(os.environ, PAGESIGHT_TEST_RUN=marker),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def feed_lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.e2e
def test_two_workers_one_killed_lose_nothing(redis_url, tmp_path):
    marker_a, marker_b = uuid.uuid4().hex, uuid.uuid4().hex
    with DemoWeb(seed=7, articles_per_site=4, faults=Faults(latency_ms=300)) as demo:
        seeds = list(demo.seed_urls)
        first = start_worker(tmp_path / "a", seeds, redis_url, marker_a)
        second = start_worker(tmp_path / "b", seeds, redis_url, marker_b)
        deadline = time.monotonic() + 300
        while len(feed_lines(tmp_path / "a" / "feed.jsonl")) < 4:
            assert time.monotonic() < deadline and first.poll() is None, (
                tmp_path / "a" / "log.txt"
            ).read_text()
            time.sleep(0.2)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        assert second.wait(timeout=400) == 0, (tmp_path / "b" / "log.txt").read_text()[-3000:]
    log_b = (tmp_path / "b" / "log.txt").read_text()
    assert "no lease outstanding" in log_b
    assert processes_with_marker(marker_b) == []

    lines = feed_lines(tmp_path / "a" / "feed.jsonl") + feed_lines(tmp_path / "b" / "feed.jsonl")
    counts = Counter(line["url"] for line in lines)
    client = redis.Redis.from_url(redis_url)
    scheduled = {fp.decode() for fp in client.smembers("news:dupefilter")}
    fingerprint = RFPDupeFilter(client, "unused").request_fingerprint
    assert {fingerprint(Request(url)) for url in counts} == scheduled  # every scheduled URL, no other
    assert len(scheduled) > 20
    twice = {url for url, count in counts.items() if count > 1}
    recrawled = {line["url"] for line in lines if line["recrawled"]}
    assert recrawled, "the killed worker had pages in flight: they must be crawled again"
    assert twice <= recrawled and max(counts.values()) <= 2
    shared = int(client.hget("news:stats", "item_scraped_count"))
    assert len(feed_lines(tmp_path / "b" / "feed.jsonl")) < shared <= len(lines) + 4  # both workers' items
    assert client.zcard("news:requests") == 0 and client.zcard("news:requests:deadlines") == 0


def test_a_crawl_without_its_redis_is_refused_with_one_line(tmp_path):
    from tests.support.redis_server import free_port

    url = f"redis://127.0.0.1:{free_port()}/0"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "news",
            "-a",
            "start_urls=http://127.0.0.1:9/",
            "-s",
            f"PAGESIGHT_REDIS_URL={url}",
            "-s",
            f"PAGESIGHT_STORE_URI={tmp_path}",
            "-O",
            str(tmp_path / "f.jsonl"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert f"Error: PAGESIGHT_REDIS_URL {url}: cannot reach Redis" in done.stderr
    assert "Traceback" not in done.stderr
