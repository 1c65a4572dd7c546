"""``scrapy train-vision-element``: train the vision element model on captured WCXB pages.

The work happens in :mod:`models.vision_element.data` (backbone features once per page,
cached) and :mod:`models.vision_element.train` (head, out-of-fold predictions, report);
this module maps options onto them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.log import configure_logging

from crawler.commands import use_help_formatter


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False

    def syntax(self) -> str:
        return "--captures FEED --wcxb DIR --cache DIR [--config NAME] [options]"

    def short_desc(self) -> str:
        return "Train the vision element model (screenshot + candidate box -> main content?)"

    def long_desc(self) -> str:
        return (
            "FEED is the feed JSONL of a crawl of WCXB pages whose captures (rendered HTML, "
            "screenshot, element boxes) were stored; their main element is the auto-annotation "
            "of the gold text. The frozen trunk's map of every page is computed once (or taken "
            "from the page-type model's --trunk-cache) into --cache (resumable: --prepare-only --limit N encodes N more pages). The one "
            "split decides train / validation / held-out; --oof writes out-of-fold predictions "
            "of the training domains. --config seed trains the seed's own network instead (one "
            "4-channel pass per candidate, 1 positive + 4 negatives per page) for comparison, on "
            "--device (CUDA when available by default); the shipped head trains on the CPU."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        super().add_options(parser)
        from models.common.splits import FOLDS
        from models.vision_element.train import CONFIGS

        group = parser.add_argument_group(title="Training")
        group.add_argument("--captures", required=True, metavar="FEED", help="capture feed JSONL")
        group.add_argument("--wcxb", required=True, metavar="DIR", help="WCXB folder with the gold")
        group.add_argument("--cache", required=True, metavar="DIR", help="backbone feature cache folder")
        group.add_argument("--config", choices=sorted(CONFIGS), default="shipped", help="default: shipped")
        group.add_argument(
            "--out", metavar="PATH", help="checkpoint (default: PAGESIGHT_VISION_ELEMENT_CHECKPOINT)"
        )
        group.add_argument("--oof", metavar="PATH", help="write out-of-fold predictions here (JSONL)")
        group.add_argument("--report", metavar="PATH", help="write the test report here (JSON)")
        group.add_argument(
            "--trunk-cache", metavar="DIR", help="the page-type model's feature cache (reused trunk maps)"
        )
        group.add_argument("--prepare-only", action="store_true", help="only encode pages into --cache")
        group.add_argument("--limit", type=int, help="encode at most this many new pages")
        group.add_argument(
            "--folds", type=int, default=FOLDS, help=f"out-of-fold folds (default: {FOLDS}; 0: none)"
        )
        group.add_argument("--seed", type=int, default=0, help="default: 0")
        group.add_argument(
            "--device", default="auto", help="--config seed: cpu, cuda or auto (default: auto)"
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if args:
            raise UsageError(f"unexpected arguments: {' '.join(args)}")
        from models.pagetype.model import resolve_device

        try:
            device = resolve_device(opts.device)
        except ValueError as error:
            raise UsageError(str(error)) from error
        configure_logging(self.settings)
        from tqdm import tqdm

        from models.element.data import read_capture_feed, wcxb_pages
        from models.vision_element.data import load_pages, prepare_pages
        from models.vision_element.model import load_backbone
        from models.vision_element.train import (
            CONFIGS,
            train_vision_element,
            vision_versions,
            write_vision_card,
        )
        from pipelines.extraction.vision_element import SHIPPED_CHECKPOINT

        assert self.settings is not None
        tty = sys.stderr.isatty()

        def progress(items: Iterable[Any], **kwargs: Any) -> Iterable[Any]:
            bar: Iterable[Any] = tqdm(items, disable=not tty, **kwargs)
            return bar

        cache = Path(opts.cache)
        pages = wcxb_pages(read_capture_feed(opts.captures), opts.wcxb)
        encoded = prepare_pages(
            pages,
            load_backbone(),
            cache,
            lambda xs: progress(xs, desc="encode pages", unit="page"),
            opts.limit,
            Path(opts.trunk_cache) if opts.trunk_cache else None,
        )
        print(f"Encoded {encoded} new pages into {cache}")
        if opts.prepare_only:
            return
        out = Path(opts.out or self.settings.get("PAGESIGHT_VISION_ELEMENT_CHECKPOINT") or SHIPPED_CHECKPOINT)
        config = CONFIGS[opts.config]
        encoded_pages = load_pages(cache, [p.file_id for p in pages])
        result = train_vision_element(
            encoded_pages,
            pages,
            config,
            folds=opts.folds,
            seed=opts.seed,
            progress=progress,
            checkpoint=out,
            device=device,
        )
        if opts.oof:
            Path(opts.oof).parent.mkdir(parents=True, exist_ok=True)
            with Path(opts.oof).open("w", encoding="utf-8") as lines:
                for record in result.oof:
                    lines.write(json.dumps(record, ensure_ascii=False) + "\n")
        if opts.report:
            Path(opts.report).write_text(json.dumps(result.metrics, indent=1), encoding="utf-8")
        print(result.report())
        if result.checkpoint is not None:
            card = write_vision_card(
                result.checkpoint, "scrapy train-vision-element " + " ".join(sys.argv[1:]), vision_versions()
            )
            print(f"Checkpoint: {result.checkpoint} (card: {card})")
