"""Failures planted in a real crawl (``tests/e2e/test_crawl_lines.py``): an item pipeline
that raises at every position of ``ITEM_PIPELINES``, and a spider middleware that raises
on one page's line before it leaves the spider."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from scrapy.exceptions import DropItem

from crawler.items import PageItem
from settings import ITEM_PIPELINES

#: One planted stage before, between and after the project's pipelines (priorities).
_REAL = sorted(ITEM_PIPELINES.values())
POSITIONS = [_REAL[0] - 1, *(priority + 1 for priority in _REAL)]
#: The page whose line the spider middleware makes its callback lose.
SPIDER_FAILS_ON = "/broken-callback.html"


class RaisingStage:
    """Raises on every item: RuntimeError, or DropItem at the last position."""

    step = "planted"
    position = 0

    def process_item(self, item: Any, spider: Any = None) -> Any:
        if self.position == len(POSITIONS) - 1:
            raise DropItem(f"planted drop at {POSITIONS[self.position]}")
        raise RuntimeError(f"planted at {POSITIONS[self.position]}")


STAGES = {f"{__name__}.RaisingStage{i}": priority for i, priority in enumerate(POSITIONS)}
for _i in range(len(POSITIONS)):
    globals()[f"RaisingStage{_i}"] = type(f"RaisingStage{_i}", (RaisingStage,), {"position": _i})


class RaisingSpiderMiddleware:
    """Closer to the spider than the line guard: raises when one page's line comes out."""

    async def process_spider_output_async(
        self, response: Any, result: AsyncIterator[Any], spider: Any = None
    ) -> AsyncIterator[Any]:
        async for output in result:
            if isinstance(output, PageItem) and output.url.endswith(SPIDER_FAILS_ON):
                raise ValueError("planted in the spider's callback")
            yield output

    def process_spider_output(self, response: Any, result: Any, spider: Any = None) -> Any:
        for output in result:
            if isinstance(output, PageItem) and output.url.endswith(SPIDER_FAILS_ON):
                raise ValueError("planted in the spider's callback")
            yield output
