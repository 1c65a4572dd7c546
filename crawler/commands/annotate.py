"""``scrapy annotate DATA --gold WCXB --out DIR``: label every page's text leaves, main
element and elements from its gold text (:mod:`models.common.annotation`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.log import configure_logging

from crawler.commands import use_help_formatter


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False

    def syntax(self) -> str:
        return "DATA --gold WCXB --out DIR [--limit N] [--min-run 3]"

    def short_desc(self) -> str:
        return "Label text leaves and the main element of gold pages (annotations.jsonl)"

    def long_desc(self) -> str:
        from models.common.annotation import ANNOTATIONS_FILE

        return (
            "DATA is a WCXB folder (its raw HTML) or a capture feed of the WCXB pages (a feed "
            "JSONL or a folder with one; its stored rendered HTML). GOLD is the WCXB folder. "
            f"Writes DIR/{ANNOTATIONS_FILE} (one line per page, see docs/evaluation.md, 'Annotation') and "
            "DIR/summary.json (the annotation's word-F1 ceiling per page type)."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        from models.common.annotation import MIN_RUN

        super().add_options(parser)
        parser.add_argument("--gold", metavar="WCXB", help="WCXB folder with the gold (default: DATA)")
        parser.add_argument("--out", required=True, metavar="DIR", help="output folder")
        parser.add_argument("--limit", type=int, default=0, metavar="N", help="first N pages only")
        parser.add_argument(
            "--min-run",
            type=int,
            default=MIN_RUN,
            metavar="TOKENS",
            help=f"shortest aligned run that counts (default: {MIN_RUN})",
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give one DATA folder or feed: scrapy annotate DATA --gold WCXB --out DIR")
        from models.common.annotation import ANNOTATIONS_FILE, write_annotations
        from models.common.wcxb_pages import read_gold_pages
        from pipelines.evaluation.wcxb import WcxbFormatError

        configure_logging(self.settings)
        try:
            pages = read_gold_pages(Path(args[0]), Path(opts.gold) if opts.gold else None, opts.limit)
            summary = write_annotations(pages, Path(opts.out), opts.min_run, progress=sys.stderr.isatty())
        except (ValueError, WcxbFormatError, OSError) as exc:
            raise UsageError(str(exc), print_help=False) from None
        for group, row in summary["ceiling"].items():
            print(
                f"{group}: {row['pages']} pages, leaf F1 {row['leaf_f1']:.3f}, main F1 {row['main_f1']:.3f}"
            )
        print(f"Annotations: {Path(opts.out) / ANNOTATIONS_FILE}")
