"""Extraction benchmark on WCXB dev: word precision/recall/F1 per page type and overall,
and milliseconds per page, for any registered extractors (iawce-paper, iawce,
trafilatura, readability, jusText by default) in one run, on the same decoded HTML.

    .venv/bin/python benchmarks/extract.py ../shared/datasets/wcxb-dev \\
        [--limit N] [--out results.json] [--page-types PRED.json] [--auto] \\
        [--extractors iawce,iawce-paper,trafilatura,readability,justext] \\
        [--split all|train|validation|heldout] [--options '{"iawce": {"article_share": 0.6}}']

Measure (WCXB's): bag-of-words P/R/F1 of the extracted text against the gold
``main_content``, tokens lowercased ``\\w+`` (``pipelines.evaluation``'s ``word_prf`` and
``tokens``, which also count each CJK character as a token), averaged over pages. A page whose gold
text is empty cannot be scored and is left out (the count is printed). An extractor that
returns nothing scores 0 on that page.

Page type handed to every extractor: the true one (WCXB listing and collection → "list",
the other five types → "article", through the label mapping of
``PAGESIGHT_TYPE_LABEL_MAPPING``); with ``--page-types`` also a predicted one (JSON
``{file_id: "article" | "list"}``, e.g. from the screenshot classifier); with ``--auto``
none (the extractor's own HTML fallback). Peers do not use it. With two runs or more, an
``oracle`` row takes the best run on each page (the ceiling of choosing among them; its
time is all of theirs). A run whose extractor estimates its quality (``ensemble``) also
gets the estimate's Spearman correlation with the true F1 and its top-vs-bottom quartile
gap, and a run that chooses among candidates (``ensemble``) its choice rate per candidate.

Speed (issue 64): with ``trafilatura`` among the extractors, a second reference row
``trafilatura.extract (plain)`` runs ``trafilatura.extract(html)`` with trafilatura's own
defaults (comments included, no metadata: what a user of the library gets), interleaved
page by page with the others. Every run's mean, median and p95 ms are printed with its
total and median time as a ratio to the project's ``trafilatura`` extractor (text and
metadata, comments off) and its median as a ratio to the plain call.

Pages are read with ``pipelines.evaluation.wcxb`` and split by domain with the project's
one split (``models/common/splits.py``: train, validation, heldout), or by the folder's own
``splits.json`` where it has one (Dragnet's file ids); results are printed for
all pages and for the held-out domains. ``--options`` overrides extractors' Options
fields (``PAGESIGHT_EXTRACTOR_OPTIONS``), so thresholds can be swept without edits.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from statistics import fmean, median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np
from scrapy.settings import Settings

import settings as project_settings
from models.common.splits import HELDOUT, ROLES, SPLIT_FILE, UnknownDomain, load_split
from models.quality.train import quality_metrics
from pipelines.artifacts import read_local_artifact
from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.scoring import extraction_page_type, page_type_mapping
from pipelines.evaluation.text import tokens
from pipelines.evaluation.wcxb import WCXB_TYPES, WcxbFormatError, WcxbRecord, own_split, read_wcxb
from pipelines.extraction import (
    ARTICLE,
    LIST,
    Extraction,
    Extractor,
    ExtractorUnavailable,
    Page,
    available_extractors,
    build_extractor,
    decode_html,
)

DEFAULT_EXTRACTORS = ("iawce-paper", "iawce", "trafilatura", "readability", "justext")
#: The run every other run's time is compared with, when it is in the same run.
SPEED_REFERENCE = "trafilatura"
#: The second reference: ``trafilatura.extract(html)`` as the library's user calls it,
#: run whenever :data:`SPEED_REFERENCE` is.
PLAIN_TRAFILATURA = "trafilatura.extract (plain)"


@dataclass
class BenchmarkPage:
    """One benchmark page: its WCXB record, extraction page type and split role."""

    record: WcxbRecord
    page_type: str
    role: str

    @property
    def file_id(self) -> str:
        return self.record.file_id


@dataclass
class Run:
    """One extractor in one page-type mode."""

    label: str
    extract: Callable[[str, BenchmarkPage], Extraction | None]


def load_pages(root: Path, split_file: Path, settings: Settings) -> tuple[list[BenchmarkPage], int]:
    """Pages with gold text, and how many were left out for an empty gold text. A folder
    with its own split (Dragnet's ``splits.json``) is split by it, else by domain."""
    split, mapping, own = load_split(split_file), page_type_mapping(settings), own_split(root)
    pages, unscored = [], 0
    for record in read_wcxb(root):
        if not record.gold_text.strip():
            unscored += 1
            continue
        if own is not None:
            if record.file_id not in own:
                raise SystemExit(f"{record.source}: file {record.file_id} is in no split of {root}")
            role = own[record.file_id]
        else:
            try:
                role = split.role(record.domain)
            except UnknownDomain:
                raise SystemExit(
                    f"{record.source}: domain {record.domain} is not in the split {split_file}"
                ) from None
        pages.append(BenchmarkPage(record, extraction_page_type(mapping, record.page_type), role))
    return pages, unscored


def available_extractor(name: str, settings: Settings | None) -> Extractor | None:
    """Extractor ``name`` built from ``settings``; None, said on stderr, when its package
    is missing. An unknown name stops the benchmark."""
    try:
        return build_extractor(name, settings)
    except ExtractorUnavailable as error:
        if name not in available_extractors():
            raise SystemExit(str(error)) from None
        print(f"skipping {name}: {error}", file=sys.stderr)
        return None


def build_runs(
    names: list[str], settings: Settings, predicted: dict[str, str] | None, auto: bool
) -> list[Run]:
    """The runs to make: each extractor with the true page type, and with the predicted
    type and none when asked; an extractor whose package is missing is skipped."""
    runs = []
    for name in names:
        extractor = available_extractor(name, settings)
        if extractor is None:
            continue

        def run(
            page_type_of: Callable[[BenchmarkPage], str | None], extractor: Extractor = extractor
        ) -> Callable[[str, BenchmarkPage], Extraction | None]:
            def extract(html: str, page: BenchmarkPage) -> Extraction | None:
                return extractor.extract(Page(html, page.record.url, page_type_of(page)))

            return extract

        runs.append(Run(name, run(lambda page: page.page_type)))
        if predicted is not None:
            runs.append(Run(f"{name} [predicted type]", run(lambda page: predicted.get(page.file_id))))
        if auto:
            runs.append(Run(f"{name} [auto type]", run(lambda page: None)))
        if name == SPEED_REFERENCE:
            runs.append(Run(PLAIN_TRAFILATURA, plain_trafilatura()))
    return runs


def plain_trafilatura() -> Callable[[str, BenchmarkPage], Extraction | None]:
    """``trafilatura.extract(html)`` with the library's defaults, as an extraction."""
    import trafilatura

    def extract(html: str, page: BenchmarkPage) -> Extraction | None:
        text = trafilatura.extract(html)
        return Extraction(PLAIN_TRAFILATURA, ARTICLE, None, text, text) if text else None

    return extract


def run_benchmark(
    pages: list[BenchmarkPage], runs: list[Run], with_comments: bool = False
) -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, dict[str, str]]]:
    """Per run, per file id: precision, recall, f1, ms (and the extraction's quality
    estimate, for extractors that give one); and per run that chooses among candidates
    (its extractor is ``name:candidate``), per file id, the candidate it kept. The gold is
    the main text, followed by the readers' comments ``with_comments``."""
    scores: dict[str, dict[str, dict[str, float]]] = {run.label: {} for run in runs}
    choices: dict[str, dict[str, str]] = {}
    started = time.perf_counter()
    for index, page in enumerate(pages, start=1):
        html = decode_html(read_local_artifact(page.record.html_path))
        gold = tokens(page.record.gold_text_with_comments if with_comments else page.record.gold_text)
        for run in runs:
            begin = time.perf_counter()
            found = run.extract(html, page)
            elapsed = (time.perf_counter() - begin) * 1000
            prf = word_prf(tokens(found.text if found else None), gold)
            scores[run.label][page.file_id] = {
                "precision": prf.precision,
                "recall": prf.recall,
                "f1": prf.f1,
                "ms": elapsed,
            }
            if found is not None and found.quality is not None:
                scores[run.label][page.file_id]["quality"] = found.quality
            if found is not None and ":" in found.extractor:
                choices.setdefault(run.label, {})[page.file_id] = found.extractor.split(":", 1)[1]
        if index % 100 == 0:
            print(f"{index}/{len(pages)} pages, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return scores, choices


ORACLE = "oracle"


def oracle_scores(per_page: dict[str, dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """The ceiling of choosing among the runs: per page, the scores of the run with the
    best F1, and the time of running them all."""
    runs = list(per_page.values())
    best = {}
    for file_id in runs[0]:
        rows = [run[file_id] for run in runs]
        top = max(rows, key=lambda row: row["f1"])
        best[file_id] = {key: top[key] for key in ("precision", "recall", "f1")} | {
            "ms": sum(row["ms"] for row in rows)
        }
    return best


def summarize(
    pages: list[BenchmarkPage], per_page: dict[str, dict[str, float]], chosen: dict[str, str] | None = None
) -> dict[str, dict[str, float]]:
    """Mean P/R/F1 and ms, median and p95 ms and total ms, per WCXB type, on the held-out
    domains, and overall; with ``chosen`` (a choosing run's kept candidate per file id),
    the share of pages each candidate was kept on (``chose NAME``)."""
    groups: dict[str, list[BenchmarkPage]] = {"overall": pages}
    for wcxb_type in WCXB_TYPES:
        groups[wcxb_type] = [p for p in pages if p.record.page_type == wcxb_type]
    groups[HELDOUT] = [p for p in pages if p.role == HELDOUT]
    summary = {}
    for group, members in groups.items():
        if not members:
            continue
        rows = [per_page[p.file_id] for p in members]
        times = np.array([row["ms"] for row in rows])
        summary[group] = {
            "pages": len(rows),
            **{key: fmean(row[key] for row in rows) for key in ("precision", "recall", "f1", "ms")},
            "median_ms": median(times),
            "p95_ms": float(np.percentile(times, 95)),
            "total_ms": float(times.sum()),
        }
        if chosen is not None:
            kept = Counter(chosen[p.file_id] for p in members if p.file_id in chosen)
            summary[group] |= {f"chose {name}": count / len(rows) for name, count in sorted(kept.items())}
        rated = [row for row in rows if "quality" in row]
        if rated:
            rating = quality_metrics(
                np.array([row["quality"] for row in rated]), np.array([row["f1"] for row in rated])
            )
            summary[group] |= {"rated_pages": len(rated), **rating}
    return summary


def markdown_table(summaries: dict[str, dict[str, dict[str, float]]]) -> str:
    """One row per run: overall P/R/F1, F1 per WCXB type, held-out F1, mean, median and
    p95 ms per page, the total and the median as a ratio to the project's trafilatura
    extractor's, and the median as a ratio to plain ``trafilatura.extract``'s (same pages,
    same process)."""
    reference = summaries.get(SPEED_REFERENCE, {}).get("overall", {})
    plain = summaries.get(PLAIN_TRAFILATURA, {}).get("overall", {})

    def ratio(value: float, of: dict[str, float], key: str) -> str:
        return f"{value / of[key]:.2f}" if of.get(key) else "–"

    header = [
        "extractor",
        "F1",
        "P",
        "R",
        *WCXB_TYPES,
        "held-out F1",
        "ms/page",
        "median ms",
        "p95 ms",
        "total × trafilatura",
        "median × trafilatura",
        "median × plain",
    ]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for label, summary in summaries.items():
        overall = summary["overall"]
        cells = [label, f"{overall['f1']:.3f}", f"{overall['precision']:.3f}", f"{overall['recall']:.3f}"]
        cells += [f"{summary[t]['f1']:.3f}" if t in summary else "–" for t in WCXB_TYPES]
        cells += [f"{summary[HELDOUT]['f1']:.3f}" if HELDOUT in summary else "–", f"{overall['ms']:.1f}"]
        cells += [
            f"{overall['median_ms']:.1f}",
            f"{overall['p95_ms']:.1f}",
            ratio(overall["total_ms"], reference, "total_ms"),
            ratio(overall["median_ms"], reference, "median_ms"),
            ratio(overall["median_ms"], plain, "median_ms"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def quality_table(summaries: dict[str, dict[str, dict[str, float]]]) -> str:
    """For runs that estimate their quality (the ensemble): how well the estimate ranks
    pages, overall and on the held-out domains (Spearman with the true word F1; true F1
    of the estimate's top quartile minus its bottom quartile's)."""
    lines = [
        "| extractor | pages | Spearman | quartile gap | held-out Spearman | held-out gap |",
        "|---|---|---|---|---|---|",
    ]
    for label, summary in summaries.items():
        overall, heldout = summary["overall"], summary.get(HELDOUT, {})
        if "spearman" not in overall:
            continue
        cells = [
            label,
            str(overall["rated_pages"]),
            f"{overall['spearman']:.3f}",
            f"{overall['quartile_gap']:.3f}",
        ]
        cells += [f"{heldout[k]:.3f}" if k in heldout else "–" for k in ("spearman", "quartile_gap")]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) if len(lines) > 2 else ""


def choice_table(summaries: dict[str, dict[str, dict[str, float]]]) -> str:
    """For runs that choose among candidates (the ensemble): the share of pages on which
    each candidate's text was kept, overall and on the held-out domains."""
    lines = ["| extractor | candidate | share of pages | held-out share |", "|---|---|---|---|"]
    for label, summary in summaries.items():
        overall, heldout = summary["overall"], summary.get(HELDOUT, {})
        for key in (k for k in overall if k.startswith("chose ")):
            share = f"{heldout[key]:.3f}" if key in heldout else "–"
            lines.append(f"| {label} | {key.removeprefix('chose ')} | {overall[key]:.3f} | {share} |")
    return "\n".join(lines) if len(lines) > 2 else ""


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
        help=f"comma-separated registered extractors: {', '.join(available_extractors())}",
    )
    parser.add_argument(
        "--split",
        choices=("all", *ROLES),
        default="all",
        help="domains to run on: the split's train, validation or heldout (default all)",
    )
    parser.add_argument(
        "--split-file", type=Path, default=SPLIT_FILE, help="domain split (default: the committed one)"
    )
    parser.add_argument(
        "--options", type=json.loads, default={}, help="extractor options, JSON {name: {field: value}}"
    )
    parser.add_argument(
        "--with-comments",
        action="store_true",
        help="score against the main text followed by the readers' comments (Dragnet's gold keeps "
        'them apart); run the extractors with theirs: --options \'{"iawce": {"include_comments": true}, '
        '"trafilatura": {"include_comments": true}}\'',
    )
    args = parser.parse_args(argv)

    if not (args.dataset / "ground-truth").is_dir():
        print(f"WCXB dataset not found at {args.dataset} (no ground-truth/); nothing to benchmark.")
        return 0
    defaults = {name: getattr(project_settings, name) for name in dir(project_settings) if name.isupper()}
    settings = Settings({**defaults, "PAGESIGHT_EXTRACTOR_OPTIONS": args.options})
    predicted = None
    if args.page_types:
        predicted = json.loads(args.page_types.read_text(encoding="utf-8"))
        wrong = sorted({v for v in predicted.values() if v not in (ARTICLE, LIST)})
        if wrong:
            raise SystemExit(f"{args.page_types}: page types must be article or list, found {wrong}")
    try:
        pages, unscored = load_pages(args.dataset, args.split_file, settings)
    except WcxbFormatError as error:
        raise SystemExit(str(error)) from None
    if args.split != "all":
        pages = [p for p in pages if p.role == args.split]
    if args.limit:
        pages = pages[: args.limit]
    names = [n.strip() for n in args.extractors.split(",") if n.strip()]
    runs = build_runs(names, settings, predicted, args.auto)
    print(
        f"{len(pages)} pages ({unscored} with an empty gold text left out), {len(runs)} runs", file=sys.stderr
    )

    per_page, choices = run_benchmark(pages, runs, args.with_comments)
    if len(runs) > 1:
        per_page[ORACLE] = oracle_scores(
            {label: scores for label, scores in per_page.items() if label != PLAIN_TRAFILATURA}
        )
    summaries = {label: summarize(pages, scores, choices.get(label)) for label, scores in per_page.items()}
    print(markdown_table(summaries))
    if rated := quality_table(summaries):
        print(rated)
    if choice_rates := choice_table(summaries):
        print(choice_rates)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(
            json.dumps(
                {
                    "dataset": str(args.dataset),
                    "pages": len(pages),
                    "unscored_empty_gold": unscored,
                    "split": args.split,
                    "split_file": str(args.split_file),
                    "options": args.options,
                    "with_comments": args.with_comments,
                    "summaries": summaries,
                    "per_page": per_page,
                    "choices": choices,
                },
                indent=1,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
