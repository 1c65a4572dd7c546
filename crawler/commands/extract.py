"""``scrapy extract PATH_OR_URL``: extract one page and print the result (the logic lives
in :mod:`pipelines.extraction.standalone`); or a folder of HTML files or a WARC file, one
feed line (the crawl's shape) per page (:mod:`pipelines.extraction.sources`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.settings import BaseSettings

from crawler.commands import use_help_formatter
from crawler.items import FEED_FIELDS, STATUS_ERROR, STATUS_OK, PageItem
from pipelines.evaluation.scoring import text_fingerprint
from pipelines.extract import apply_extraction
from pipelines.extraction import ExtractorUnavailable, available_extractors, build_extractor
from pipelines.extraction.page import Extractor, Page
from pipelines.extraction.sources import SourcePage, batch_pages, is_batch_source
from pipelines.extraction.standalone import (
    FORMATS,
    PAGE_TYPE_CHOICES,
    SourceError,
    extract_source,
    format_extraction,
)
from pipelines.neardup import NearDuplicateIndex
from pipelines.urls import site_of


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


def feed_line(
    page: SourcePage, extractor: Extractor, page_type: str, index: NearDuplicateIndex
) -> dict[str, Any]:
    """One page of a batch as a crawl's feed line: extracted, fingerprinted, or an error line."""
    item = PageItem(
        url=page.url,
        site=site_of(page.url),
        fetched_at=page.fetched_at or datetime.now(UTC).isoformat(timespec="seconds"),
        extractor=extractor.name,
    )
    if page.html is None:
        item.status, item.error = STATUS_ERROR, page.error
    else:
        try:
            extraction = extractor.extract(
                Page(html=page.html, url=page.url, page_type=None if page_type == "auto" else page_type)
            )
        except Exception as error:  # one page's failure is its line, not the batch's end
            item.status, item.error = STATUS_ERROR, f"extract: {type(error).__name__}: {error}"
        else:
            if extraction is None:
                item.warnings.append(f"extract: {extractor.name} found no main content")
            else:
                apply_extraction(item, extraction)
    if item.status == STATUS_OK and item.text and item.text.strip():
        fingerprint = text_fingerprint(item.text)
        item.simhash = f"{fingerprint:016x}"
        item.near_duplicate_of = index.add(fingerprint, item.url)
    return {name: getattr(item, name) for name in FEED_FIELDS}


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return (
            "PATH_OR_URL|FOLDER|FILE.warc.gz [--page-type article|list|auto] [--format json|text|markdown] "
            "[--extractor NAME] [-o FEED.jsonl]"
        )

    def short_desc(self) -> str:
        return "Extract the main content of one HTML file or URL and print it"

    def long_desc(self) -> str:
        return (
            "Extract the main content of one page. PATH_OR_URL is an HTML file (.html or "
            ".html.gz, e.g. a stored capture), a file:// URI or an http(s) URL; or many: a folder "
            "of HTML files or a WARC file (.warc, .warc.gz; PageSight's rendered DOM when it "
            "has one), written as a JSONL feed of the crawl's shape, one line per page, errors "
            "as lines (-o FILE, else stdout). A file needs "
            "no browser. A URL is fetched as raw HTML without running its scripts, unlike "
            "`scrapy crawl`, which renders every page in Chromium first. --page-type auto "
            "decides article or list from the HTML (link share of the denoised page)."
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
        parser.add_argument("--format", choices=FORMATS, default="json", help="output (default: json)")
        parser.add_argument(
            "--extractor",
            metavar="NAME",
            help=f"one of {', '.join(available_extractors())} (default from PAGESIGHT_EXTRACTOR)",
        )
        parser.add_argument("--url", metavar="URL", help="page URL relative links of a file resolve against")
        parser.add_argument(
            "-o", "--output", metavar="FILE", help="batch (folder or WARC): JSONL feed file (default: stdout)"
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give exactly one PATH_OR_URL")
        assert self.settings is not None
        config = ExtractCommandConfig.from_settings(self.settings)
        if is_batch_source(args[0]):
            self.run_batch(args[0], opts, config)
            return
        try:
            extraction = extract_source(
                args[0],
                build_extractor(opts.extractor or config.extractor, self.settings),
                page_type=opts.page_type,
                url=opts.url,
                timeout=config.timeout,
                user_agent=config.user_agent,
            )
        except (SourceError, ExtractorUnavailable, ValueError) as error:
            raise UsageError(str(error), print_help=False) from error
        if extraction is None:
            print(f"no main content found in {args[0]}", file=sys.stderr)
            self.exitcode = 1
            return
        print(format_extraction(extraction, opts.format))

    def run_batch(self, source: str, opts: argparse.Namespace, config: ExtractCommandConfig) -> None:
        """Every page of a folder or WARC file → one JSONL feed line each, with a progress bar."""
        from tqdm import tqdm

        assert self.settings is not None
        try:
            extractor = build_extractor(opts.extractor or config.extractor, self.settings)
            index = NearDuplicateIndex(config.neardup_distance)
        except (ExtractorUnavailable, ValueError) as error:
            raise UsageError(str(error), print_help=False) from error
        pages: Iterator[SourcePage] = batch_pages(source)
        errors = 0
        with ExitStack() as stack:
            out: IO[str] = (
                stack.enter_context(Path(opts.output).open("w", encoding="utf-8"))
                if opts.output
                else sys.stdout
            )
            try:
                for page in tqdm(pages, desc="extract", unit="page", disable=not sys.stderr.isatty()):
                    line = feed_line(page, extractor, opts.page_type, index)
                    errors += line["status"] == STATUS_ERROR
                    out.write(json.dumps(line, ensure_ascii=False) + "\n")
            except ValueError as error:  # the WARC file itself cannot be read
                raise UsageError(str(error), print_help=False) from error
        if errors:
            print(f"{errors} page(s) ended as error lines", file=sys.stderr)
