"""Page-type ablation on WCXB dev's held-out domains: what each input is worth.

    .venv/bin/python -m models.pagetype.ablation --data DATA/wcxb-captures \\
        [--data DIR ...] [--out benchmarks/results/pagetype-ablation.json]

Every variant trains on the one split's training domains, picks its epoch and fits its
temperature on the validation domains, and is scored on the held-out domains, from the
same precomputed inputs (:mod:`models.pagetype.data`):

* ``lenet5``: the paper's LeNet-5 on the grayscale top square (no class weights);
* ``efficientnet-transfer``: the paper's EfficientNet transfer (last layers trained, GAP,
  2 outputs, batch 16, Adam, warm-up/decay), RGB top square, no class weights;
* ``layout``: the element-box raster only; ``statistics``: DOM statistics only;
* ``screenshot+layout`` and ``fused`` (screenshot + layout + statistics), class-balanced;
* ``statistics-unweighted`` and ``fused-unweighted``: the same without class weights
  (balanced weights buy list recall with article accuracy on WCXB's 16 % of lists).

Prints a Markdown table and writes the numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from models.common.splits import HELDOUT, TRAIN, VALIDATION
from models.common.training import seed_everything
from models.pagetype.data import prepare_pages, read_manifests
from models.pagetype.labels import load_label_mapping
from models.pagetype.model import PageNet
from models.pagetype.train import (
    FitConfig,
    calibrate_and_evaluate,
    fit,
    lenet_logits,
    new_lenet,
    pagenet_logits,
    prepare_statistics,
    selection_key,
)


@dataclass(frozen=True)
class Variant:
    name: str
    inputs: tuple[str, ...]  # empty: LeNet-5
    class_weights: str


VARIANTS = (
    Variant("lenet5", (), "none"),
    Variant("efficientnet-transfer", ("screenshot",), "none"),
    Variant("layout", ("layout",), "balanced"),
    Variant("statistics", ("statistics",), "balanced"),
    Variant("screenshot+layout", ("screenshot", "layout"), "balanced"),
    Variant("fused", ("screenshot", "layout", "statistics"), "balanced"),
    Variant("statistics-unweighted", ("statistics",), "none"),
    Variant("fused-unweighted", ("screenshot", "layout", "statistics"), "none"),
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", action="append", required=True, type=Path, help="capture folder")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/pagetype-ablation.json"))
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--variants", default=",".join(v.name for v in VARIANTS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", type=Path, help="folder keeping each page's encoded inputs")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    mapping = load_label_mapping(None)
    labels = list(mapping.labels)
    base = PageNet(len(labels), ["screenshot"])
    started = time.perf_counter()
    pages = prepare_pages(read_manifests(args.data), mapping, base.trunk, args.cache)
    prepare_seconds = time.perf_counter() - started
    counts = {role: len(pages.subset(role)) for role in (TRAIN, VALIDATION, HELDOUT)}
    heldout_lists = int(pages.targets[pages.subset(HELDOUT)].eq(labels.index("list")).sum())
    print(f"pages {counts}, held-out lists {heldout_lists}; inputs prepared in {prepare_seconds:.0f} s")
    rows = []
    wanted = set(args.variants.split(","))
    device = torch.device("cpu")
    for variant in (v for v in VARIANTS if v.name in wanted):
        seed_everything(args.seed)
        config = FitConfig(
            epochs=args.epochs, class_weights=variant.class_weights, seed=args.seed, progress=False
        )
        model: nn.Module
        if variant.inputs:
            model = PageNet(len(labels), list(variant.inputs))
            logits = pagenet_logits(pages, device)
        else:
            model = new_lenet(len(labels))
            logits = lenet_logits(pages, device)
        prepare_statistics(model, pages)
        started = time.perf_counter()
        history = fit(model, pages, logits, len(labels), config)
        evaluation = calibrate_and_evaluate(model, pages, logits, labels, config.batch_size)
        seconds = time.perf_counter() - started
        best = max(history, key=lambda h: selection_key(config, h))
        rows.append(
            {
                "variant": variant.name,
                "inputs": list(variant.inputs) or ["grayscale screenshot (LeNet-5)"],
                "class_weights": variant.class_weights,
                "best_epoch": best.epoch,
                "train_seconds": round(seconds, 1),
                "heldout": evaluation.to_dict(),
            }
        )
        print(_row(rows[-1]), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps(
            {
                "command": "python -m models.pagetype.ablation " + " ".join(f"--data {d}" for d in args.data),
                "pages": counts,
                "heldout_lists": heldout_lists,
                "prepare_seconds": round(prepare_seconds, 1),
                "epochs": args.epochs,
                "rows": rows,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {args.out}")


def _row(row: dict[str, Any]) -> str:
    """The variant's Markdown row: accuracy and list recall on all held-out pages and on
    each source family, ECE (uncalibrated), training time."""
    heldout = row["heldout"]
    cells = [row["variant"], _scores(heldout)]
    cells += [f"{family} {_scores(m)}" for family, m in heldout["by_source"].items()]
    cells += [f"{heldout['ece']:.3f} ({heldout['ece_uncalibrated']:.3f})", f"{row['train_seconds']:.0f} s"]
    return "| " + " | ".join(cells) + " |"


def _scores(metrics: dict[str, Any]) -> str:
    recall = {c["label"]: c["recall"] for c in metrics["per_class"]}
    return f"{metrics['accuracy']:.3f} / {recall['list']:.2f}"


if __name__ == "__main__":
    main()
