"""What every pipeline shell does around its algorithm: an exception of one step on one
page becomes a warning on that feed line (step name first), never a lost line."""

from __future__ import annotations

import logging

from scrapy.statscollectors import StatsCollector

from crawler.items import PageItem

logger = logging.getLogger(__name__)


def record_step_failure(item: PageItem, step: str, error: BaseException, stats: StatsCollector) -> None:
    """Note ``error`` of pipeline ``step`` on the item and in the stats; log it."""
    lines = str(error).strip().splitlines()
    kind = type(error).__name__
    item.warnings.append(f"{step}: {kind}: {lines[0]}" if lines else f"{step}: {kind}")
    stats.inc_value(f"pagesight/{step}/failed")
    logger.warning("%s failed on %s: %r", step, item.url, error, exc_info=logger.isEnabledFor(logging.DEBUG))
