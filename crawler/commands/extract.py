"""``scrapy extract SOURCE`` (``pagesight extract``): the main content of one page (an
HTML file, ``-`` for standard input, or a URL) or of many (a folder of HTML files, a WARC
file), every page as one line of the crawl's feed (:mod:`pipelines.extraction.standalone`,
:mod:`pipelines.extraction.sources`).

A page fails alike alone and in a batch (an error line, or no main content found): the
command then says how many and exits 1; bad input (an unreadable file given alone, an
unknown extractor) exits 2.
"""

from __future__ import annotations

import argparse
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.settings import BaseSettings

from crawler.commands import use_help_formatter
from crawler.items import STATUS_ERROR
from pipelines.extraction import ExtractorUnavailable, available_extractors, build_extractor
from pipelines.extraction.page import Extractor
from pipelines.extraction.sources import SourcePage, batch_pages, is_batch_source
from pipelines.extraction.standalone import (
    FORMATS,
    PAGE_TYPE_CHOICES,
    SourceError,
    discard_stdout,
    feed_record,
    format_record,
    read_source,
    record_failure,
)
from pipelines.neardup import NearDuplicateIndex


@dataclass(frozen=True)
class ExtractCommandConfig:
    """The settings ``scrapy extract`` reads, once."""

    extractor: str
    timeout: float
    user_agent: str
    neardup_distance: int

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> ExtractCommandConfig:
        return cls(
            extractor=settings.get("PAGESIGHT_EXTRACTOR"),
            timeout=settings.getfloat("DOWNLOAD_TIMEOUT"),
            user_agent=settings.get("USER_AGENT"),
            neardup_distance=settings.getint("PAGESIGHT_NEARDUP_DISTANCE"),
        )


@dataclass
class Tally:
    """The pages written so far and how many of them failed, by kind."""

    pages: int = 0
    errors: int = 0
    empty: int = 0

    def add(self, record: dict[str, object]) -> str | None:
        """Count ``record``; why it failed, or None."""
        self.pages += 1
        failure = record_failure(record)
        if failure is not None:
            if record["status"] == STATUS_ERROR:
                self.errors += 1
            else:
                self.empty += 1
        return failure

    @property
    def failed(self) -> int:
        return self.errors + self.empty


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return (
            "PATH_OR_URL|-|FOLDER|FILE.warc.gz [--page-type article|list|auto] [--format json|text|markdown] "
            "[--extractor NAME] [-o FILE]"
        )

    def short_desc(self) -> str:
        return "Extract the main content of HTML files or a URL as feed lines"

    def long_desc(self) -> str:
        return (
            "Extract the main content of one page: PATH_OR_URL is an HTML file (.html or "
            ".html.gz, e.g. a stored capture), a file:// URI, an http(s) URL, or - to read the "
            "HTML from standard input; or of many: a folder of HTML files or a WARC file (.warc, "
            ".warc.gz; PageSight's rendered DOM when it has one). Every page is one line of the "
            "crawl's feed (JSON; --format text or markdown prints one page's text alone), "
            "errors as lines (-o FILE, else stdout). A file needs no browser. A URL is fetched "
            "as raw HTML without running its scripts, unlike `scrapy crawl`, which renders "
            "every page in Chromium first. --page-type auto decides article or list from the "
            "HTML (link share of the denoised page). Exit 1 when a page failed (an error line, "
            "or no main content found), saying how many; 2 on bad input."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        super().add_options(parser)
        parser.add_argument(
            "--page-type",
            choices=PAGE_TYPE_CHOICES,
            default="auto",
            help="article, list, or auto to decide from the HTML (default: auto)",
        )
        parser.add_argument(
            "--format", choices=FORMATS, default="json", help="one page: output (default: json, a feed line)"
        )
        parser.add_argument(
            "--extractor",
            metavar="NAME",
            help=f"one of {', '.join(available_extractors())} (default from PAGESIGHT_EXTRACTOR)",
        )
        parser.add_argument(
            "--url", metavar="URL", help="one page: its URL, which relative links resolve against"
        )
        parser.add_argument("-o", "--output", metavar="FILE", help="write there (default: stdout)")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give exactly one PATH_OR_URL")
        assert self.settings is not None
        config = ExtractCommandConfig.from_settings(self.settings)
        batch = is_batch_source(args[0])
        if batch and (opts.format != "json" or opts.url):
            raise UsageError(
                "a folder or WARC file gives feed lines of their own URLs: no --format text|markdown, no --url",
                print_help=False,
            )
        try:
            extractor = build_extractor(opts.extractor or config.extractor, self.settings)
        except (ExtractorUnavailable, ValueError) as error:
            raise UsageError(str(error), print_help=False) from error
        tally = Tally()
        with ExitStack() as stack:
            out: IO[str] = (
                stack.enter_context(Path(opts.output).open("w", encoding="utf-8"))
                if opts.output
                else sys.stdout
            )
            try:
                if batch:
                    self.run_batch(args[0], extractor, opts.page_type, config, out, tally)
                else:
                    self.run_one(args[0], extractor, opts, config, out, tally)
            except BrokenPipeError:  # the reader has gone (`| head`): stop, quietly
                discard_stdout()
        if tally.failed:
            self.exitcode = 1
            if batch:
                print(
                    f"{tally.failed} of {tally.pages} page(s) failed: {tally.errors} error line(s), "
                    f"{tally.empty} with no main content found",
                    file=sys.stderr,
                )

    def run_one(
        self,
        source: str,
        extractor: Extractor,
        opts: argparse.Namespace,
        config: ExtractCommandConfig,
        out: IO[str],
        tally: Tally,
    ) -> None:
        """One page: its feed line (or text, or Markdown), and why it failed on stderr."""
        try:
            html, url = read_source(source, config.timeout, config.user_agent)
        except SourceError as error:
            raise UsageError(str(error), print_help=False) from error
        record = feed_record(SourcePage(opts.url or url, html), extractor, opts.page_type)
        failure = tally.add(record)
        if failure is not None:
            print(f"{source}: {failure}", file=sys.stderr)
        output = format_record(record, opts.format)
        if output:
            out.write(output + "\n")
            out.flush()

    def run_batch(
        self,
        source: str,
        extractor: Extractor,
        page_type: str,
        config: ExtractCommandConfig,
        out: IO[str],
        tally: Tally,
    ) -> None:
        """Every page of a folder or WARC file: one feed line each, written as it is
        made, with a progress bar on a terminal."""
        from tqdm import tqdm

        try:
            index = NearDuplicateIndex(config.neardup_distance)
            for page in tqdm(
                batch_pages(source), desc="extract", unit="page", disable=not sys.stderr.isatty()
            ):
                record = feed_record(page, extractor, page_type, index)
                out.write(format_record(record, "json") + "\n")
                out.flush()
                tally.add(record)
        except ValueError as error:  # a bad PAGESIGHT_NEARDUP_DISTANCE, or an unreadable WARC file
            raise UsageError(str(error), print_help=False) from error
