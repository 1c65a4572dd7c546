"""The scoring pipeline: each item against its gold page; per-site stats; the report
(JSON, Markdown, self-contained HTML) written when the spider closes."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from itemadapter import ItemAdapter
from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from crawler.items import FEED_FIELDS, PageItem
from pipelines.evaluation.scorebook import Evaluation
from pipelines.evaluation.gold import load_gold
from pipelines.evaluation.report import write_report
from pipelines.evaluation.scoring import ScoringConfig

logger = logging.getLogger(__name__)


class ScorePipeline:
    """Scores items when the crawl has gold (``-a gold=PATH``, or the demo web's own).

    The gold is read when the spider opens: a gold file that does not parse stops the
    crawl there, with the file and line. A crawl without gold is not scored.
    """

    def __init__(self, crawler: Crawler, config: ScoringConfig, report_dir: Path | None):
        self.crawler = crawler
        self.config = config
        self.report_dir = report_dir
        self.evaluation: Evaluation | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ScorePipeline:
        settings = crawler.settings
        if not settings.getbool("PAGESIGHT_SCORE_ENABLED", True):
            raise NotConfigured("PAGESIGHT_SCORE_ENABLED is off")
        report_dir = settings.get("PAGESIGHT_REPORT_DIR")
        pipeline = cls(
            crawler, ScoringConfig.from_settings(settings), Path(report_dir) if report_dir else None
        )
        crawler.signals.connect(pipeline.spider_opened, signal=signals.spider_opened)
        return pipeline

    def spider_opened(self, spider: Spider) -> None:
        gold_path = getattr(spider, "gold_path", None)
        if not gold_path:
            logger.info("No gold for this crawl: pages are not scored")
            return
        gold = load_gold(gold_path)
        self.evaluation = Evaluation(gold, self.config)
        logger.info("Scoring against %d gold pages from %s", len(gold), gold_path)

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if self.evaluation is None:
            return item
        record = {name: value for name, value in ItemAdapter(item).items() if name in FEED_FIELDS}
        scores = await asyncio.to_thread(self.evaluation.score, record)
        if scores is None:
            self.crawler.stats.inc_value("pagesight/score/no_gold")
            return item
        item.scores = scores
        stats = self.crawler.stats
        stats.inc_value("pagesight/score/pages")
        if scores.get("correct"):
            stats.inc_value("pagesight/score/correct")
        if scores.get("complete"):
            stats.inc_value("pagesight/score/complete")
        return item

    def close_spider(self, spider: Spider | None = None) -> None:
        if self.evaluation is None or self.report_dir is None:
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
