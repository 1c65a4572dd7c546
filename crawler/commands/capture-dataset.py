"""scrapy capture-dataset: render labelled pages through the crawler into a screenshot
dataset (manifest.jsonl + PNGs) for `scrapy train-classifier`."""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from pathlib import Path
from typing import ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from crawler.dataset import (
    LabeledPage,
    abort_external_requests,
    gold_pages,
    serve_html_folder,
    wcxb_pages,
    write_manifest,
)


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = True
    default_settings: ClassVar[dict] = {"LOG_LEVEL": "INFO"}

    def syntax(self) -> str:
        return "(--wcxb DIR | --gold FILE | --demo) --out DIR [options]"

    def short_desc(self) -> str:
        return "Capture labelled pages through the crawler into a screenshot dataset"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        source = parser.add_argument_group("source (one or more)")
        source.add_argument("--wcxb", metavar="DIR", help="WCXB-style folder (html/, ground-truth/)")
        source.add_argument("--gold", metavar="FILE", help="gold JSONL whose pages have page_type")
        source.add_argument("--demo", action="store_true", help="the bundled demo web")
        parser.add_argument(
            "--demo-seeds",
            default="2026",
            metavar="S,S",
            help="demo web seeds, comma-separated (default: 2026)",
        )
        parser.add_argument("--limit", type=int, default=0, help="at most N WCXB pages")
        parser.add_argument("--out", required=True, metavar="DIR", help="dataset folder")

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        if not (opts.wcxb or opts.gold or opts.demo):
            raise UsageError("give at least one source: --wcxb DIR, --gold FILE or --demo")
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
        out = Path(opts.out)
        out.mkdir(parents=True, exist_ok=True)
        with ExitStack() as stack:
            pages: list[LabeledPage] = []
            if opts.wcxb:
                root = Path(opts.wcxb)
                if not (root / "ground-truth").is_dir():
                    raise UsageError(f"{root}: no ground-truth/ (not a WCXB-style folder)")
                base_url = stack.enter_context(serve_html_folder(root / "html"))
                found = wcxb_pages(root, base_url)
                pages += found[: opts.limit] if opts.limit else found
            if opts.gold:
                pages += gold_pages(Path(opts.gold))
            if opts.demo:
                from crawler.demo import DemoWeb

                for seed in (int(s) for s in opts.demo_seeds.split(",") if s.strip()):
                    demo = stack.enter_context(DemoWeb(seed=seed))
                    gold = out / f"demo-{seed}-gold.jsonl"
                    demo.write_gold(gold)
                    pages += gold_pages(gold, source=f"demo-{seed}")
            urls_file = out / "urls.txt"
            urls_file.write_text("".join(f"{p.url}\n" for p in pages), encoding="utf-8")
            feed = out / "capture-feed.jsonl"
            self.settings.set(
                "FEEDS",
                {str(feed): {"format": "jsonlines", "encoding": "utf8", "overwrite": True}},
                priority="cmdline",
            )
            self.crawler_process.crawl("news", urls_file=str(urls_file), follow="false")
            self.crawler_process.start()
            outcomes = write_manifest(pages, feed, out)
        print(
            f"{out / 'manifest.jsonl'}: {outcomes['ok']} screenshots of {len(pages)} pages "
            f"(skipped {outcomes['skipped']}, errors {outcomes['error']}, missing {outcomes['missing']})"
        )
