"""`scrapy crawl news -s JOBDIR=DIR`: a crawl stopped with Ctrl-C (SIGINT) and started
again with the same JOBDIR neither loses nor repeats a URL."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from crawler.demo import DemoWeb, Faults
from tests.support.paths import ROOT


def crawl_command(feed: Path, seeds: list[str], jobdir: Path, store: Path) -> list[str]:
    command = [sys.executable, "-m", "scrapy", "crawl", "news", "-O", str(feed), "-a"]
    command.append(f"start_urls={','.join(seeds)}")
    for setting in (
        f"JOBDIR={jobdir}",
        f"PAGESIGHT_STORE_URI={store}",
        "PAGESIGHT_REPORT_DIR=",
        "PAGESIGHT_SCORE_ENABLED=false",
    ):
        command += ["-s", setting]
    return command


def urls_in(feed: Path) -> list[str]:
    return [json.loads(line)["url"] for line in feed.read_text("utf-8").splitlines() if line.strip()]


@pytest.mark.e2e
def test_a_crawl_stopped_with_ctrl_c_resumes_without_losing_or_repeating(tmp_path):
    jobdir, store = tmp_path / "job", tmp_path / "store"
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    with DemoWeb(seed=11, articles_per_site=4, faults=Faults(latency_ms=200)) as demo:
        seeds = list(demo.seed_urls)
        expected = {record["url"] for record in demo.gold} | set(demo.robots_blocked_urls)
        with (tmp_path / "first.log").open("w") as log:
            crawl = subprocess.Popen(
                crawl_command(first, seeds, jobdir, store), cwd=ROOT, stdout=log, stderr=log
            )
            deadline = time.monotonic() + 300
            while not first.exists() or len(urls_in(first)) < 5:
                assert time.monotonic() < deadline and crawl.poll() is None, (
                    tmp_path / "first.log"
                ).read_text()
                time.sleep(0.2)
            crawl.send_signal(signal.SIGINT)  # Ctrl-C: finish what is in flight, keep the rest in JOBDIR
            assert crawl.wait(timeout=300) == 0
        assert "shutdown" in (tmp_path / "first.log").read_text()
        done = subprocess.run(
            crawl_command(second, seeds, jobdir, store),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
    before, after = urls_in(first), urls_in(second)
    assert before and after, "the crawl must have been cut in the middle"
    counts = Counter(before + after)
    assert max(counts.values()) == 1, [url for url, count in counts.items() if count > 1]
    assert set(counts) == expected
