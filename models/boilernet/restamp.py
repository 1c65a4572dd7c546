"""Re-stamp a BoilerNet card with the current denoiser and feature versions, after
re-measuring the checkpoint's validation scores with the current code (no retraining)::

    .venv/bin/python -m models.boilernet.restamp models/checkpoints/boilernet.pt \\
        ../shared/datasets/wcxb-dev [--tolerance 0.005] [--date DATE]

The card is rewritten (in :mod:`models.common.card`'s schema, keeping its command, date,
benchmark and out-of-fold sections) only when every recorded validation word F1 (pages
overall and per WCXB type, content leaves) holds within ``--tolerance``; its
``restamped`` section keeps both measurements. Otherwise it exits 1: retrain.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from models.boilernet.card import boilernet_versions, write_boilernet_card
from models.boilernet.train import measure
from models.common.card import read_card

#: The largest change of a validation word F1 taken as noise: 0.005 is half a point;
#: a retrained BoilerNet's seeds differ by about 0.01 on WCXB dev's validation pages.
TOLERANCE = 0.005


def word_f1s(scores: dict[str, Any]) -> dict[str, float]:
    """The word F1s a re-stamp compares: content leaves, and pages overall and per type."""
    f1s = {"leaf content": float(scores["leaf"]["content"]["f1"])}
    f1s.update({f"pages {group}": float(row["f1"]) for group, row in scores["pages"].items()})
    return f1s


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("data", type=Path, help="the WCXB dev folder")
    parser.add_argument("--tolerance", type=float, default=TOLERANCE, help=f"default: {TOLERANCE}")
    parser.add_argument("--date", help="when it was trained, for a card that does not say")
    args = parser.parse_args(argv)
    old = read_card(args.checkpoint)
    recorded = word_f1s(old["metrics"]["validation"])
    measured = word_f1s(measure(args.checkpoint, args.data, progress=True))
    drift = {name: measured.get(name, float("nan")) - value for name, value in recorded.items()}
    for name, change in drift.items():
        print(
            f"{name:<24} recorded {recorded[name]:.4f}  measured {measured.get(name, float('nan')):.4f}  {change:+.4f}"
        )
    if not all(abs(change) <= args.tolerance for change in drift.values()):
        print(f"{args.checkpoint}: validation scores moved by more than {args.tolerance}: retrain it")
        return 1
    restamped = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python -m models.boilernet.restamp " + " ".join(sys.argv[1:] if argv is None else argv),
        "tolerance": args.tolerance,
        "validation_word_f1": {
            name: {"recorded": recorded[name], "measured": measured[name]} for name in recorded
        },
    }
    path = write_boilernet_card(
        args.checkpoint,
        old["command"],
        boilernet_versions(),
        old.get("date") or args.date,
        old.get("benchmark"),
        old.get("out_of_fold"),
        restamped,
    )
    print(json.dumps({"card": str(path), "versions": read_card(args.checkpoint)["versions"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
