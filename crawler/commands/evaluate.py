"""``scrapy evaluate FEED.jsonl [FEED.jsonl …] --gold GOLD``: score a finished feed (or
the feeds of a distributed crawl's workers, together) against gold and write the report (the logic lives in ``pipelines.evaluation``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.log import configure_logging

from crawler.commands import use_help_formatter
from pipelines.extraction import available_extractors


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False

    def syntax(self) -> str:
        return "FEED.jsonl [FEED.jsonl ...] --gold GOLD [--out DIR] [--compare NAME,NAME] [--correct 30 --complete 10]"

    def short_desc(self) -> str:
        return "Score a finished feed against gold and write report.json/.md/.html"

    def long_desc(self) -> str:
        return (
            "Score a finished feed against gold; several feeds (the workers' of one distributed "
            "crawl) are scored together, a URL in more than one by its first line. GOLD is our gold JSONL, a WCXB-style folder "
            "(ground-truth/*.json) or a ScrapingHub-style ground-truth.json. Pages in gold "
            "but missing from the feed count as failures. --compare runs registered extractors "
            "on the same stored captures (rendered HTML, element boxes, screenshot; the page "
            "type from the feed) and tabulates them beside the feed's."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        super().add_options(parser)
        parser.add_argument("--gold", required=True, metavar="GOLD", help="gold file or folder")
        parser.add_argument("--out", metavar="DIR", help="report folder (default: FEED's name + -report)")
        parser.add_argument(
            "--compare",
            default="",
            metavar="NAMES",
            help=f"comma-separated registered extractors: {', '.join(available_extractors())}",
        )
        parser.add_argument(
            "--correct",
            type=int,
            metavar="BITS",
            help="distance below which a page is correctly extracted (default: PAGESIGHT_EVAL_CORRECT_DISTANCE)",
        )
        parser.add_argument(
            "--complete",
            type=int,
            metavar="BITS",
            help="distance below which a page is completely extracted (default: PAGESIGHT_EVAL_COMPLETE_DISTANCE)",
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if not args:
            raise UsageError(
                "give one feed file or more: scrapy evaluate FEED.jsonl [FEED.jsonl ...] --gold GOLD"
            )
        from pipelines.artifacts import UnsupportedStoreError
        from pipelines.evaluation.feed import FeedFormatError, evaluate_feed
        from pipelines.evaluation.gold import GoldFormatError, load_gold
        from pipelines.evaluation.report import page_kinds_markdown, write_report
        from pipelines.evaluation.scoring import ScoringConfig
        from pipelines.extraction import build_extractor
        from pipelines.store import ArtifactStore

        configure_logging(self.settings)
        feeds = [Path(arg) for arg in args]
        out = Path(opts.out) if opts.out else feeds[0].with_name(f"{feeds[0].stem}-report")
        compare = [name.strip() for name in opts.compare.split(",") if name.strip()]
        try:
            config = ScoringConfig.from_settings(
                self.settings, correct_distance=opts.correct, complete_distance=opts.complete
            )
            # an extractor that loads a checkpoint fails here, with one line, when it is broken
            extractors = [build_extractor(name, self.settings) for name in compare]
        except (ValueError, OSError) as exc:  # LabelMappingError and ExtractorUnavailable too
            raise UsageError(str(exc), print_help=False) from None
        try:
            report = evaluate_feed(feeds, load_gold(opts.gold), config, extractors, ArtifactStore.read)
        except (GoldFormatError, FeedFormatError, UnsupportedStoreError) as exc:
            raise UsageError(str(exc), print_help=False) from None
        paths = write_report(report, out)
        for name, view in (report.get("systems") or {report["system"]: report}).items():
            summary = view["summary"]
            print(
                f"{name}: {summary['pages']} pages, {summary['failures']} failed; "
                f"word F1 {_rate(summary['word_f1'])}, "
                f"paper P {_rate(summary['hamming_precision'])} "
                f"R {_rate(summary['hamming_recall'])}; unrelated pairs passing 'correct': "
                f"same site {_rate(summary['unrelated_correct_rate'])}, "
                f"any site {_rate(summary['unrelated_any_site_correct_rate'])}"
            )
        if report.get("page_kinds"):
            print(f"Page kinds: {page_kinds_markdown(report['page_kinds'])}")
        print(f"Report: {paths.html}  ({paths.json}, {paths.markdown})")


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"
