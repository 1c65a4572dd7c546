"""`scrapy demo-web`: serve the bundled demo news web until Ctrl-C."""

from __future__ import annotations

import argparse
import sys
import threading

from scrapy.commands import ScrapyCommand

from crawler.commands import use_help_formatter


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False

    def syntax(self) -> str:
        return "--port N [--seed S] [--articles-per-site K] [--faults TEXT] [--gold PATH]"

    def short_desc(self) -> str:
        return "Serve the bundled demo news web (one site per port) until Ctrl-C"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        from crawler.demo.cli import add_demo_web_arguments

        super().add_options(parser)
        add_demo_web_arguments(parser)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        from crawler.demo.cli import demo_web_options, serve_demo_web

        assert self.settings is not None
        options = demo_web_options(opts, self.settings)
        try:
            serve_demo_web(options, sys.stdout, threading.Event())
        except KeyboardInterrupt:
            print("Stopped.")
