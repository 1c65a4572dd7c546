"""Crawl benchmark: capture (settle, scroll, boxes, screenshot, storage) against a bare
scrapy-playwright spider that only takes the full-page screenshot, on the same demo pages,
in one run. Reports pages/s of both, their ratio, and the peak memory (PSS) of each whole
process tree, Chromium included.

The two crawls alternate over ``--rounds`` rounds (capture first in rounds 1, 3, ..., bare
first in rounds 2, 4, ...), so that neither always runs on a warmer or quieter machine; the
ratio is of the pooled times, and each round's ratio is reported beside it.

    .venv/bin/python benchmarks/crawl.py [--pages 200] [--rounds 2] [--set NAME=VALUE ...] \
        [--out benchmarks/results/crawl.json]

``--set`` passes a setting to the capture crawl only (e.g. ``PAGESIGHT_SCROLL_ALWAYS=True``
for the cost of scrolling every page). The capture crawl runs only the store pipeline, so
an extractor's cost needs the extract pipeline too: ``--set 'ITEM_PIPELINES={...,
"pipelines.extract.ExtractPipeline": 300}' --set PAGESIGHT_EXTRACTOR=ensemble``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from crawler.demo import DemoWeb


def tree_memory_kib(root_pid: int) -> dict[int, dict[str, int]]:
    """Memory of a process and each of its descendants by PID, KiB (Linux /proc): ``pss``,
    the proportional set size (a page shared by N processes counts 1/N in each), and
    ``private``, the pages no other process maps, and ``anonymous``, the memory the process
    allocated (no file behind it). A process that ends while being read is left out."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    memory: dict[int, dict[str, int]] = {}
    stack = [root_pid]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, []))
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()
        except OSError:
            continue
        kib = {line.split(":")[0]: int(line.split()[1]) for line in rollup if line.endswith(" kB")}
        if "Pss" in kib:
            memory[pid] = {
                "pss": kib["Pss"],
                "private": kib["Private_Clean"] + kib["Private_Dirty"],
                "anonymous": kib["Anonymous"],
            }
    return memory


def tree_pss_kib(root_pid: int) -> int:
    """Proportional set size of a process and all its descendants, KiB."""
    return sum(process["pss"] for process in tree_memory_kib(root_pid).values())


def run_measured(command: list[str]) -> dict[str, Any]:
    """Run a command; wall time and peak PSS of its process tree sampled every 0.2 s."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    peak = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, tree_pss_kib(process.pid))
            stop.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, stderr = process.communicate()
    stop.set()
    sampler.join()
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr[-3000:]}")
    return {"seconds": time.perf_counter() - started, "peak_pss_mib": peak / 1024}


def count_lines(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def benchmark_urls(gold: list[dict[str, Any]], count: int) -> list[str]:
    """``count`` pages taken in turn from each demo site, each site's in path order: the
    same pages in every run (the sites' ports are not) and every theme in the mix."""
    by_site: dict[str, list[str]] = {}
    for record in gold:
        by_site.setdefault(record["site"], []).append(record["url"])
    queues = [sorted(urls, key=lambda url: urlsplit(url).path) for _, urls in sorted(by_site.items())]
    interleaved = [url for turn in itertools.zip_longest(*queues) for url in turn if url is not None]
    return interleaved[:count]


def scrolled_pages(feed: Path) -> int:
    """Pages of a capture feed that took the scroll step (something on them reacts to
    scrolling; a page no taller than the screen takes it without moving)."""
    lines = feed.read_text(encoding="utf-8").splitlines()
    return sum("scroll" in json.loads(line).get("timings_ms", {}) for line in lines if line.strip())


def median_screenshot_kib(feed: Path) -> float:
    """Median PNG size of a feed's screenshots (``screenshot.bytes``), KiB."""
    lines = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines() if line.strip()]
    sizes = [line["screenshot"]["bytes"] for line in lines if line.get("screenshot")]
    return statistics.median(sizes) / 1024 if sizes else 0.0


def pooled(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The runs of one crawl summed: seconds and pages added, the highest peak memory."""
    return {
        "seconds": sum(run["seconds"] for run in runs),
        "pages": sum(run["pages"] for run in runs),
        "peak_pss_mib": max(run["peak_pss_mib"] for run in runs),
    }


def overhead_pct(capture: dict[str, Any], bare: dict[str, Any]) -> float:
    """How much longer a page takes with capture than bare, percent."""
    capture_per_page = float(capture["seconds"]) / float(capture["pages"])
    bare_per_page = float(bare["seconds"]) / float(bare["pages"])
    return capture_per_page / bare_per_page * 100 - 100


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2, help="alternating capture/bare pairs")
    parser.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="a setting of the capture crawl"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "crawl.json")
    args = parser.parse_args()

    per_site = max(12, args.pages // 4)
    with DemoWeb(seed=2026, articles_per_site=per_site) as demo, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        urls = benchmark_urls(demo.gold, args.pages)
        if len(urls) < args.pages:
            raise SystemExit(f"the demo web has only {len(urls)} pages")
        urls_file = work / "urls.txt"
        urls_file.write_text("\n".join(urls) + "\n", encoding="utf-8")
        common = [
            "-s",
            "LOG_LEVEL=WARNING",
            "-s",
            "ROBOTSTXT_OBEY=False",
            "-s",
            "AUTOTHROTTLE_ENABLED=False",
            "-s",
            "TELNETCONSOLE_ENABLED=False",
        ]
        capture_feed, bare_feed = work / "capture.jsonl", work / "bare.jsonl"
        commands = {
            "capture": [
                sys.executable,
                "-m",
                "scrapy",
                "crawl",
                "news",
                "-a",
                f"urls_file={urls_file}",
                "-a",
                "follow=false",
                "-O",
                str(capture_feed),
                *common,
                "-s",
                f"PAGESIGHT_STORE_URI={work / 'store'}",
                "-s",
                'ITEM_PIPELINES={"pipelines.store.StorePipeline": 100}',
                *(part for setting in args.set for part in ("-s", setting)),
            ],
            "bare": [
                sys.executable,
                "-m",
                "scrapy",
                "runspider",
                str(ROOT / "benchmarks" / "bare_spider.py"),
                "-a",
                f"urls_file={urls_file}",
                "-O",
                str(bare_feed),
                *common,
                "-s",
                "DOWNLOADER_MIDDLEWARES={}",
                "-s",
                "ITEM_PIPELINES={}",
                "-s",
                "FEEDS={}",
            ],
        }
        feeds = {"capture": capture_feed, "bare": bare_feed}
        rounds: list[dict[str, dict[str, Any]]] = []
        for number in range(args.rounds):
            order = ("capture", "bare") if number % 2 == 0 else ("bare", "capture")
            runs = {}
            for name in order:
                runs[name] = run_measured(commands[name])
                runs[name]["pages"] = count_lines(feeds[name])
            rounds.append(runs)
        scrolled = scrolled_pages(capture_feed)
        screenshot_kib = {name: median_screenshot_kib(feed) for name, feed in feeds.items()}
    capture, bare = (pooled([runs[name] for runs in rounds]) for name in ("capture", "bare"))
    for run in (capture, bare):
        run["pages_per_s"] = run["pages"] / run["seconds"]
    result = {
        "pages": args.pages,
        "capture_settings": args.set,
        "rounds": [
            {name: runs[name] for name in ("capture", "bare")}
            | {"overhead_pct": overhead_pct(runs["capture"], runs["bare"])}
            for runs in rounds
        ],
        "capture": capture,
        "capture_scrolled_pages": scrolled,
        "median_screenshot_kib": screenshot_kib,
        "bare_screenshot": bare,
        "throughput_ratio": capture["pages_per_s"] / bare["pages_per_s"],
        "overhead_pct": overhead_pct(capture, bare),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print("| crawl | pages | seconds | pages/s | peak PSS (MiB) |")
    print("|---|---|---|---|---|")
    for name, run in (("capture (PageSight)", capture), ("bare screenshot", bare)):
        print(
            f"| {name} | {run['pages']} | {run['seconds']:.1f} | {run['pages_per_s']:.2f} | {run['peak_pss_mib']:.0f} |"
        )
    per_round = ", ".join(f"{run['overhead_pct']:.1f}%" for run in result["rounds"])
    print(f"\nper round (capture first in rounds 1, 3, ...): {per_round}")
    print(
        f"pages that took the scroll step (something on them reacts to scrolling): {scrolled} of {args.pages}"
    )
    print(
        f"median screenshot PNG: capture {screenshot_kib['capture']:.0f} KiB, bare {screenshot_kib['bare']:.0f} KiB"
    )
    print(
        f"capture/bare throughput ratio {result['throughput_ratio']:.2f} "
        f"(capture overhead {result['overhead_pct']:.1f}%)"
    )


if __name__ == "__main__":
    main()
