"""Extraction benchmark on captured WCXB pages: word P/R/F1 per WCXB page type for our
extractors on the rendered HTML and element boxes of a capture crawl, in one run.

    .venv/bin/python benchmarks/extract_captures.py DATA/wcxb-captures/capture-feed.jsonl \\
        ../shared/datasets/wcxb-dev [--extractors iawce,element-classifier,vision-element] \\
        [--role heldout|validation|train|all] [--element-model PATH] [--vision-model PATH] \\
        [--threads 1] [--out results.json]

``benchmarks/extract.py`` reads WCXB's raw HTML, which has no element boxes; the element
classifier needs the render's geometry (and the vision element model the screenshot), so
this benchmark reads the captures instead (every extractor gets the same rendered HTML,
boxes, screenshot (read only by those that look at it) and the true page type: WCXB listing
and collection → "list", the rest → "article"). Pages are chosen by the one split
(``models/common/splits.py``; default: the held-out domains). Measure as in ``extract.py``:
bag-of-words F1 against the gold ``main_content`` (``word_prf`` over ``tokens``), mean
over pages; a page an extractor returns nothing for scores 0; pages with an empty gold
are left out.

Time per page: wall ``ms`` and ``cpu_ms`` (the process's CPU time: on a shared machine
the wall time grows with the load, the CPU time much less) around each ``extract()``, mean
and median; ``× iawce`` is a run's median wall ms over iawce's, in the same run (same
pages, same load). The load average before and after the run goes in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from statistics import fmean, median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from models.element.data import read_capture_feed, wcxb_pages
from models.pagetype.labels import default_label_mapping
from pipelines.artifacts import read_artifact
from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.scoring import extraction_page_type
from pipelines.evaluation.text import tokens
from pipelines.evaluation.wcxb import WCXB_TYPES
from pipelines.extraction import Extractor, Page, build_extractor
from pipelines.extraction.element_classifier import ElementClassifierExtractor
from pipelines.extraction.vision_element import VisionElementExtractor

#: The run every other run's median time is compared with, when it is in the same run.
SPEED_REFERENCE = "iawce"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("feed", type=Path, help="capture feed JSONL of the WCXB dev pages")
    parser.add_argument("wcxb", type=Path, help="WCXB dev folder (the gold)")
    parser.add_argument("--extractors", default="iawce,element-classifier", help="comma-separated")
    parser.add_argument("--role", choices=("heldout", "validation", "train", "all"), default="heldout")
    parser.add_argument("--element-model", type=Path, help="element classifier checkpoint (default: shipped)")
    parser.add_argument("--vision-model", type=Path, help="vision element checkpoint (default: shipped)")
    parser.add_argument("--threads", type=int, help="torch threads (ms/page of the learned models)")
    parser.add_argument("--out", type=Path, help="write summaries and per-page scores as JSON here")
    args = parser.parse_args(argv)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    pages = [p for p in wcxb_pages(read_capture_feed(args.feed), args.wcxb) if args.role in ("all", p.role)]
    extractors: dict[str, Extractor] = {}
    for name in (n.strip() for n in args.extractors.split(",") if n.strip()):
        if name == ElementClassifierExtractor.name and args.element_model:
            extractors[name] = ElementClassifierExtractor(
                ElementClassifierExtractor.Options(args.element_model)
            )
        elif name == VisionElementExtractor.name and args.vision_model:
            extractors[name] = VisionElementExtractor(VisionElementExtractor.Options(args.vision_model))
        else:
            extractors[name] = build_extractor(name)
    print(f"{len(pages)} captured pages ({args.role})", file=sys.stderr)
    load_before = os.getloadavg()
    mapping = default_label_mapping()  # WCXB listing and collection pages are lists
    per_page: dict[str, dict[str, dict[str, float]]] = {name: {} for name in extractors}
    for index, page in enumerate(pages, 1):
        html, boxes = page.capture.read()
        page_type = extraction_page_type(mapping, page.page_type)
        gold = tokens(page.gold_text)
        for name, extractor in extractors.items():
            started, cpu_started = time.perf_counter(), time.process_time()
            shot = page.capture.screenshot
            screenshot = (lambda uri=shot["uri"]: read_artifact(uri)) if shot else None
            found = extractor.extract(Page(html, page.capture.url, page_type, boxes, screenshot))
            elapsed = (time.perf_counter() - started) * 1000
            cpu = (time.process_time() - cpu_started) * 1000
            prf = word_prf(tokens(found.text if found else ""), gold)
            per_page[name][page.file_id] = {
                "precision": prf.precision,
                "recall": prf.recall,
                "f1": prf.f1,
                "ms": elapsed,
                "cpu_ms": cpu,
            }
        if index % 100 == 0:
            print(f"{index}/{len(pages)} pages", file=sys.stderr)
    load_after = os.getloadavg()

    types = {page.file_id: page.page_type for page in pages}
    summaries = {}
    for name, scores in per_page.items():
        groups: dict[str, list[dict[str, float]]] = defaultdict(list)
        for file_id, row in scores.items():
            groups["overall"].append(row)
            groups[types[file_id]].append(row)
        summaries[name] = {
            group: {
                "pages": len(rows),
                **{k: fmean(r[k] for r in rows) for k in ("precision", "recall", "f1", "ms", "cpu_ms")},
                "median_ms": median(r["ms"] for r in rows),
                "median_cpu_ms": median(r["cpu_ms"] for r in rows),
            }
            for group, rows in groups.items()
        }
    reference = summaries.get(SPEED_REFERENCE, {}).get("overall", {}).get("median_ms")
    header = ["extractor", "pages", "F1", "P", "R", *WCXB_TYPES, "ms/page", "median ms", "median CPU ms"]
    header.append(f"× {SPEED_REFERENCE}")
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for name, summary in summaries.items():
        overall = summary["overall"]
        cells = [name, str(overall["pages"]), *(f"{overall[k]:.3f}" for k in ("f1", "precision", "recall"))]
        cells += [
            f"{summary[t]['f1']:.3f} ({summary[t]['pages']})" if t in summary else "–" for t in WCXB_TYPES
        ]
        cells += [f"{overall[k]:.1f}" for k in ("ms", "median_ms", "median_cpu_ms")]
        cells.append(f"{overall['median_ms'] / reference:.2f}" if reference else "–")
        print("| " + " | ".join(cells) + " |")
    print(f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after the run", file=sys.stderr)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        report = {
            "feed": str(args.feed),
            "role": args.role,
            "threads": args.threads,
            "load_average": {"before": load_before, "after": load_after},
            "summaries": summaries,
            "per_page": per_page,
        }
        args.out.write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
