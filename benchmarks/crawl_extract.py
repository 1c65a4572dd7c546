"""Extractors compared in a whole crawl of real pages: WCXB dev pages of one split role,
served on 127.0.0.1 (every request leaving the machine aborted, as ``capture-dataset``
does), crawled with the default pipelines (capture, store, page type, extraction, ...) once
per extractor. The extractors alternate over ``--rounds`` rounds (the order rotates each
round), so that none always runs on a warmer or quieter machine.

Per extractor: pages/s pooled over the rounds and its ratio to the first extractor's, the
peak memory (PSS) of the whole process tree (Chromium included), the median over rounds of
each round's median ``timings_ms.extract`` and the mean of their means, and, averaged over
rounds, the word F1 of the feed's text against the gold and the share of ok lines that
carry ``extraction_quality``.

    .venv/bin/python benchmarks/crawl_extract.py ../shared/datasets/wcxb-dev \\
        [--role heldout] [--pages 120] [--rounds 2] [--extractors iawce,ensemble] [--out X.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path, PurePosixPath
from statistics import fmean, median
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from crawl import pooled, run_measured

from crawler.dataset import serve_html_folder
from models.common.splits import SPLIT_FILE, load_split
from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.text import tokens
from pipelines.evaluation.wcxb import WcxbRecord, read_wcxb


def role_records(wcxb: Path, split_file: Path, role: str, count: int) -> list[WcxbRecord]:
    """The first ``count`` pages (file order) of the split role that have HTML and gold."""
    split = load_split(split_file)
    records = [
        record
        for record in read_wcxb(wcxb)
        if record.has_html and record.gold_text.strip() and split.role(record.domain) == role
    ]
    return records[:count]


def feed_summary(feed: Path, gold: dict[str, str]) -> dict[str, Any]:
    """Outcomes, word F1 against the gold (a page without text scores 0), the extraction
    times and the share of ok lines with a quality estimate, from one crawl's feed."""
    lines = [json.loads(line) for line in feed.read_text(encoding="utf-8").splitlines() if line.strip()]
    ok = [line for line in lines if line.get("status") == "ok"]
    texts = {PurePosixPath(urlsplit(line["url"]).path).stem: line.get("text") or "" for line in ok}
    f1s = [word_prf(tokens(texts.get(file_id, "")), tokens(text)).f1 for file_id, text in gold.items()]
    extract_ms = [line["timings_ms"]["extract"] for line in ok if "extract" in line.get("timings_ms", {})]
    return {
        "lines": len(lines),
        "ok": len(ok),
        "word_f1": fmean(f1s) if f1s else 0.0,
        "median_extract_ms": median(extract_ms) if extract_ms else None,
        "mean_extract_ms": fmean(extract_ms) if extract_ms else None,
        "with_quality": sum(line.get("extraction_quality") is not None for line in ok) / max(len(ok), 1),
    }


def crawl_command(urls_file: Path, feed: Path, store: Path, extractor: str) -> list[str]:
    settings = {
        "LOG_LEVEL": "WARNING",
        "ROBOTSTXT_OBEY": "False",
        "AUTOTHROTTLE_ENABLED": "False",
        "TELNETCONSOLE_ENABLED": "False",
        "PLAYWRIGHT_ABORT_REQUEST": "crawler.dataset.abort_external_requests",
        "PAGESIGHT_STORE_URI": str(store),
        "PAGESIGHT_REPORT_DIR": "",
        "PAGESIGHT_EXTRACTOR": extractor,
    }
    command = [sys.executable, "-m", "scrapy", "crawl", "news", "-a", f"urls_file={urls_file}"]
    command += ["-a", "follow=false", "-O", str(feed)]
    return command + [part for name, value in settings.items() for part in ("-s", f"{name}={value}")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("wcxb", type=Path, help="WCXB dev folder (pages and gold)")
    parser.add_argument("--role", choices=("train", "validation", "heldout"), default="heldout")
    parser.add_argument("--pages", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--extractors", default="iawce,ensemble", help="comma-separated; the first is the baseline"
    )
    parser.add_argument(
        "--split-file", type=Path, default=SPLIT_FILE, help="domain split (default: the committed one)"
    )
    parser.add_argument("--out", type=Path, help="write the runs and the summary as JSON here")
    args = parser.parse_args(argv)

    extractors = [name.strip() for name in args.extractors.split(",") if name.strip()]
    records = role_records(args.wcxb, args.split_file, args.role, args.pages)
    if not records:
        raise SystemExit(f"{args.wcxb}: no {args.role} page with HTML and gold")
    gold = {record.file_id: record.gold_text for record in records}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in extractors}
    with serve_html_folder(args.wcxb / "html") as base_url, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        urls_file = work / "urls.txt"
        urls_file.write_text("".join(f"{base_url}/{file_id}.html\n" for file_id in gold), encoding="utf-8")
        for round_index in range(args.rounds):
            shift = round_index % len(extractors)
            for name in extractors[shift:] + extractors[:shift]:
                feed = work / f"{name}-{round_index}.jsonl"
                measured = run_measured(crawl_command(urls_file, feed, work / f"store-{name}", name))
                run = {**measured, "pages": len(gold), "round": round_index + 1, **feed_summary(feed, gold)}
                runs[name].append(run)
                print(
                    f"round {round_index + 1} {name}: {run['seconds']:.1f} s, {run['ok']}/{run['lines']} ok, "
                    f"F1 {run['word_f1']:.3f}, peak {run['peak_pss_mib']:.0f} MiB",
                    file=sys.stderr,
                )

    base = pooled(runs[extractors[0]])
    summary = {}
    print(
        "| extractor | pages/s | × " + extractors[0] + " | peak PSS MiB | extract ms (median / mean) "
        "| word F1 | with quality |\n|---|---|---|---|---|---|---|"
    )
    for name in extractors:
        total = pooled(runs[name])
        summary[name] = {
            "pages_per_s": total["pages"] / total["seconds"],
            "throughput_ratio": (total["pages"] / total["seconds"]) / (base["pages"] / base["seconds"]),
            "peak_pss_mib": total["peak_pss_mib"],
            "median_extract_ms": median(r["median_extract_ms"] or 0.0 for r in runs[name]),
            "mean_extract_ms": fmean(r["mean_extract_ms"] or 0.0 for r in runs[name]),
            "word_f1": fmean(r["word_f1"] for r in runs[name]),
            "with_quality": fmean(r["with_quality"] for r in runs[name]),
        }
        row = summary[name]
        print(
            f"| {name} | {row['pages_per_s']:.2f} | {row['throughput_ratio']:.2f} | {row['peak_pss_mib']:.0f} "
            f"| {row['median_extract_ms']:.0f} / {row['mean_extract_ms']:.0f} | {row['word_f1']:.3f} "
            f"| {row['with_quality']:.0%} |"
        )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        report = {
            "role": args.role,
            "pages": len(gold),
            "rounds": args.rounds,
            "runs": runs,
            "summary": summary,
        }
        args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
