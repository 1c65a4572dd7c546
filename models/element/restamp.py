"""Re-stamp the element classifier's card with the current denoiser and feature versions,
after re-measuring the checkpoint on WCXB dev's validation pages with the current code (no
retraining)::

    .venv/bin/scrapy capture-dataset --wcxb ../shared/datasets/wcxb-dev --role validation --out CAPTURES
    .venv/bin/python -m models.element.restamp models/checkpoints/element-classifier.npz \\
        CAPTURES/capture-feed.jsonl ../shared/datasets/wcxb-dev [--tolerance 0.009]

The card is rewritten (in :mod:`models.common.card`'s schema, keeping its command, date
and metrics) only when the validation word F1 of the pick holds, overall and per page
type, within the tolerance of :mod:`models.common.restamp`; its ``restamped`` section
keeps both measurements. Otherwise it exits 1: retrain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from models.common.card import read_card
from models.common.restamp import command_line, page_progress, restamp_arguments, restamp_card
from models.common.splits import VALIDATION
from models.element.data import collect_rows, read_capture_feed, wcxb_pages
from models.element.model import TreeEnsemble
from models.element.train import (
    TrainConfig,
    element_versions,
    prediction_record,
    summarize,
    write_element_card,
)
from pipelines.extraction.element_classifier import KNOWN_FEATURES

#: The validation metric compared: the mean word F1 of the pick's text against the gold.
KEY = "f1"


def measure(
    checkpoint: Path, captures: Path, wcxb: Path, progress: Callable[[Iterable[Any]], Iterable[Any]] = iter
) -> dict[str, Any]:
    """The checkpoint's validation summary (:func:`~models.element.train.summarize`) on the
    validation pages of a capture feed, measured as training measures it."""
    model = TreeEnsemble.load(checkpoint, KNOWN_FEATURES)
    features = list(KNOWN_FEATURES)
    config = TrainConfig(**model.meta["config"], feature_names=features)
    pages = [page for page in wcxb_pages(read_capture_feed(captures), wcxb) if page.role == VALIDATION]
    rows = collect_rows(pages, features, config.viewport_height, progress)
    return summarize([prediction_record(model, page, config, with_f1=True) for page in rows])


def main(argv: list[str] | None = None) -> int:
    args = restamp_arguments(__doc__.split("\n\n")[0]).parse_args(argv)
    old = read_card(args.checkpoint)
    measured = measure(args.checkpoint, args.captures, args.wcxb, page_progress("features"))

    def write_card(restamped: dict[str, Any]) -> Path:
        model = TreeEnsemble.load(args.checkpoint, KNOWN_FEATURES)
        date = old.get("date") or model.meta["trained_at"]
        return write_element_card(args.checkpoint, model, old["command"], element_versions(), date, restamped)

    command = command_line("models.element.restamp", argv)
    return restamp_card(args.checkpoint, measured, KEY, args.tolerance, command, write_card)


if __name__ == "__main__":
    raise SystemExit(main())
