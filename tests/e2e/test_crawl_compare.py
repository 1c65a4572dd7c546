"""End-to-end: a crawl with a peer extractor, then `scrapy evaluate --compare` of any
registered extractors on that crawl's stored captures."""

from __future__ import annotations

import json
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

from crawler.demo import DemoWeb
from tests.support.crawling import run_crawl
from tests.support.paths import ROOT

pytestmark = pytest.mark.e2e


def test_trafilatura_crawl_then_compare_extractors_on_its_captures(tmp_path):
    with DemoWeb(seed=2026, articles_per_site=3) as demo:
        gold_path = demo.write_gold(tmp_path / "gold.jsonl")
        pages = [page["url"] for page in demo.gold if urlsplit(page["url"]).path != "/"][:6]
        run = run_crawl(
            tmp_path,
            f"start_urls={','.join(pages)}",
            "follow=false",
            settings={"PAGESIGHT_EXTRACTOR": "trafilatura", "PAGESIGHT_REPORT_DIR": ""},
        )
    assert run.returncode == 0, run.log[-3000:]
    ok = [record for record in run.records if record["status"] == "ok"]
    assert len(ok) == len(pages)
    for record in ok:
        assert record["extractor"] == "trafilatura" and record["text"]
        assert record["provenance"]["extractor"]["name"] == "trafilatura"
        assert record["provenance"]["pagesight"] and record["provenance"]["checkpoints"]["classifier"]
    out = tmp_path / "compare"
    evaluate = subprocess.run(
        [
            *(sys.executable, "-m", "scrapy", "evaluate", str(tmp_path / "feed.jsonl")),
            *("--gold", str(gold_path), "--out", str(out), "--compare", "iawce,trafilatura,readability"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert evaluate.returncode == 0, evaluate.stderr[-3000:]
    report = json.loads((out / "report.json").read_text("utf-8"))
    assert list(report["systems"]) == ["pagesight", "iawce", "trafilatura", "readability"]
    crawled = set(pages)
    for name, system in report["systems"].items():
        rows = [row for row in system["pages"] if row["gold_url"] in crawled]
        assert len(rows) == len(pages) and all(row["failure"] is None for row in rows), name
        assert sum(row["word_f1"] for row in rows) / len(rows) > 0.5, name
    # the feed's own text and trafilatura run again on the stored HTML agree
    feed_rows = {row["gold_url"]: row["word_f1"] for row in report["systems"]["pagesight"]["pages"]}
    again = {row["gold_url"]: row["word_f1"] for row in report["systems"]["trafilatura"]["pages"]}
    assert all(abs(feed_rows[url] - again[url]) < 0.05 for url in crawled)
