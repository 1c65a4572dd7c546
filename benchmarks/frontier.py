"""Frontier benchmark: distinct gold articles found within a budget of rendered pages,
the page-type frontier (list items first, then pagination; article links from the body)
against the crawl as it was (every link at one priority, PAGESIGHT_FRONTIER_POLICY=flat),
in one run, on the same demo web (seed 2026, 250 articles per site, DEPTH_LIMIT=4).

Each crawl stops after ``--budget`` feed lines (CLOSESPIDER_ITEMCOUNT); pages already in
flight still arrive, so only the first ``--budget`` rendered (ok) lines are counted. An
article counts once, and a syndicated copy (gold ``near_duplicate_of``) not at all.

    .venv/bin/python benchmarks/frontier.py [--budget 300] [--out benchmarks/results/frontier.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
POLICIES = ("page-type", "flat")


def crawl(policy: str, work: Path, budget: int, articles_per_site: int, depth_limit: int) -> dict[str, Any]:
    """One demo crawl under ``policy``; its counts within the budget."""
    feed, gold = work / f"{policy}.jsonl", work / f"{policy}-gold.jsonl"
    settings = {
        "PAGESIGHT_FRONTIER_POLICY": policy,
        "PAGESIGHT_DEMO_SEED": 2026,
        "PAGESIGHT_DEMO_ARTICLES_PER_SITE": articles_per_site,
        "PAGESIGHT_DEMO_GOLD": gold,
        "DEPTH_LIMIT": depth_limit,
        "CLOSESPIDER_ITEMCOUNT": budget,
        "PAGESIGHT_STORE_URI": work / f"{policy}-store",
        "PAGESIGHT_SCORE_ENABLED": False,
        "PAGESIGHT_REPORT_DIR": "",
        "AUTOTHROTTLE_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "WARNING",
    }
    command = [sys.executable, "-m", "scrapy", "crawl", "news", "-O", str(feed)]
    for name, value in settings.items():
        command += ["-s", f"{name}={value}"]
    started = time.perf_counter()
    process = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if process.returncode:
        raise SystemExit(f"{policy} crawl failed:\n{process.stderr[-3000:]}")
    seconds = time.perf_counter() - started
    articles = {
        record["url"]
        for record in map(json.loads, gold.read_text(encoding="utf-8").splitlines())
        if record["page_type"] == "article" and "near_duplicate_of" not in record
    }
    lines = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines() if line.strip()]
    rendered = [line for line in lines if line["status"] == "ok"][:budget]
    found = {line["url"] for line in rendered} & articles
    return {
        "seconds": round(seconds, 1),
        "feed_lines": len(lines),
        "rendered_counted": len(rendered),
        "gold_articles": len(articles),
        "articles_found": len(found),
        "via": dict(Counter(line.get("via") for line in rendered)),
        "near_duplicates_flagged": sum(bool(line.get("near_duplicate_of")) for line in rendered),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--budget", type=int, default=300)
    parser.add_argument("--articles-per-site", type=int, default=250)
    parser.add_argument("--depth-limit", type=int, default=4)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "frontier.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = {
            policy: crawl(policy, Path(tmp), args.budget, args.articles_per_site, args.depth_limit)
            for policy in POLICIES
        }
    result = {
        "budget": args.budget,
        "articles_per_site": args.articles_per_site,
        "depth_limit": args.depth_limit,
        "runs": runs,
        "ratio": runs["page-type"]["articles_found"] / max(runs["flat"]["articles_found"], 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print("| frontier | rendered pages counted | distinct gold articles | seconds |")
    print("|---|---|---|---|")
    for policy, run in runs.items():
        print(f"| {policy} | {run['rendered_counted']} | {run['articles_found']} | {run['seconds']} |")
    print(f"\npage-type / flat: {result['ratio']:.2f}x")


if __name__ == "__main__":
    main()
