"""The scoring pipeline: each item against its gold page, per-site stats. The report is
written by ``crawler.extensions.ReportExtension`` when the spider closes."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from itemadapter import ItemAdapter
from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from crawler import signals as pagesight_signals
from crawler.items import FEED_FIELDS, PageItem
from pipelines.evaluation.gold import load_gold
from pipelines.evaluation.scorebook import Evaluation
from pipelines.evaluation.scoring import ScoringConfig
from pipelines.steps import record_step_failure

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScoreConfig:
    """The scoring pipeline's settings, read once."""

    enabled: bool
    gold: str
    scoring: ScoringConfig

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> ScoreConfig:
        return cls(
            enabled=settings.getbool("PAGESIGHT_SCORE_ENABLED"),
            gold=settings.get("PAGESIGHT_GOLD"),
            scoring=ScoringConfig.from_settings(settings),
        )


class ScorePipeline:
    """Scores items when the crawl has gold: ``PAGESIGHT_GOLD`` (``-a gold=PATH``), read
    at start-up, so a gold file that does not parse stops the crawl there with the file
    and line; else the demo web's, when it starts. A crawl without gold is not scored."""

    def __init__(self, crawler: Crawler, config: ScoreConfig):
        self.crawler = crawler
        self.config = config
        self.evaluation: Evaluation | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ScorePipeline:
        config = ScoreConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("PAGESIGHT_SCORE_ENABLED is off")
        pipeline = cls(crawler, config)
        if config.gold:
            pipeline.start_scoring(config.gold)
        else:
            crawler.signals.connect(pipeline.demo_web_started, signal=pagesight_signals.demo_web_started)
        return pipeline

    def start_scoring(self, gold_path: str) -> None:
        gold = load_gold(gold_path)
        self.evaluation = Evaluation(gold, self.config.scoring)
        logger.info("Scoring against %d gold pages from %s", len(gold), gold_path)
        self.crawler.signals.send_catch_log(pagesight_signals.evaluation_started, evaluation=self.evaluation)

    def demo_web_started(self, seed_urls: list[str], gold_path: str) -> None:
        self.start_scoring(gold_path)

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        if self.evaluation is None:
            return item
        record = {name: value for name, value in ItemAdapter(item).items() if name in FEED_FIELDS}
        try:
            scores = await asyncio.to_thread(self.evaluation.score, record)
        except Exception as error:  # one page's failure must not lose its line
            record_step_failure(item, "score", error, self.crawler.stats)
            return item
        stats = self.crawler.stats
        if scores is None:
            stats.inc_value("pagesight/score/no_gold")
            return item
        item.scores = scores
        stats.inc_value("pagesight/score/pages")
        if scores.get("correct"):
            stats.inc_value("pagesight/score/correct")
        if scores.get("complete"):
            stats.inc_value("pagesight/score/complete")
        return item
