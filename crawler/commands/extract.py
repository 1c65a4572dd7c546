"""``scrapy extract PATH_OR_URL``: extract one page and print the result (the logic lives
in :mod:`pipelines.extraction.standalone`)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.settings import BaseSettings

from pipelines.extraction import ExtractorUnavailable, available_extractors, build_extractor
from pipelines.extraction.standalone import (
    FORMATS,
    PAGE_TYPE_CHOICES,
    SourceError,
    extract_source,
    format_extraction,
)


@dataclass(frozen=True)
class ExtractCommandConfig:
    """The settings ``scrapy extract`` reads, once."""

    extractor: str
    timeout: float
    user_agent: str

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> ExtractCommandConfig:
        return cls(
            extractor=settings.get("PAGESIGHT_EXTRACTOR"),
            timeout=settings.getfloat("DOWNLOAD_TIMEOUT"),
            user_agent=settings.get("USER_AGENT"),
        )


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "WARNING"}

    def syntax(self) -> str:
        return "PATH_OR_URL [--page-type article|list|auto] [--format json|text|markdown] [--extractor NAME]"

    def short_desc(self) -> str:
        return "Extract the main content of one HTML file or URL and print it"

    def long_desc(self) -> str:
        return (
            "Extract the main content of one page. PATH_OR_URL is an HTML file (.html or "
            ".html.gz, e.g. a stored capture), a file:// URI or an http(s) URL. A file needs "
            "no browser. A URL is fetched as raw HTML without running its scripts, unlike "
            "`scrapy crawl`, which renders every page in Chromium first. --page-type auto "
            "decides article or list from the HTML (link share of the denoised page)."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
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

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) != 1:
            raise UsageError("give exactly one PATH_OR_URL")
        assert self.settings is not None
        config = ExtractCommandConfig.from_settings(self.settings)
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
