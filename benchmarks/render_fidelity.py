"""Render fidelity: does the crawl keep what the server sent? WCXB dev held-out pages are
served by a local web server that sends ``Content-Type: text/html`` with NO charset (as
many small sites do), crawled with ``scrapy crawl news -a urls_file=… -a follow=false``,
and compared with the same extractors on the raw bytes.

    .venv/bin/python benchmarks/render_fidelity.py ../shared/datasets/wcxb-dev \\
        [--work output/render-fidelity] [--limit N] [--feed FEED.jsonl] \\
        [--out benchmarks/results/render-fidelity.json]

Reported, over the held-out pages with a gold text (``models/common/splits.py``):

- ``iawce``: word F1 of the crawl's own extraction (feed ``text``; a page without an ok
  line scores 0) against iawce on the raw bytes decoded with ``decode_html``, with the
  page type the crawl used (the classifier's) on both sides, so only the input differs;
- each peer (trafilatura, readability, jusText, when installed) on the raw bytes and on the
  rendered DOM the crawl stored;
- feed lines: ok / error / skipped, error reasons; pages whose feed text looks like
  mojibake (UTF-8 read as windows-1252 or Latin-1); how each page's encoding was decided.

Measure: WCXB's bag-of-words F1 (``word_prf`` over ``tokens``), averaged over pages.
``--feed`` reuses a crawl (its store beside it) instead of crawling again; with
``--only-crawled`` only the pages that have a line in it are scored (an unfinished crawl).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from statistics import fmean
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from crawler.dataset import serve_html_folder
from models.common.splits import HELDOUT, load_split
from models.pagetype.labels import DEFAULT_LABEL_MAPPING, LabelMappingError, load_label_mapping
from pipelines.artifacts import read_artifact, read_local_artifact
from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.text import tokens
from pipelines.evaluation.wcxb import WcxbRecord, read_wcxb
from pipelines.extraction import Extractor, ExtractorUnavailable, Page, build_extractor, decode_html

PEERS = ("trafilatura", "readability", "justext")
# UTF-8 read as windows-1252/Latin-1: a lead byte of Latin, Cyrillic, CJK or punctuation
# (Ã Â Ð Ñ â ã ä å æ è é ê ë ì í) followed by what a continuation byte becomes.
MOJIBAKE = re.compile("[ÃÂÐÑâãäåæèéêëìí][\u0080-\u00bf€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]")
#: Matches in one text from which on it counts as mojibake.
MOJIBAKE_MIN_MATCHES = 3


def looks_mojibake(text: str | None) -> bool:
    return len(MOJIBAKE.findall(text or "")) >= MOJIBAKE_MIN_MATCHES


def heldout_records(root: Path, limit: int) -> list[WcxbRecord]:
    split = load_split()
    records = [
        r for r in read_wcxb(root) if r.has_html and r.gold_text.strip() and split.role(r.domain) == HELDOUT
    ]
    return records[:limit] if limit else records


def crawl(records: list[WcxbRecord], html_folder: Path, work: Path) -> Path:
    """Serve the pages without a charset, crawl them once each; returns the feed path
    (store beside it)."""
    with serve_html_folder(html_folder, declare_charset=False) as base:
        return _crawl_served(records, base, work)


def _crawl_served(records: list[WcxbRecord], base: str, work: Path) -> Path:
    work.mkdir(parents=True, exist_ok=True)
    urls_file = work / "urls.txt"
    urls_file.write_text("".join(f"{base}/{r.file_id}.html\n" for r in records), encoding="utf-8")
    feed = work / "feed.jsonl"
    command = [
        sys.executable, "-m", "scrapy", "crawl", "news", "-a", f"urls_file={urls_file}", "-a", "follow=false",
        "-O", str(feed), "-s", f"PAGESIGHT_STORE_URI={work / 'store'}", "-s", "PAGESIGHT_REPORT_DIR=",
        "-s", "LOG_LEVEL=INFO",
    ]  # fmt: skip
    started = time.perf_counter()
    with (work / "crawl.log").open("w") as log:
        done = subprocess.run(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    if done.returncode:
        raise SystemExit(f"crawl failed, see {work / 'crawl.log'}")
    print(f"crawled {len(records)} pages in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return feed


def stored_html(ref: dict[str, Any] | None) -> bytes | None:
    if not ref:
        return None
    try:
        return read_artifact(ref["uri"])
    except OSError:
        return None


def text_of(extractor: Extractor, html: str, url: str) -> str | None:
    found = extractor.extract(Page(html, url))
    return found.text if found else None


def compare(records: list[WcxbRecord], feed: Path, only_crawled: bool = False) -> dict[str, Any]:
    lines = {
        Path(urlparse(r["url"]).path).stem: r for r in map(json.loads, feed.read_text("utf-8").splitlines())
    }
    if only_crawled:
        records = [r for r in records if r.file_id in lines]
    extraction_types = load_label_mapping(DEFAULT_LABEL_MAPPING)
    iawce = build_extractor("iawce")
    peers = {}
    for name in PEERS:
        try:
            peers[name] = build_extractor(name)
        except ExtractorUnavailable as error:
            print(f"skipping {name}: {error}", file=sys.stderr)
    f1: dict[str, list[float]] = {}
    statuses: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    encodings: Counter[str] = Counter()
    mojibake = {"feed": 0, "raw iawce": 0}
    for record in records:
        gold = tokens(record.gold_text)
        line = lines.get(record.file_id, {"status": "missing"})
        statuses[line["status"]] += 1
        if line.get("error") and line["status"] != "ok":
            errors[line["error"].split(" at ")[0][:80]] += 1
        encodings[str(line.get("encoding_source"))] += 1
        raw_html = decode_html(read_local_artifact(record.html_path))
        page_type = None
        if line.get("page_type"):
            try:
                page_type = extraction_types.label_of(line["page_type"])
            except LabelMappingError:
                page_type = None
        raw_found = iawce.extract(Page(raw_html, record.url, page_type))
        raw_text = raw_found.text if raw_found else None
        feed_text = line.get("text") if line["status"] == "ok" else None
        mojibake["feed"] += looks_mojibake(feed_text)
        mojibake["raw iawce"] += looks_mojibake(raw_text)
        f1.setdefault("iawce crawl (feed)", []).append(word_prf(tokens(feed_text), gold).f1)
        f1.setdefault("iawce raw bytes", []).append(word_prf(tokens(raw_text), gold).f1)
        rendered = stored_html(line.get("html")) if line["status"] == "ok" else None
        for name, peer in peers.items():
            f1.setdefault(f"{name} raw bytes", []).append(
                word_prf(tokens(text_of(peer, raw_html, record.url)), gold).f1
            )
            rendered_text = text_of(peer, rendered.decode("utf-8"), record.url) if rendered else None
            f1.setdefault(f"{name} rendered DOM", []).append(word_prf(tokens(rendered_text), gold).f1)
    return {
        "pages": len(records),
        "f1": {label: round(fmean(values), 4) for label, values in f1.items()},
        "feed_status": dict(statuses),
        "errors": dict(errors.most_common()),
        "encoding_source": dict(encodings),
        "mojibake_pages": mojibake,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="WCXB dev folder")
    parser.add_argument("--work", type=Path, default=Path("output/render-fidelity"), help="crawl output")
    parser.add_argument("--limit", type=int, default=0, help="first N held-out pages only")
    parser.add_argument("--feed", type=Path, help="reuse this finished crawl's feed instead of crawling")
    parser.add_argument(
        "--only-crawled", action="store_true", help="score only pages the feed has a line for"
    )
    parser.add_argument("--out", type=Path, help="write the summary JSON here")
    args = parser.parse_args(argv)
    records = heldout_records(args.dataset, args.limit)
    feed = args.feed or crawl(records, args.dataset / "html", args.work)
    summary = compare(records, feed, args.only_crawled)
    text = json.dumps(summary, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
