"""Re-stamping a stale card from captures: compare a checkpoint's recorded validation word
F1s with those the current code measures, and what a re-stamped card keeps of both.

The element classifier (:mod:`models.element.restamp`) and the vision element model
(:mod:`models.vision_element.restamp`) are measured on WCXB dev's validation pages captured
again (``scrapy capture-dataset --role validation``): a new render, so the pages, their
boxes and screenshots may differ a little from those the card was measured on.

Tolerance: a validation word F1 over the whole validation set (179 pages for the element
classifier, 186 for the vision model) may move by :data:`TOLERANCE`, 0.009, the
seed-to-seed spread of those models' validation word F1 (benchmarks/HISTORY.md): the
element classifier's previous shipped setting over four seeds spread 0.009, the shipped
one (with the kept share) 0.851 / 0.859 / 0.843 / 0.844 (standard deviation 0.007);
the vision head's variants were "within the seed-to-seed spread (about +-0.005)", and two
seeds of one differ by 0.009 (0.759 / 0.768). A page type's mean over ``n`` of ``N`` pages
is noisier by sqrt(N / n) (the standard error of a mean), so its tolerance is
``TOLERANCE * sqrt(N / n)``: 0.043 for 8 forum pages of 179, 0.013 for 93 articles of 186.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from models.common.card import read_card
from models.common.splits import VALIDATION

#: The largest change of the validation word F1 over all validation pages taken as noise.
TOLERANCE = 0.009
#: The group every summary has beside its page types.
OVERALL = "overall"


@dataclass(frozen=True)
class Comparison:
    """One group's (all pages, or a page type's) recorded and measured word F1."""

    group: str
    recorded_pages: int
    measured_pages: int
    recorded: float
    measured: float
    tolerance: float

    @property
    def change(self) -> float:
        return self.measured - self.recorded

    @property
    def held(self) -> bool:
        return abs(self.change) <= self.tolerance

    def line(self) -> str:
        return (
            f"{self.group:<14} pages {self.recorded_pages:>3} -> {self.measured_pages:>3}  "
            f"recorded {self.recorded:.4f}  measured {self.measured:.4f}  {self.change:+.4f}  "
            f"(tolerance {self.tolerance:.4f}{'' if self.held else ', beyond'})"
        )


def compare(
    recorded: dict[str, Any], measured: dict[str, Any], key: str, tolerance: float = TOLERANCE
) -> list[Comparison]:
    """Per group of the recorded summary (pages overall and per page type), its ``key``
    word F1 against the measured one (0 for a group the measurement lacks), with the
    group's tolerance: ``tolerance`` for all pages, scaled by sqrt(N / n) for n of them."""
    total = recorded[OVERALL]["pages"]
    comparisons = []
    for group, row in recorded.items():
        found = measured.get(group, {})
        comparisons.append(
            Comparison(
                group,
                row["pages"],
                found.get("pages", 0),
                float(row[key]),
                float(found.get(key, 0.0)),
                round(tolerance * math.sqrt(total / row["pages"]), 4),
            )
        )
    return comparisons


def restamped_section(command: str, key: str, comparisons: list[Comparison]) -> dict[str, Any]:
    """The card's ``restamped`` section: when, how, and per group both measurements."""
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": command,
        "data": "WCXB dev's validation pages captured again "
        "(scrapy capture-dataset --wcxb WCXB_DEV --role validation)",
        "validation_" + key: {
            c.group: {
                "pages": [c.recorded_pages, c.measured_pages],
                "recorded": c.recorded,
                "measured": c.measured,
                "tolerance": c.tolerance,
            }
            for c in comparisons
        },
    }


def restamp_arguments(description: str) -> argparse.ArgumentParser:
    """The arguments every re-stamp takes: the checkpoint, the capture feed of the
    validation pages, the WCXB dev folder and ``--tolerance``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("captures", type=Path, help="capture feed JSONL of WCXB dev's validation pages")
    parser.add_argument("wcxb", type=Path, help="the WCXB dev folder")
    parser.add_argument("--tolerance", type=float, default=TOLERANCE, help=f"default: {TOLERANCE}")
    return parser


def page_progress(description: str) -> Callable[[Iterable[Any]], Iterable[Any]]:
    """A progress bar over pages on a terminal, none in a log."""
    from tqdm import tqdm

    return lambda pages: tqdm(pages, desc=description, unit="page", disable=not sys.stderr.isatty())


def restamp_card(
    checkpoint: Path,
    measured: dict[str, Any],
    key: str,
    tolerance: float,
    command: str,
    write_card: Callable[[dict[str, Any]], Path],
) -> int:
    """Compare ``measured`` with the card's validation summary and print each group's
    line. When every group held, ``write_card`` writes the card with the ``restamped``
    section it is given and the card's path and versions are printed: exit status 0;
    else the card stays and 1 (retrain)."""
    comparisons = compare(read_card(checkpoint)["metrics"][VALIDATION], measured, key, tolerance)
    print("\n".join(c.line() for c in comparisons))
    if not all(c.held for c in comparisons):
        print(f"{checkpoint}: validation word F1 moved beyond the tolerance: retrain it")
        return 1
    path = write_card(restamped_section(command, key, comparisons))
    print(json.dumps({"card": str(path), "versions": read_card(checkpoint)["versions"]}))
    return 0


def command_line(module: str, argv: Sequence[str] | None) -> str:
    """How ``python -m module`` was run (``argv``: the arguments given, else the process's)."""
    return f"python -m {module} " + " ".join(sys.argv[1:] if argv is None else argv)
