"""scrapy capture-dataset: render labelled pages through the crawler into a screenshot
dataset (manifest.jsonl + PNGs) for `scrapy train-classifier`."""

from __future__ import annotations

import argparse
import asyncio
import logging
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from twisted.internet import defer
from twisted.python.failure import Failure

from crawler.commands import use_help_formatter
from models.common.splits import ROLES, UnknownDomain

if TYPE_CHECKING:
    from crawler.dataset import LabeledPage

logger = logging.getLogger(__name__)


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = True
    default_settings: ClassVar[dict] = {"LOG_LEVEL": "INFO"}

    def syntax(self) -> str:
        return "(--wcxb DIR | --gold FILE | --styled DIR | --demo) --out DIR [options]"

    def short_desc(self) -> str:
        return "Capture labelled pages through the crawler into a screenshot dataset"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        super().add_options(parser)
        source = parser.add_argument_group("source (one or more)")
        source.add_argument("--wcxb", metavar="DIR", help="WCXB-style folder (html/, ground-truth/)")
        source.add_argument("--gold", metavar="FILE", help="gold JSONL whose pages have page_type")
        source.add_argument(
            "--styled", metavar="DIR", help="generated styled sites (scrapy build-styled-sites --out)"
        )
        source.add_argument("--demo", action="store_true", help="the bundled demo web")
        parser.add_argument(
            "--demo-seeds",
            default="2026",
            metavar="S[:ROLE],...",
            help="demo web seeds, comma-separated, each with an optional split role for "
            "training, e.g. 11:train,12:train,13:validation (default: 2026)",
        )
        parser.add_argument("--limit", type=int, default=0, help="at most N WCXB pages")
        parser.add_argument(
            "--role",
            choices=ROLES,
            help="only the WCXB pages whose domain the one split (models/splits) puts in ROLE",
        )
        parser.add_argument("--out", required=True, metavar="DIR", help="dataset folder")
        parser.add_argument(
            "--retries",
            type=int,
            default=1,
            metavar="N",
            help="capture pages that failed again, up to N more times (default: 1)",
        )

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        from crawler.dataset import abort_external_requests, demo_seed_roles

        super().process_options(args, opts)
        if not (opts.wcxb or opts.gold or opts.styled or opts.demo):
            raise UsageError("give at least one source: --wcxb DIR, --gold FILE, --styled DIR or --demo")
        try:
            self.demo_seeds = demo_seed_roles(opts.demo_seeds)
        except ValueError as exc:
            raise UsageError(f"--demo-seeds: {exc}") from exc
        out = Path(opts.out)
        self.settings.setdict(
            {
                "ITEM_PIPELINES": {"pipelines.store.StorePipeline": 100},
                "PAGESIGHT_STORE_URI": str(out / "store"),
                "ROBOTSTXT_OBEY": False,
                "AUTOTHROTTLE_ENABLED": False,
                "PLAYWRIGHT_ABORT_REQUEST": abort_external_requests,
                "PAGESIGHT_NETWORK_IDLE_TIMEOUT": 1.0,
            },
            priority="cmdline",
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        from crawler.dataset import (
            gold_pages,
            serve_html_folder,
            serve_static_folder,
            styled_pages,
            wcxb_pages,
            write_manifest,
        )
        from crawler.styled import PAGES_NAME

        out = Path(opts.out)
        out.mkdir(parents=True, exist_ok=True)
        with ExitStack() as stack:
            pages: list[LabeledPage] = []
            if opts.wcxb:
                root = Path(opts.wcxb)
                if not (root / "ground-truth").is_dir():
                    raise UsageError(f"{root}: no ground-truth/ (not a WCXB-style folder)")
                base_url = stack.enter_context(serve_html_folder(root / "html"))
                try:
                    found = wcxb_pages(root, base_url, opts.role)
                except UnknownDomain as exc:
                    raise UsageError(f"--role: {root} is not WCXB dev ({exc} is in no split role)") from None
                pages += found[: opts.limit] if opts.limit else found
            if opts.gold:
                pages += gold_pages(Path(opts.gold))
            if opts.styled:
                styled = Path(opts.styled)
                if not (styled / PAGES_NAME).is_file():
                    raise UsageError(f"{styled}: no {PAGES_NAME} (run scrapy build-styled-sites)")
                base_url = stack.enter_context(serve_static_folder(styled / "sites"))
                pages += styled_pages(styled, base_url)
            if opts.demo:
                from crawler.demo import DemoWeb

                for seed, role in self.demo_seeds:
                    demo = stack.enter_context(DemoWeb(seed=seed))
                    gold = out / f"demo-{seed}-gold.jsonl"
                    demo.write_gold(gold)
                    pages += gold_pages(gold, source=f"demo-{seed}", role=role)
            feeds = self._capture(pages, out, opts.retries)
            outcomes = write_manifest(pages, feeds, out)
        print(
            f"{out / 'manifest.jsonl'}: {outcomes['ok']} screenshots of {len(pages)} pages "
            f"(skipped {outcomes['skipped']}, errors {outcomes['error']}, missing {outcomes['missing']})"
        )

    def _capture(self, pages: list[LabeledPage], out: Path, retries: int) -> list[Path]:
        """Crawl the pages, then the failed ones again (up to ``retries`` times), while
        their servers stay up; returns the feeds written, first to last."""
        from crawler.dataset import failed_pages

        feeds: list[Path] = []

        async def crawl_all() -> None:
            pending = pages
            for attempt in range(retries + 1):
                if not pending:
                    break
                suffix = f"-retry{attempt}" if attempt else ""
                urls_file = out / f"urls{suffix}.txt"
                urls_file.write_text("".join(f"{p.url}\n" for p in pending), encoding="utf-8")
                feed = out / f"capture-feed{suffix}.jsonl"
                self.settings.set(
                    "FEEDS",
                    {str(feed): {"format": "jsonlines", "encoding": "utf8", "overwrite": True}},
                    priority="cmdline",
                )
                feeds.append(feed)
                await self.crawler_process.crawl("news", urls_file=str(urls_file), follow="false")
                pending = failed_pages(pending, feeds)
                if pending and attempt < retries:
                    logger.info("Capturing %d failed pages again", len(pending))

        from twisted.internet import reactor

        errors: list[Failure] = []

        def start() -> None:
            done = defer.Deferred.fromFuture(asyncio.ensure_future(crawl_all()))
            done.addErrback(errors.append)
            done.addBoth(lambda _: reactor.stop())

        reactor.callWhenRunning(start)
        self.crawler_process.start(stop_after_crawl=False)
        if errors:
            errors[0].raiseException()
        return feeds
