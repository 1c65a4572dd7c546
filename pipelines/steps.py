"""What every pipeline shell does around its algorithm: an exception of one step on one
page becomes a warning on that feed line (step name first), never a lost line.

:class:`GuardedItemPipelineManager` (Scrapy's ``ITEM_PROCESSOR``) makes that structural:
whatever a pipeline raises on a page's item, the item goes on to the next pipeline and to
the feed with a ``STEP: Exception: message`` warning. Scrapy's own manager drops the item
and logs "Error processing" (how two held-out URLs lost their lines to a malformed link
in the frontier step)."""

from __future__ import annotations

import logging
from typing import Any

from scrapy.pipelines import ItemPipelineManager
from scrapy.statscollectors import StatsCollector
from scrapy.utils.defer import ensure_awaitable
from scrapy.utils.python import global_object_name

from crawler.items import PageItem

logger = logging.getLogger(__name__)


def record_step_failure(item: PageItem, step: str, error: BaseException, stats: StatsCollector) -> None:
    """Note ``error`` of pipeline ``step`` on the item and in the stats; log it."""
    lines = str(error).strip().splitlines()
    kind = type(error).__name__
    item.warnings.append(f"{step}: {kind}: {lines[0]}" if lines else f"{step}: {kind}")
    stats.inc_value(f"pagesight/{step}/failed")
    logger.warning("%s failed on %s: %r", step, item.url, error, exc_info=logger.isEnabledFor(logging.DEBUG))


def step_name(pipeline: object) -> str:
    """A pipeline's step name in warnings and stats: its ``step`` attribute, else its
    module's last name (``pipelines.store`` → store, ``crawler.frontier`` → frontier)."""
    return str(getattr(pipeline, "step", None) or type(pipeline).__module__.rsplit(".", 1)[-1])


class GuardedItemPipelineManager(ItemPipelineManager):
    """Scrapy's item pipeline manager, except that a pipeline's exception (``DropItem``
    included) on a :class:`PageItem` never drops it: the failure is recorded on the item
    (:func:`record_step_failure`) and the item goes on through the later pipelines, which
    each see what the earlier ones left. Items of other kinds keep Scrapy's behaviour."""

    async def process_item_async(self, item: Any) -> Any:
        if not isinstance(item, PageItem):
            return await super().process_item_async(item)
        assert self.crawler is not None and self.crawler.stats is not None
        for method in self.methods["process_item"]:
            assert method is not None
            try:
                if method in self._mw_methods_requiring_spider:
                    result = method(item, self._spider)
                else:
                    result = method(item)
                item = await ensure_awaitable(result, _warn=global_object_name(method))
            except Exception as error:  # every scheduled URL keeps its line
                record_step_failure(
                    item, step_name(getattr(method, "__self__", method)), error, self.crawler.stats
                )
        return item
