"""Pure evaluation of extractions against gold (no Scrapy imports): metrics, gold
readers, the accumulating :class:`Evaluation`, and report rendering."""

from pipelines.artifacts import UnsupportedStoreError
from pipelines.evaluation.feed import FeedFormatError, evaluate_feed
from pipelines.evaluation.gold import GoldFormatError, GoldPage, GoldSet, load_gold
from pipelines.evaluation.report import ReportPaths, write_report
from pipelines.evaluation.scorebook import Evaluation
from pipelines.evaluation.scoring import ScoringConfig, score_page

__all__ = [
    "Evaluation",
    "FeedFormatError",
    "GoldFormatError",
    "GoldPage",
    "GoldSet",
    "ReportPaths",
    "ScoringConfig",
    "UnsupportedStoreError",
    "evaluate_feed",
    "load_gold",
    "score_page",
    "write_report",
]
