"""Extensions on engine signals: the demo web's lifetime, and the evaluation report."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from crawler import signals as pagesight_signals
from crawler.demo import DemoWeb, Faults
from pipelines.evaluation.report import write_report
from pipelines.evaluation.scorebook import Evaluation

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DemoWebConfig:
    """The demo web's settings, read once."""

    enabled: bool
    seed: int
    articles_per_site: int
    faults: Faults
    gold_path: Path

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> DemoWebConfig:
        return cls(
            enabled=settings.getbool("PAGESIGHT_DEMO_WEB"),
            seed=settings.getint("PAGESIGHT_DEMO_SEED"),
            articles_per_site=settings.getint("PAGESIGHT_DEMO_ARTICLES_PER_SITE"),
            faults=Faults.parse(settings.get("PAGESIGHT_DEMO_FAULTS")),
            gold_path=Path(settings.get("PAGESIGHT_DEMO_GOLD")),
        )


class DemoWebExtension:
    """Serves the bundled demo web while the engine runs (as Scrapy's telnet console
    listens): started on ``engine_started``, before the spider asks for its first
    pages, stopped on ``engine_stopped``. On for a crawl given no URLs
    (``PAGESIGHT_DEMO_WEB``, set by the spider); it writes the demo gold to
    ``PAGESIGHT_DEMO_GOLD`` and sends ``demo_web_started`` with the home pages and gold."""

    def __init__(self, crawler: Crawler, config: DemoWebConfig):
        self.crawler = crawler
        self.config = config
        self.demo: DemoWeb | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DemoWebExtension:
        config = DemoWebConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("the crawl has its own URLs")
        extension = cls(crawler, config)
        crawler.signals.connect(extension.start, signal=signals.engine_started)
        crawler.signals.connect(extension.stop, signal=signals.engine_stopped)
        return extension

    def start(self) -> None:
        config = self.config
        self.demo = DemoWeb(
            seed=config.seed, articles_per_site=config.articles_per_site, faults=config.faults
        )
        self.demo.start()
        config.gold_path.parent.mkdir(parents=True, exist_ok=True)
        self.demo.write_gold(config.gold_path)
        seeds = list(self.demo.seed_urls)
        logger.info("Serving the demo web: %s (gold: %s)", ", ".join(seeds), config.gold_path)
        self.crawler.signals.send_catch_log(
            pagesight_signals.demo_web_started, seed_urls=seeds, gold_path=str(config.gold_path)
        )

    def stop(self) -> None:
        if self.demo is not None:
            self.demo.stop()
            self.demo = None


@dataclass(frozen=True)
class ReportConfig:
    """Where the evaluation report goes (empty: no report)."""

    report_dir: str

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> ReportConfig:
        return cls(report_dir=settings.get("PAGESIGHT_REPORT_DIR"))


class ReportExtension:
    """Writes report.json, report.md and report.html of the crawl's evaluation (the
    scoring pipeline's, sent with ``evaluation_started``) when the spider closes."""

    def __init__(self, report_dir: Path):
        self.report_dir = report_dir
        self.evaluation: Evaluation | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ReportExtension:
        config = ReportConfig.from_settings(crawler.settings)
        if not config.report_dir:
            raise NotConfigured("PAGESIGHT_REPORT_DIR is empty")
        extension = cls(Path(config.report_dir))
        crawler.signals.connect(extension.evaluation_started, signal=pagesight_signals.evaluation_started)
        crawler.signals.connect(extension.spider_closed, signal=signals.spider_closed)
        return extension

    def evaluation_started(self, evaluation: Evaluation) -> None:
        self.evaluation = evaluation

    def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.evaluation is None:
            return
        report = self.evaluation.report()
        paths = write_report(report, self.report_dir)
        summary = report["summary"]
        logger.info(
            "Evaluation of %s pages: word F1 %.3f, paper P %.3f R %.3f; report: %s",
            summary["pages"],
            summary["word_f1"] or 0.0,
            summary["hamming_precision"] or 0.0,
            summary["hamming_recall"] or 0.0,
            paths.html,
        )
