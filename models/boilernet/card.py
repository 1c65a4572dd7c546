"""BoilerNet's model card, and the command that rewrites a checkpoint's card with its
benchmark and out-of-fold sections, written by code rather than by hand (keeping the
versions and date it records)::

    .venv/bin/python -m models.boilernet.card CHECKPOINT --command "scrapy train-boilernet ..." \\
        [--benchmark REPORT.json --benchmark-command "..."] [--out-of-fold-from OLD.card.json]

``REPORT.json`` is a ``benchmarks/extract.py --out`` report; ``--out-of-fold-from`` copies
the ``out_of_fold`` section of a card (the checkpoint's previous one, when its weights and
configuration, hence its out-of-fold predictions, did not change).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import torch

from models.boilernet.checkpoint import FORMAT, load_boilernet
from models.boilernet.data import FEATURES_VERSION
from models.common.card import card_path, read_card, write_card
from models.common.versions import denoiser_version


def boilernet_versions() -> dict[str, Any]:
    """The versions a BoilerNet trained now is trained with (its card's ``versions``)."""
    return {"features": FEATURES_VERSION, "denoiser": denoiser_version(), "torch": torch.__version__}


def write_boilernet_card(
    checkpoint: Path,
    command: str,
    versions: dict[str, Any],
    date: str | None = None,
    benchmark: dict[str, Any] | None = None,
    out_of_fold: dict[str, Any] | None = None,
    restamped: dict[str, Any] | None = None,
) -> Path:
    """Write the card (:mod:`models.common.card`'s schema) of a BoilerNet checkpoint: the
    training command, the versions it was trained with and when (``date``, None: now), and
    the metadata it carries (config, vocabulary, threshold, training, metrics); with
    ``benchmark`` (:func:`benchmark_section`), ``out_of_fold`` (where its out-of-fold
    predictions are and how they were made) and ``restamped`` (:mod:`models.boilernet.restamp`),
    those sections too."""
    loaded = load_boilernet(checkpoint)
    training = loaded.metadata["training"]
    extra: dict[str, Any] = {
        "vocabulary": {"words": len(loaded.vocabulary.words), "tags": list(loaded.vocabulary.tags)},
        "members": len(loaded.models),
        "threshold": loaded.threshold,
        "drop_forms": loaded.drop_forms,
        "flags": list(loaded.flags),
        "config": loaded.metadata["config"],
        "training": training,
    }
    if benchmark is not None:
        extra["benchmark"] = benchmark
    if out_of_fold is not None:
        extra["out_of_fold"] = out_of_fold
    if restamped is not None:
        extra["restamped"] = restamped
    return write_card(
        checkpoint,
        model="BoilerNet (Leonhardt et al. 2020), seed 001",
        family="boilernet",
        command=command,
        date=date,
        data={key: training.get(key) for key in ("data", "sources", "pages", "leaves")},
        split=training.get("split"),
        metrics=loaded.metadata["metrics"],
        versions=versions,
        format_name=FORMAT,
        format_version=loaded.format_version,
        extra=extra,
    )


def benchmark_section(report: dict[str, Any], command: str) -> dict[str, Any]:
    """A card's ``benchmark`` section from a ``benchmarks/extract.py --out`` report: the
    command, the split, the pages scored and each extractor's mean page word F1 overall and
    per WCXB page type (``{split}_word_f1``, rounded to 4 places)."""
    try:
        split, summaries = report["split"], report["summaries"]
        scores = {
            extractor: {group: round(float(row["f1"]), 4) for group, row in groups.items()}
            for extractor, groups in summaries.items()
        }
        pages = int(report["pages"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not a benchmarks/extract.py report: {exc!r}") from None
    return {"command": command, "split": split, "pages": pages, f"{split}_word_f1": scores}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--command", required=True, help="the command that trained the checkpoint")
    parser.add_argument("--benchmark", type=Path, help="a benchmarks/extract.py --out report")
    parser.add_argument("--benchmark-command", default="", help="the command that wrote that report")
    parser.add_argument("--out-of-fold-from", type=Path, help="a card whose out_of_fold section to keep")
    args = parser.parse_args(argv)
    # Read before writing: the old card may be the one being rewritten.
    out_of_fold: dict[str, Any] | None = None
    if args.out_of_fold_from is not None:
        out_of_fold = json.loads(args.out_of_fold_from.read_text(encoding="utf-8")).get("out_of_fold")
        if out_of_fold is None:
            parser.error(f"{args.out_of_fold_from} has no out_of_fold section")
    benchmark = None
    if args.benchmark is not None:
        report = json.loads(args.benchmark.read_text(encoding="utf-8"))
        benchmark = benchmark_section(report, args.benchmark_command)
    if not card_path(args.checkpoint).is_file() or "versions" not in read_card(args.checkpoint):
        parser.error(f"{args.checkpoint} has no card recording its versions (models.boilernet.restamp)")
    old = read_card(args.checkpoint)
    path = write_boilernet_card(
        args.checkpoint, args.command, old["versions"], old["date"], benchmark, out_of_fold
    )
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
