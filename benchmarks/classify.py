"""Page-type classifier benchmark: held-out accuracy and CPU milliseconds per page.

    .venv/bin/python benchmarks/classify.py --data DATA/wcxb-captures \\
        --checkpoint models/checkpoints/pagenet-article-list.pt \\
        --checkpoint models/checkpoints/lenet5-article-list.pt \\
        [--split test|heldout|validation|all] [--timing-pages 32] [--repeats 3] [--threads N]

Accuracy: each checkpoint classifies the manifest's pages that belong to the test split
recorded in the checkpoint (the sites held out when it was trained), the held-out domains
of the one WCXB dev split (``--split heldout``, what PageNet is scored on), or every page
with ``--split all`` (a dataset it never saw). Dataset labels are mapped with the checkpoint's
own label mapping.

Speed, on the CPU: open the PNG from bytes in memory as the crawl does
(``PageTypeClassifier.open_page``: the top square decoded, or only the header for a model
that reads no pixels) + the shared transform (+ for PageNet the layout raster and page
statistics from the boxes, the address from the HTML's head and, for a model that reads
the ``markup`` statistics, the HTML itself, in memory as in a crawl) + the forward pass, per page, at batch size 1 and 16, over the first ``--timing-pages`` pages;
the median of ``--repeats`` runs after one warm-up run. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch

from models.common.checkpoint import CheckpointError
from models.common.metrics import ClassificationMetrics, classification_metrics
from models.common.splits import HELDOUT, VALIDATION
from models.pagetype.classifier import PageTypeClassifier, load_classifier
from models.pagetype.data import (
    ManifestError,
    ManifestRecord,
    read_boxes,
    read_manifests,
    record_address,
    record_html,
    record_roles,
)
from models.pagetype.labels import LabelMappingError, label_mapping_from_dict
from models.pagetype.model import MODELS
from pipelines.artifacts import read_local_artifact
from pipelines.extraction.metadata import page_address

CHUNK = 16


@dataclass(frozen=True)
class TimedPage:
    """One page as a crawl holds it in memory."""

    png: bytes
    boxes: list[dict[str, Any]]
    html: str
    url: str


@dataclass
class BenchmarkRow:
    """One checkpoint's results."""

    checkpoint: Path
    title: str
    backbone: str
    input_size: int
    sites: int
    metrics: ClassificationMetrics
    timed_pages: int
    ms_batch1: float
    ms_batch16: float


def evaluation_records(
    classifier: PageTypeClassifier, records: Sequence[ManifestRecord], split: str
) -> list[ManifestRecord]:
    """The pages to score: the checkpoint's held-out test sites, the one split's held-out
    (or validation) domains, or all of them."""
    if split == "all":
        return list(records)
    if split in (HELDOUT, VALIDATION):
        roles = record_roles(records)
        return [record for record, role in zip(records, roles, strict=True) if role == split]
    test_sites = set(classifier.metadata["split"].get("test_sites", []))
    held_out = [record for record in records if record.site in test_sites]
    if not held_out:
        raise ManifestError(
            "none of the manifest's sites is in the checkpoint's test split; "
            "give the dataset it was trained on, or --split all"
        )
    return held_out


def score(
    classifier: PageTypeClassifier, records: Sequence[ManifestRecord]
) -> tuple[ClassificationMetrics, list[tuple[str, float]]]:
    """Classify the pages (batches of 16) and score them against their mapped labels;
    also returns each page's predicted label and probability."""
    mapping = label_mapping_from_dict(classifier.metadata["config"]["label_mapping"])
    mapping.check_covers(record.label for record in records)
    true = [classifier.labels.index(mapping.label_of(record.label)) for record in records]
    predicted: list[tuple[str, float]] = []
    for start in range(0, len(records), CHUNK):
        chunk = records[start : start + CHUNK]
        images = [classifier.open_page(record.image.read_bytes()) for record in chunk]
        boxes, urls, htmls = None, None, None
        if classifier.needs_boxes:
            boxes = [read_boxes(record.boxes) for record in chunk]
            htmls = [record_html(record) for record in chunk]
            urls = [record_address(r, html) for html, r in zip(htmls, chunk, strict=True)]
        predicted += classifier.predict(images, CHUNK, boxes, urls, htmls)
    indices = [classifier.labels.index(label) for label, _ in predicted]
    return classification_metrics(true, indices, classifier.labels), predicted


def ms_per_page(
    classifier: PageTypeClassifier,
    pages: Sequence[TimedPage],
    batch_size: int,
    repeats: int,
) -> float:
    """Median over runs of decode + transform (+ layout from the boxes and the address
    from the HTML's head, in memory as in a crawl) + forward time per page, in ms."""

    def run() -> float:
        started = time.perf_counter()
        for start in range(0, len(pages), batch_size):
            chunk = pages[start : start + batch_size]
            images = [classifier.open_page(page.png) for page in chunk]
            if classifier.needs_boxes:
                urls = [page_address(page.html, page.url) for page in chunk]
                htmls = [page.html for page in chunk]
                classifier.predict(images, batch_size, [page.boxes for page in chunk], urls, htmls)
            else:
                classifier.predict(images, batch_size)
        return (time.perf_counter() - started) * 1000 / len(pages)

    run()
    return statistics.median(run() for _ in range(repeats))


def benchmark(
    checkpoint: Path,
    records: Sequence[ManifestRecord],
    split: str,
    timing_pages: int,
    repeats: int,
    predictions: Path | None = None,
    min_score: float = 0.0,
) -> BenchmarkRow:
    """Score one checkpoint and time it on the CPU; optionally write its predictions as
    ``{file_id: label}`` (the file name of each page's URL without extension, WCXB's id),
    the form ``benchmarks/extract.py --page-types`` reads, leaving out pages predicted
    with a probability below ``min_score`` (a crawl leaves those to the HTML fallback:
    PAGESIGHT_CLASSIFIER_MIN_SCORE)."""
    classifier = load_classifier(checkpoint, device="cpu")
    pages = evaluation_records(classifier, records, split)
    metrics, predicted = score(classifier, pages)
    if predictions is not None:
        by_id = {
            PurePosixPath(urlsplit(r.url).path).stem: label
            for r, (label, probability) in zip(pages, predicted, strict=True)
            if probability >= min_score
        }
        predictions.write_text(json.dumps(by_id, indent=0, sort_keys=True) + "\n", encoding="utf-8")
    timed = [
        TimedPage(
            record.image.read_bytes(),
            read_boxes(record.boxes),
            read_local_artifact(record.html).decode("utf-8", errors="replace") if record.html else "",
            record.url,
        )
        for record in pages[:timing_pages]
    ]
    return BenchmarkRow(
        checkpoint=checkpoint,
        title=f"{MODELS[classifier.model_name].title} [{', '.join(classifier.inputs)}]"
        + (" late fusion" if classifier.metadata["args"].get("fusion") == "late" else ""),
        backbone=classifier.metadata["config"].get("backbone", ""),
        input_size=classifier.transform.input_size,
        sites=len({record.site for record in pages}),
        metrics=metrics,
        timed_pages=len(timed),
        ms_batch1=ms_per_page(classifier, timed, 1, repeats),
        ms_batch16=ms_per_page(classifier, timed, 16, repeats),
    )


def markdown_table(rows: Sequence[BenchmarkRow]) -> str:
    """The results as a Markdown table."""
    columns = [
        "model",
        "weights",
        "input",
        "pages (sites)",
        "accuracy",
        "recall per class",
        "pages timed",
        "ms/page, batch 1",
        "ms/page, batch 16",
    ]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in rows:
        recalls = ", ".join(
            f"{c.label} {c.recall:.3f} ({c.support})" for c in row.metrics.per_class if c.support
        )
        cells = [
            row.title,
            row.backbone,
            f"{row.input_size} px",
            f"{row.metrics.pages} ({row.sites})",
            f"{row.metrics.accuracy:.4f}",
            recalls,
            str(row.timed_pages),
            f"{row.ms_batch1:.1f}",
            f"{row.ms_batch16:.1f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        action="append",
        required=True,
        metavar="DIR",
        help="dataset folder with manifest.jsonl (repeatable)",
    )
    parser.add_argument(
        "--checkpoint",
        action="append",
        required=True,
        type=Path,
        metavar="PATH",
        help="classifier checkpoint (repeatable)",
    )
    parser.add_argument(
        "--split",
        choices=("test", HELDOUT, VALIDATION, "all"),
        default="test",
        help="score the checkpoint's held-out test sites (default), the held-out (or "
        "validation: choosing --min-score) domains of the one WCXB dev split "
        "(models/common/splits.py), or every page",
    )
    parser.add_argument(
        "--min-score",
        type=float,
        default=0.0,
        help="--predictions leaves out pages predicted with a lower probability (their type "
        "is left to the extractor, as PAGESIGHT_CLASSIFIER_MIN_SCORE does in a crawl; default: 0)",
    )
    parser.add_argument("--timing-pages", type=int, default=32, help="pages timed per run (default: 32)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs, median reported (default: 3)")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    parser.add_argument(
        "--predictions",
        type=Path,
        metavar="PRED.json",
        help="write the first checkpoint's predictions here, for benchmarks/extract.py --page-types",
    )
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        records = read_manifests(args.data)
        rows = [
            benchmark(
                path,
                records,
                args.split,
                args.timing_pages,
                args.repeats,
                args.predictions if n == 0 else None,
                args.min_score,
            )
            for n, path in enumerate(args.checkpoint)
        ]
    except (ManifestError, LabelMappingError, CheckpointError) as exc:
        parser.error(str(exc))
    scored = {
        "test": "the checkpoint's held-out test sites",
        HELDOUT: "WCXB dev's held-out domains",
        VALIDATION: "WCXB dev's validation domains",
        "all": "all pages",
    }[args.split]
    print(
        f"CPU, {torch.get_num_threads()} torch threads; pages scored: {scored}; "
        f"times: decode + transform + forward, median of {args.repeats} runs"
    )
    print()
    print(markdown_table(rows))


if __name__ == "__main__":
    main()
