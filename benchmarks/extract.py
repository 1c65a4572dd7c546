"""Extraction benchmark on WCXB dev: word precision/recall/F1 per page type and overall,
and milliseconds per page, for iawce-paper, iawce, trafilatura, readability and jusText
in one run, on the same decoded HTML.

    .venv/bin/python benchmarks/extract.py ../shared/datasets/wcxb-dev \\
        [--limit N] [--out results.json] [--page-types PRED.json] [--auto] \\
        [--extractors iawce,iawce-paper,trafilatura,readability,justext] [--split all|tune|holdout]

Measure (WCXB's): bag-of-words P/R/F1 of the extracted text against the gold
``main_content``, tokens lowercased ``\\w+`` (``pipelines.evaluation``'s ``word_prf`` and
``tokens``, which also count each CJK character as a token), averaged over pages. A page whose gold
text is empty cannot be scored and is left out (the count is printed). An extractor that
returns nothing scores 0 on that page.

Page type handed to our extractors: the true one (WCXB listing and collection → "list",
the other five types → "article"); with ``--page-types`` also a predicted one (JSON
``{file_id: "article" | "list"}``, e.g. from the screenshot classifier); with ``--auto``
none (the extractor's own HTML fallback). Peers get no page type.

Domains are split by a hash of the domain: one in five is held out ("holdout"), the rest
("tune") is what the improved extractor was tuned on; results are printed for both.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.peers import PeerUnavailable, load_peer
from pipelines.evaluation.text import tokens
from pipelines.extraction import ARTICLE, LIST, Page, available_extractors, decode_html, get_extractor

WCXB_TYPES = ("article", "forum", "product", "collection", "listing", "documentation", "service")
WCXB_LIST_TYPES = frozenset({"listing", "collection"})
PEERS = ("trafilatura", "readability", "justext")
DEFAULT_EXTRACTORS = ("iawce-paper", "iawce", *PEERS)
HOLDOUT_SHARE = 5  # one domain in five


@dataclass
class WcxbPage:
    """One benchmark page and its gold text."""

    file_id: str
    url: str
    domain: str
    wcxb_type: str
    gold: str
    html_path: Path

    @property
    def page_type(self) -> str:
        return LIST if self.wcxb_type in WCXB_LIST_TYPES else ARTICLE

    @property
    def split(self) -> str:
        digest = int(hashlib.md5(self.domain.encode("utf-8")).hexdigest(), 16)
        return "holdout" if digest % HOLDOUT_SHARE == 0 else "tune"


@dataclass
class Run:
    """One extractor in one page-type mode."""

    label: str
    extract: Callable[[str, WcxbPage], str | None]


def load_wcxb(root: Path) -> tuple[list[WcxbPage], int]:
    """Pages with gold text, and how many were left out for an empty gold text.

    The page type and domain come from metadata.json, else from the gold file itself.
    """
    files = json.loads((root / "metadata.json").read_text(encoding="utf-8")).get("files", {})
    pages, unscored = [], 0
    for gold_path in sorted((root / "ground-truth").glob("*.json")):
        record = json.loads(gold_path.read_text(encoding="utf-8"))
        file_id = gold_path.stem
        gold = (record.get("ground_truth") or {}).get("main_content") or ""
        if not gold.strip():
            unscored += 1
            continue
        known = files.get(file_id, {})
        url = record.get("url", "")
        wcxb_type = known.get("page_type") or record.get("_internal", {}).get("page_type", {}).get("primary")
        domain = known.get("domain") or (urlsplit(url).hostname or "").removeprefix("www.")
        if wcxb_type not in WCXB_TYPES:
            raise SystemExit(f"{gold_path}: unknown page type {wcxb_type!r}")
        pages.append(WcxbPage(file_id, url, domain, wcxb_type, gold, root / "html" / f"{file_id}.html.gz"))
    return pages, unscored


def build_runs(names: list[str], predicted: dict[str, str] | None, auto: bool) -> list[Run]:
    """The runs to make: our extractors once per page-type mode, peers once."""
    runs = []
    for name in names:
        if name in PEERS:
            try:
                peer = load_peer(name)
            except PeerUnavailable as error:
                print(f"skipping {name}: {error}", file=sys.stderr)
                continue
            runs.append(Run(name, lambda html, page, peer=peer: peer(html, page.url)))
            continue
        try:
            extractor = get_extractor(name)
        except ValueError as error:
            raise SystemExit(f"{error}; peers: {', '.join(PEERS)}") from None

        def ours(page_type_of: Callable[[WcxbPage], str | None], extractor=extractor):
            def extract(html: str, page: WcxbPage) -> str | None:
                found = extractor.extract(Page(html, page.url, page_type_of(page)))
                return found.text if found else None

            return extract

        runs.append(Run(name, ours(lambda page: page.page_type)))
        if predicted is not None:
            runs.append(Run(f"{name} [predicted type]", ours(lambda page: predicted.get(page.file_id))))
        if auto:
            runs.append(Run(f"{name} [auto type]", ours(lambda page: None)))
    return runs


def run_benchmark(pages: list[WcxbPage], runs: list[Run]) -> dict[str, dict[str, dict[str, float]]]:
    """Per run, per file id: precision, recall, f1, ms."""
    scores: dict[str, dict[str, dict[str, float]]] = {run.label: {} for run in runs}
    started = time.perf_counter()
    for index, page in enumerate(pages, start=1):
        html = decode_html(gzip.decompress(page.html_path.read_bytes()))
        gold = tokens(page.gold)
        for run in runs:
            begin = time.perf_counter()
            text = run.extract(html, page)
            elapsed = (time.perf_counter() - begin) * 1000
            prf = word_prf(tokens(text), gold)
            scores[run.label][page.file_id] = {
                "precision": prf.precision,
                "recall": prf.recall,
                "f1": prf.f1,
                "ms": elapsed,
            }
        if index % 100 == 0:
            print(f"{index}/{len(pages)} pages, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return scores


def summarize(pages: list[WcxbPage], per_page: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Mean P/R/F1 and ms per WCXB type, for all article-like and list-like pages, overall."""
    groups: dict[str, list[WcxbPage]] = {"overall": pages}
    for wcxb_type in WCXB_TYPES:
        groups[wcxb_type] = [p for p in pages if p.wcxb_type == wcxb_type]
    groups["holdout"] = [p for p in pages if p.split == "holdout"]
    summary = {}
    for group, members in groups.items():
        if not members:
            continue
        rows = [per_page[p.file_id] for p in members]
        summary[group] = {
            "pages": len(rows),
            **{key: fmean(row[key] for row in rows) for key in ("precision", "recall", "f1", "ms")},
        }
    return summary


def markdown_table(summaries: dict[str, dict[str, dict[str, float]]]) -> str:
    """One row per run: overall P/R/F1, F1 per WCXB type, held-out F1, ms per page."""
    header = ["extractor", "F1", "P", "R", *WCXB_TYPES, "held-out F1", "ms/page"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label, summary in summaries.items():
        overall = summary["overall"]
        cells = [label, f"{overall['f1']:.3f}", f"{overall['precision']:.3f}", f"{overall['recall']:.3f}"]
        cells += [f"{summary[t]['f1']:.3f}" if t in summary else "–" for t in WCXB_TYPES]
        cells += [f"{summary['holdout']['f1']:.3f}" if "holdout" in summary else "–", f"{overall['ms']:.1f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path, help="WCXB dev folder (metadata.json, html/, ground-truth/)")
    parser.add_argument("--limit", type=int, default=0, help="first N pages only")
    parser.add_argument("--out", type=Path, help="write summaries and per-page scores as JSON here")
    parser.add_argument(
        "--page-types", type=Path, help='predicted page types, JSON {file_id: "article"|"list"}'
    )
    parser.add_argument("--auto", action="store_true", help="also run our extractors without a page type")
    parser.add_argument(
        "--extractors",
        default=",".join(DEFAULT_EXTRACTORS),
        help=f"comma-separated; ours: {', '.join(available_extractors())}; peers: {', '.join(PEERS)}",
    )
    parser.add_argument(
        "--split",
        choices=("all", "tune", "holdout"),
        default="all",
        help="domain split to run on (default all)",
    )
    args = parser.parse_args(argv)

    if not (args.dataset / "metadata.json").is_file():
        print(f"WCXB dataset not found at {args.dataset} (no metadata.json); nothing to benchmark.")
        return 0
    predicted = None
    if args.page_types:
        predicted = json.loads(args.page_types.read_text(encoding="utf-8"))
        wrong = sorted({v for v in predicted.values() if v not in (ARTICLE, LIST)})
        if wrong:
            raise SystemExit(f"{args.page_types}: page types must be article or list, found {wrong}")
    pages, unscored = load_wcxb(args.dataset)
    if args.split != "all":
        pages = [p for p in pages if p.split == args.split]
    if args.limit:
        pages = pages[: args.limit]
    runs = build_runs([n.strip() for n in args.extractors.split(",") if n.strip()], predicted, args.auto)
    print(
        f"{len(pages)} pages ({unscored} with an empty gold text left out), {len(runs)} runs", file=sys.stderr
    )

    per_page = run_benchmark(pages, runs)
    summaries = {label: summarize(pages, scores) for label, scores in per_page.items()}
    print(markdown_table(summaries))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            json.dumps(
                {
                    "dataset": str(args.dataset),
                    "pages": len(pages),
                    "unscored_empty_gold": unscored,
                    "split": args.split,
                    "summaries": summaries,
                    "per_page": per_page,
                },
                indent=1,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
