"""``scrapy predict-element URL_OR_FILE``: render one page through the crawl's capture and
print the element the element classifier picks (constractor's ``constractor_predict.py``)."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import ClassVar

from lxml import html as lxml_html
from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from crawler.commands import use_help_formatter

FORMATS = ("json", "text", "html")


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = True
    default_settings: ClassVar[dict[str, str]] = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "URL_OR_FILE [--model PATH] [--format json|text|html]"

    def short_desc(self) -> str:
        return "Print the main element the element classifier picks on one page"

    def long_desc(self) -> str:
        return (
            "Renders the page in Chromium through the same capture as `scrapy crawl` (a local "
            "HTML file is served on 127.0.0.1 for it), then prints the element with the "
            "highest score: its HTML, its text, or JSON with its path, box, probability "
            "(the model's confidence in [0, 1]: the predicted word F1 for the shipped "
            "regressor, P(main) for a classifier) and text."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        super().add_options(parser)
        parser.add_argument(
            "--model", metavar="PATH", help="checkpoint (default: PAGESIGHT_ELEMENT_CLASSIFIER_CHECKPOINT)"
        )
        parser.add_argument("--format", choices=FORMATS, default="json", help="output (default: json)")

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        from crawler.snapshot import capture_only

        self.workdir = Path(tempfile.mkdtemp(prefix="pagesight-predict-"))
        self.feed = capture_only(self.settings, self.workdir)
        if opts.model:
            self.settings.set("PAGESIGHT_ELEMENT_CLASSIFIER_CHECKPOINT", opts.model, priority="cmdline")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give exactly one URL_OR_FILE")
        from crawler.snapshot import crawl_pages, page_urls
        from models.common.checkpoint import CheckpointError
        from models.element.data import read_capture_feed
        from pipelines.extraction.dom import base_url
        from pipelines.extraction.element_classifier import ElementClassifierExtractor, shown_blocks
        from pipelines.extraction.page import Page
        from pipelines.extraction.textformat import to_text

        assert self.settings is not None and self.crawler_process is not None
        try:
            extractor = ElementClassifierExtractor.from_settings(self.settings)
        except CheckpointError as error:
            raise UsageError(str(error), print_help=False) from None
        with ExitStack() as stack:
            stack.callback(shutil.rmtree, self.workdir, ignore_errors=True)
            try:
                urls = page_urls(args, stack)
            except ValueError as error:
                raise UsageError(str(error), print_help=False) from None
            crawl_pages(self.crawler_process, urls)
            captured = read_capture_feed(self.feed) if self.feed.is_file() else []
            if captured:
                html, boxes = captured[0].read()
        if not captured:
            self.exitcode = 1
            print(f"{args[0]}: the page could not be rendered (see {self.feed})", file=sys.stderr)
            return
        choice = extractor.choose(Page(html, captured[0].url, boxes=boxes))
        if choice is None:
            self.exitcode = 1
            print(f"{args[0]}: no element to choose (empty page, no body or no text)", file=sys.stderr)
            return
        text = to_text(
            shown_blocks(choice.root, choice.element, boxes, base_url(choice.root, captured[0].url))
        )
        if opts.format == "text":
            print(text)
        elif opts.format == "html":
            print(lxml_html.tostring(choice.element, encoding="unicode", with_tail=False))
        else:
            box = {key: choice.box[key] for key in ("x", "y", "w", "h", "visible")}
            found = {
                "url": args[0],
                "path": choice.path,
                "box": box,
                "probability": round(choice.probability, 6),
                "text": text,
            }
            print(json.dumps(found, ensure_ascii=False, indent=1))
