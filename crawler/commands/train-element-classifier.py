"""``scrapy train-element-classifier``: train the element classifier on captured pages.

The work happens in :mod:`models.element.data` (rows) and :mod:`models.element.train`
(fit, measure, out-of-fold predictions, the card); this module maps options onto them.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.log import configure_logging

from crawler.commands import use_help_formatter
from models.common.splits import FOLDS
from pipelines.extraction.element_classifier import SHIPPED_CHECKPOINT


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False

    def syntax(self) -> str:
        return "--captures FEED (--wcxb DIR | --marks LABELS.jsonl) [--setting faithful|shipped] [options]"

    def short_desc(self) -> str:
        return "Train the element classifier (gradient boosting over rendered elements)"

    def long_desc(self) -> str:
        return (
            "FEED is the feed JSONL of a crawl whose captures (rendered HTML + element boxes) "
            "were stored. With --wcxb, the feed's pages are WCXB pages: their main element is "
            "the auto-annotation of the gold text, the one split decides train / validation / "
            "held-out, and --oof writes out-of-fold predictions of the training domains. "
            "--marks (a gold JSONL with `path`, as `scrapy label` writes) adds a person's marks, "
            "which outrank the auto-annotation of the same page."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        super().add_options(parser)
        from models.element.train import SETTINGS

        group = parser.add_argument_group(title="Training")
        group.add_argument(
            "--captures", required=True, metavar="FEED", help="crawl feed JSONL with stored captures"
        )
        group.add_argument("--wcxb", metavar="DIR", help="WCXB folder with the gold of the captured pages")
        group.add_argument(
            "--marks", metavar="LABELS", help="gold JSONL with element paths (a person's marks)"
        )
        group.add_argument("--setting", choices=sorted(SETTINGS), default="shipped", help="default: shipped")
        group.add_argument(
            "--out", metavar="PATH", help="checkpoint (default: PAGESIGHT_ELEMENT_CLASSIFIER_CHECKPOINT)"
        )
        group.add_argument("--oof", metavar="PATH", help="write out-of-fold predictions here (JSONL)")
        group.add_argument(
            "--cache",
            metavar="PATH",
            help="feature rows cache (.npz) of auto-annotated pages: reused by URL, extended, rewritten",
        )
        group.add_argument(
            "--negatives", type=int, default=200, help="random negatives per page (default: 200)"
        )
        group.add_argument("--seed", type=int, default=0, help="default: 0")
        group.add_argument(
            "--folds",
            type=int,
            default=FOLDS,
            help=f"out-of-fold predictions over the split's folds (default: {FOLDS}; 0: none)",
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if args:
            raise UsageError(f"unexpected arguments: {' '.join(args)}")
        if not (opts.wcxb or opts.marks):
            raise UsageError("give --wcxb DIR (auto-annotated WCXB captures) or --marks LABELS.jsonl")
        configure_logging(self.settings)
        from tqdm import tqdm

        from models.element.data import (
            AUTO,
            apply_marks,
            collect_rows,
            labeled_pages,
            load_rows,
            read_capture_feed,
            read_marks,
            save_rows,
            wcxb_pages,
        )
        from models.element.train import (
            TrainConfig,
            element_versions,
            train_element_classifier,
            write_element_card,
        )
        from pipelines.extraction.element_classifier import KNOWN_FEATURES

        assert self.settings is not None
        viewport_height = self.settings.getint("PAGESIGHT_VIEWPORT_HEIGHT")
        out = Path(
            opts.out or self.settings.get("PAGESIGHT_ELEMENT_CLASSIFIER_CHECKPOINT") or SHIPPED_CHECKPOINT
        )
        features = list(KNOWN_FEATURES)
        tty = sys.stderr.isatty()
        try:
            captures = read_capture_feed(opts.captures)
            marks = read_marks(opts.marks) if opts.marks else {}
            if opts.wcxb:
                pages = apply_marks(wcxb_pages(captures, opts.wcxb), marks)
            else:
                pages = labeled_pages(captures, marks)
            cached = {}
            if opts.cache and Path(opts.cache).is_file():
                cached = {
                    r.page.capture.url: r for r in load_rows(opts.cache, features, viewport_height) or []
                }
            reuse = [cached[p.capture.url] for p in pages if p.source == AUTO and p.capture.url in cached]
            todo = [p for p in pages if p.source != AUTO or p.capture.url not in cached]
            collected = reuse + collect_rows(
                todo,
                features,
                viewport_height,
                lambda it: tqdm(it, desc="features", unit="page", disable=not tty),
            )
            if opts.cache:
                save_rows(
                    opts.cache, [r for r in collected if r.page.source == AUTO], features, viewport_height
                )
            config = TrainConfig.from_setting(
                opts.setting, features, opts.negatives, opts.seed, viewport_height
            )
            result = train_element_classifier(
                collected,
                config,
                folds=opts.folds if opts.wcxb else 0,
                meta={
                    "args": {
                        k: v
                        for k, v in vars(opts).items()
                        if k in ("captures", "wcxb", "marks", "setting", "negatives", "seed")
                    },
                    "trained_at": datetime.now(UTC).isoformat(timespec="seconds"),
                },
                progress=lambda it: tqdm(it, desc="folds", unit="fold", disable=not tty),
            )
        except (ValueError, OSError) as exc:
            raise UsageError(str(exc), print_help=False) from None
        result.model.save(out)
        # scrapy popped its name from sys.argv
        command = "scrapy train-element-classifier " + " ".join(sys.argv[1:])
        card = write_element_card(out, result.model, command, element_versions())
        if opts.oof:
            Path(opts.oof).parent.mkdir(parents=True, exist_ok=True)
            with Path(opts.oof).open("w", encoding="utf-8") as lines:
                lines.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in result.oof)
        print(f"{len(collected)} pages with a main element; setting {opts.setting}")
        print(result.report())
        print(f"Checkpoint: {out} (card: {card})")
