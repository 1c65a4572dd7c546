"""Re-stamp the vision element model's card with the current denoiser and feature versions,
after re-measuring the checkpoint on WCXB dev's validation pages with the current code (no
retraining)::

    .venv/bin/scrapy capture-dataset --wcxb ../shared/datasets/wcxb-dev --role validation --out CAPTURES
    .venv/bin/python -m models.vision_element.restamp models/checkpoints/vision-element.pt \\
        CAPTURES/capture-feed.jsonl ../shared/datasets/wcxb-dev --cache CACHE [--tolerance 0.009]

The pages are encoded into ``CACHE`` as training encodes them (:mod:`models.vision_element.data`;
a new folder: a cache holds one encoding of each page). The card is rewritten (in
:mod:`models.common.card`'s schema, keeping its command, date and metrics) only when the
validation word F1 of the pick's shown text holds, overall and per page type, within the
tolerance of :mod:`models.common.restamp`; its ``restamped`` section keeps both
measurements. Otherwise it exits 1: retrain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from models.common.card import read_card
from models.common.restamp import command_line, page_progress, restamp_arguments, restamp_card
from models.common.splits import VALIDATION
from models.element.data import read_capture_feed, wcxb_pages
from models.vision_element.checkpoint import load_checkpoint
from models.vision_element.data import load_pages, prepare_pages
from models.vision_element.train import (
    VisionConfig,
    evaluate,
    page_rows,
    predict_page,
    vision_versions,
    with_text,
    write_vision_card,
)

#: The validation metric compared: the mean word F1 of the pick's shown text against the gold.
KEY = "word_f1"


def measure(
    checkpoint: Path,
    captures: Path,
    wcxb: Path,
    cache: Path,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = iter,
) -> dict[str, Any]:
    """The checkpoint's validation report (:func:`~models.vision_element.train.evaluate`)
    on the validation pages of a capture feed, encoded into ``cache`` and measured as
    training measures them."""
    head, trunk, saved = load_checkpoint(checkpoint)
    config = VisionConfig(**saved["config"])
    pages = {
        page.file_id: page
        for page in wcxb_pages(read_capture_feed(captures), wcxb)
        if page.role == VALIDATION
    }
    prepare_pages(list(pages.values()), trunk, cache, progress)
    records = [
        with_text(predict_page(head, page_rows(encoded, config)), pages[encoded.file_id])
        for encoded in load_pages(cache, pages)
    ]
    return evaluate(records)


def main(argv: list[str] | None = None) -> int:
    parser = restamp_arguments(__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, required=True, help="folder for the encoded pages")
    args = parser.parse_args(argv)
    old = read_card(args.checkpoint)
    measured = measure(args.checkpoint, args.captures, args.wcxb, args.cache, page_progress("encode pages"))

    def write_card(restamped: dict[str, Any]) -> Path:
        return write_vision_card(
            args.checkpoint, old["command"], vision_versions(), old.get("date"), restamped
        )

    command = command_line("models.vision_element.restamp", argv)
    return restamp_card(args.checkpoint, measured, KEY, args.tolerance, command, write_card)


if __name__ == "__main__":
    raise SystemExit(main())
