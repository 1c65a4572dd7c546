"""The logic of `scrapy demo-web`: options (defaults from settings) and serving until stopped."""

from __future__ import annotations

import argparse
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from scrapy.exceptions import UsageError
from scrapy.settings import BaseSettings

from crawler.demo.faults import Faults
from crawler.demo.web import DemoWeb


@dataclass(frozen=True)
class DemoWebOptions:
    """What `scrapy demo-web` serves and where."""

    port: int  # first site's port; the others follow (0: free ports)
    seed: int
    articles_per_site: int
    faults: Faults
    gold_path: Path | None = None


def add_demo_web_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's own arguments; unset ones fall back to the PAGESIGHT_DEMO_* settings."""
    parser.add_argument(
        "--port",
        type=int,
        required=True,
        metavar="N",
        help="port of the first site, the next sites on N+1, N+2, ... (0 = any free ports)",
    )
    parser.add_argument(
        "--seed", type=int, metavar="S", help="generator seed (default from PAGESIGHT_DEMO_SEED)"
    )
    parser.add_argument(
        "--articles-per-site",
        type=int,
        metavar="K",
        help="articles per site (default from PAGESIGHT_DEMO_ARTICLES_PER_SITE)",
    )
    parser.add_argument(
        "--faults",
        metavar="TEXT",
        help='fault knobs, e.g. "latency_ms=50,error_rate=0.1,hang,huge,non_html" or "none" '
        "(default from PAGESIGHT_DEMO_FAULTS)",
    )
    parser.add_argument("--gold", metavar="PATH", help="write the gold JSONL of the served pages here")


def demo_web_options(opts: argparse.Namespace, settings: BaseSettings) -> DemoWebOptions:
    """Validated options; a bad value raises UsageError naming the option."""
    if not 0 <= opts.port <= 65535 - 3:
        raise UsageError(
            f"--port must be between 0 and 65532 (four sites), got {opts.port}", print_help=False
        )
    seed = opts.seed if opts.seed is not None else settings.getint("PAGESIGHT_DEMO_SEED")
    articles = (
        opts.articles_per_site
        if opts.articles_per_site is not None
        else settings.getint("PAGESIGHT_DEMO_ARTICLES_PER_SITE")
    )
    if articles < 1:
        raise UsageError(f"--articles-per-site must be at least 1, got {articles}", print_help=False)
    fault_text = opts.faults if opts.faults is not None else settings.get("PAGESIGHT_DEMO_FAULTS")
    try:
        faults = Faults.parse(fault_text)
    except ValueError as error:
        raise UsageError(f"--faults: {error}", print_help=False) from None
    gold = Path(opts.gold) if opts.gold else None
    return DemoWebOptions(opts.port, seed, articles, faults, gold)


def serve_demo_web(options: DemoWebOptions, out: TextIO, stop: threading.Event) -> DemoWeb:
    """Serve the demo web, print each site's URL to ``out``, block until ``stop`` is set.

    Returns the (stopped) DemoWeb so callers can inspect what was served.
    """
    web = DemoWeb(
        seed=options.seed,
        articles_per_site=options.articles_per_site,
        faults=options.faults,
        base_port=options.port,
    )
    try:
        web.start()
    except OSError as error:
        raise UsageError(str(error), print_help=False) from None
    try:
        print(
            f"Demo web (seed {options.seed}, {options.articles_per_site} articles per site, "
            f"faults: {options.faults}):",
            file=out,
        )
        for site in web.sites:
            print(f"  {site.name:<9} {site.language}  {site.encoding:<13} {site.base_url}/", file=out)
        if options.gold_path is not None:
            path = web.write_gold(options.gold_path)
            print(f"Gold: {len(web.gold)} pages written to {path}", file=out)
        print("Serving; press Ctrl-C to stop.", file=out, flush=True)
        stop.wait()
    finally:
        web.stop()
    return web
