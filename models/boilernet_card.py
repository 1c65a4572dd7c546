"""Rewrite a BoilerNet checkpoint's card (``NAME.card.json``) with its benchmark and
out-of-fold sections, written by code rather than by hand::

    .venv/bin/python -m models.boilernet_card CHECKPOINT --command "scrapy train-boilernet ..." \\
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

from models.boilernet import benchmark_section, write_boilernet_card


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
    path = write_boilernet_card(args.checkpoint, args.command, benchmark, out_of_fold)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
