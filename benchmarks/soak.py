"""Fault soak: crawl the demo web, scaled to about N pages and served with faults, with
the capture and every pipeline on, and check that nothing is lost, nothing comes twice,
memory stays flat and nothing is left running.

    flock /work/heavy.lock nice -n 10 .venv/bin/python benchmarks/soak.py --pages 1000 \
        --faults latency_ms=50,error_rate=0.1,hang,huge,non_html --out /work/data/soak

Writes DIR/feed.jsonl, DIR/urls.txt (every URL the demo web serves: what the crawl must
reach), DIR/soak.json (lines, distinct_urls, lost, duplicates, rss_mib (the crawl's
process tree, Chromium included, sampled every 50 feed lines; proportional set size, so
that memory shared between processes is counted once), chromium_left, pages_per_s,
settings), and the crawl's log, store and report beside them.

The crawl runs with REACH_EVERY_PAGE, under which every page the demo web serves is one
the crawl should reach. ``--setting NAME=VALUE`` (repeatable) passes a Scrapy setting to
the crawl, over those: e.g. PAGESIGHT_FRONTIER_ARTICLE_LINKS=body and DEPTH_LIMIT=2 for the
crawl's defaults, or PAGESIGHT_FRONTIER_POLICY=flat to follow every link whatever the page
type.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from crawl import tree_pss_kib  # benchmarks/crawl.py, beside this script

from crawler.demo import DemoWeb, Faults

SAMPLE_EVERY = 50  # feed lines between memory samples
#: Settings under which the crawl should reach every page the demo web serves. The default
#: frontier follows an article's links only from its body, and the tag index of a rare
#: topic is linked only from its articles' topic boxes; and the default
#: DEPTH_LIMIT of 2 stops short of those indexes on a big demo web (3 links from home).
REACH_EVERY_PAGE = {"PAGESIGHT_FRONTIER_ARTICLE_LINKS": "all", "DEPTH_LIMIT": "0"}
MEDIAN_OF_LAST = 5  # memory samples whose median is printed beside the last one


def served_urls(demo: DemoWeb) -> list[str]:
    """Every page URL the started demo web serves (gold pages and each fault's pages)."""
    urls = {record["url"] for record in demo.gold}
    for attribute in (
        "error_urls",
        "hang_urls",
        "huge_urls",
        "non_html_urls",
        "script_redirect_urls",
        "stalled_urls",
        "robots_blocked_urls",
    ):
        urls.update(getattr(demo, attribute))
    return sorted(urls)


def page_count(web: DemoWeb) -> int:
    """Pages of a (not yet started) demo web."""
    total = 0
    for model in web.models:
        total += len(model.gold_records())
        for paths in ("error_paths", "hang_paths", "huge_paths", "non_html_paths"):
            total += len(getattr(model, paths))
        for paths in ("script_redirect_paths", "stalled_paths", "robots_blocked_paths"):
            total += len(getattr(model, paths))
    return total


def scaled_web(pages: int, faults: Faults, seed: int) -> DemoWeb:
    """The demo web with about the fewest articles per site that serves at least
    ``pages`` (articles grow in proportion to the shortfall: pages grow a little slower
    than articles, so the steps undershoot)."""
    per_site = max(1, pages // 8)
    while True:
        web = DemoWeb(seed=seed, articles_per_site=per_site, faults=faults)
        count = page_count(web)
        if count >= pages:
            return web
        per_site = max(per_site + 1, math.ceil(per_site * pages / count))


def count_lines(path: Path) -> int:
    if not path.exists():
        return 0
    with path.open("rb") as lines:
        return sum(1 for line in lines if line.strip())


def marked_processes(marker: str) -> list[int]:
    """PIDs of live processes whose environment carries ``PAGESIGHT_SOAK_RUN=marker``."""
    needle = f"PAGESIGHT_SOAK_RUN={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def crawl(out: Path, demo: DemoWeb, gold: Path, extra: dict[str, str]) -> dict[str, Any]:
    """Crawl the served demo web from its home pages (``extra``: more settings); memory of
    the whole process tree at every SAMPLE_EVERY feed lines; Chromium processes still alive
    after the crawl."""
    feed = out / "feed.jsonl"
    settings = {
        "PAGESIGHT_STORE_URI": str(out / "store"),
        "PAGESIGHT_REPORT_DIR": str(out / "report"),
        "PAGESIGHT_DENY_EXTENSIONS": "[]",  # the PDF and the PNG are reached too (skipped lines)
        "PAGESIGHT_PROGRESS_INTERVAL": "60",
        "TELNETCONSOLE_ENABLED": "False",
        **REACH_EVERY_PAGE,
        **extra,
    }
    command = [sys.executable, "-m", "scrapy", "crawl", "news", "-O", str(feed)]
    command += ["-a", f"start_urls={','.join(demo.seed_urls)}", "-a", f"gold={gold}"]
    for name, value in settings.items():
        command += ["-s", f"{name}={value}"]
    marker = uuid.uuid4().hex
    started = time.monotonic()
    with (out / "crawl.log").open("w") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=dict(os.environ, PAGESIGHT_SOAK_RUN=marker), stdout=log, stderr=log
        )
        samples: list[dict[str, Any]] = []
        stop = threading.Event()

        def sample() -> None:
            next_at = SAMPLE_EVERY
            while not stop.wait(0.5):
                if count_lines(feed) >= next_at:
                    samples.append({"pages": next_at, "rss_mib": round(tree_pss_kib(process.pid) / 1024, 1)})
                    next_at += SAMPLE_EVERY

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        returncode = process.wait()
        seconds = time.monotonic() - started
        stop.set()
        sampler.join()
    time.sleep(2)  # a browser that outlives the crawl would still be there
    left = marked_processes(marker)
    if returncode:
        print(f"the crawl exited {returncode}; see {out / 'crawl.log'}", file=sys.stderr)
    return {"seconds": seconds, "rss_mib": samples, "chromium_left": len(left), "returncode": returncode}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages", type=int, default=1000, help="pages the demo web serves (at least)")
    parser.add_argument("--faults", default="latency_ms=50,error_rate=0.1,hang,huge,non_html")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--setting", action="append", default=[], metavar="NAME=VALUE", help="a setting of the crawl"
    )
    args = parser.parse_args()
    extra = dict(setting.split("=", 1) for setting in args.setting)

    args.out.mkdir(parents=True, exist_ok=True)
    web = scaled_web(args.pages, Faults.parse(args.faults), args.seed)
    with web as demo:
        urls = served_urls(demo)
        urls_file = args.out / "urls.txt"
        urls_file.write_text("\n".join(urls) + "\n", encoding="utf-8")
        gold = demo.write_gold(args.out / "gold.jsonl")
        print(f"Soak: {len(urls)} pages ({web.articles_per_site} articles per site), faults {web.faults}")
        run = crawl(args.out, demo, gold, extra)

    lines = [
        json.loads(line) for line in (args.out / "feed.jsonl").read_text("utf-8").splitlines() if line.strip()
    ]
    crawled = {line["url"] for line in lines}
    result = {
        "lines": len(lines),
        "distinct_urls": len(crawled),
        "lost": len(set(urls) - crawled),
        "duplicates": len(lines) - len(crawled),
        "rss_mib": run["rss_mib"],
        "chromium_left": run["chromium_left"],
        "pages_per_s": round(len(lines) / run["seconds"], 3),
        "settings": {**REACH_EVERY_PAGE, **extra},
    }
    (args.out / "soak.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({key: value for key, value in result.items() if key != "rss_mib"}))
    by_pages = {sample["pages"]: sample["rss_mib"] for sample in run["rss_mib"]}
    if 100 in by_pages:
        last = max(by_pages)
        tail = [by_pages[pages] for pages in sorted(by_pages)[-MEDIAN_OF_LAST:]]
        print(
            f"memory: {by_pages[100]} MiB at page 100, {by_pages[last]} MiB at page {last} "
            f"({by_pages[last] / by_pages[100] - 1:+.1%}); median of the last {len(tail)} samples "
            f"{statistics.median(tail)} MiB ({statistics.median(tail) / by_pages[100] - 1:+.1%})"
        )
    if run["returncode"]:
        raise SystemExit(run["returncode"])


if __name__ == "__main__":
    main()
