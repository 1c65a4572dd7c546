"""``scrapy label FEED_OR_URLS --out LABELS.jsonl``: mark the main content of captured
pages in a local web app (:mod:`crawler.labeling`)."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from contextlib import ExitStack, suppress
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from crawler.commands import use_help_formatter


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = True

    def syntax(self) -> str:
        return "FEED_OR_URLS --out LABELS.jsonl [--gold GOLD] [--model PATH] [--port N]"

    def short_desc(self) -> str:
        return "Label the main element of captured pages in the browser (gold JSONL with paths)"

    def long_desc(self) -> str:
        return (
            "FEED_OR_URLS is the feed JSONL of a crawl whose captures were stored, or URLs / "
            "HTML files (comma-separated), which are first rendered through the crawl's capture "
            "into LABELS.captures/ (reused when reopened). Serves the app on 127.0.0.1 (a random token in its URL) "
            "showing each page's stored rendered HTML (no scripts run, fixed overlays hidden) "
            "beside its screenshot: click an element to select it (hovering only previews); "
            "u/d widen/narrow; m mark it as the main content; a/l mark the page article/list; "
            "s skip; c clear the page's labels; n/p next/previous; t train the element "
            "classifier on the marks (plus the auto-annotation of --gold pages nobody marked) "
            "into --model; r highlight what the model picks. Each mark is written to "
            "LABELS.jsonl at once (url, text, path, and page_type only where a person set "
            "it); reopening resumes."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        super().add_options(parser)
        parser.add_argument("--out", required=True, metavar="LABELS", help="gold JSONL the marks go to")
        parser.add_argument(
            "--gold", metavar="GOLD", help="gold (any format) whose texts auto-annotate unmarked pages"
        )
        parser.add_argument(
            "--model", metavar="PATH", help="model Train writes and Predict reads (default: LABELS.model.npz)"
        )
        parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free one)")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give one FEED (a .jsonl) or comma-separated URLs / HTML files")
        from crawler.labeling.server import serving
        from crawler.labeling.session import LabelError, LabelSession
        from crawler.snapshot import capture_only, crawl_pages, page_urls
        from models.element.data import read_capture_feed
        from pipelines.evaluation.gold import GoldFormatError, load_gold
        from pipelines.extraction.element_classifier import SHIPPED_CHECKPOINT

        assert self.settings is not None and self.crawler_process is not None
        labels = Path(opts.out)
        source = args[0]
        with ExitStack() as stack:
            if source.endswith((".jsonl", ".jl")) and Path(source).is_file():
                feed = Path(source)
            else:
                feed = capture_only(self.settings, labels.with_name(labels.stem + ".captures"))
            if not feed.is_file():
                try:
                    urls = page_urls([s.strip() for s in source.split(",") if s.strip()], stack)
                except ValueError as error:
                    raise UsageError(str(error), print_help=False) from None
                crawl_pages(self.crawler_process, urls)
        try:
            gold = load_gold(opts.gold) if opts.gold else None
            session = LabelSession(
                read_capture_feed(feed) if feed.is_file() else [],
                labels,
                Path(opts.model) if opts.model else labels.with_name(labels.stem + ".model.npz"),
                Path(self.settings.get("PAGESIGHT_ELEMENT_CLASSIFIER_CHECKPOINT") or SHIPPED_CHECKPOINT),
                self.settings.getint("PAGESIGHT_VIEWPORT_HEIGHT"),
                gold,
            )
        except (LabelError, GoldFormatError, ValueError) as error:
            raise UsageError(f"{error} (captures: {feed})", print_help=False) from None
        # The crawl's shutdown handlers outlive its reactor: Ctrl-C and SIGTERM stop the server.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with serving(session, opts.port) as server:
            print(f"Labeling {len(session.pages)} pages into {labels}; open {server.url}", flush=True)
            print("Ctrl-C stops the server (every mark is already written).", file=sys.stderr, flush=True)
            with suppress(KeyboardInterrupt):
                threading.Event().wait()
