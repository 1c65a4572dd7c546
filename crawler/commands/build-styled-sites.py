"""scrapy build-styled-sites: generate styled static sites (real blog generators and
their bundled themes) filled with WCXB dev training text, for `scrapy capture-dataset
--styled`."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import ClassVar

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from crawler.commands import use_help_formatter


class Command(ScrapyCommand):
    requires_project = True
    default_settings: ClassVar[dict[str, str]] = {"LOG_LEVEL": "INFO"}

    def syntax(self) -> str:
        return "--wcxb DIR --out DIR [options]"

    def short_desc(self) -> str:
        return "Generate styled sites with article/listing labels and split roles by theme"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        super().add_options(parser)
        parser.add_argument("--wcxb", required=True, metavar="DIR", help="WCXB dev folder (text source)")
        parser.add_argument("--out", required=True, metavar="DIR", help="folder for sites/ and pages.jsonl")
        parser.add_argument("--sites-per-theme", type=int, default=2, metavar="N", help="default: 2")
        parser.add_argument("--posts-per-site", type=int, default=12, metavar="N", help="default: 12")
        parser.add_argument("--seed", type=int, default=2026, help="text shuffle seed (default: 2026)")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        from crawler.styled import PAGES_NAME, build_sites

        out = Path(opts.out)
        if (out / "sites").exists():
            raise UsageError(f"{out / 'sites'} exists: give a new --out folder")
        pages = build_sites(
            Path(opts.wcxb),
            out,
            sites_per_theme=opts.sites_per_theme,
            posts_per_site=opts.posts_per_site,
            seed=opts.seed,
        )
        counts = Counter((page.role, page.label) for page in pages)
        summary = ", ".join(f"{role} {label} {n}" for (role, label), n in sorted(counts.items()))
        print(f"{out / PAGES_NAME}: {len(pages)} pages ({summary})")
