"""The default feed: `output/news-<time>.jsonl`, unless the crawl names its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scrapy.settings import BaseSettings


@dataclass(frozen=True)
class DefaultFeedConfig:
    """The default feed's URI (empty: none) and the feeds the crawl already names."""

    uri: str
    feeds: dict[str, Any]

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> DefaultFeedConfig:
        return cls(uri=settings.get("PAGESIGHT_DEFAULT_FEED"), feeds=settings.getdict("FEEDS"))


class DefaultFeedAddon:
    """Adds PAGESIGHT_DEFAULT_FEED to FEEDS only when no feed was given, so that
    ``-o``/``-O`` (or a FEEDS setting) replace it instead of writing beside it."""

    def update_settings(self, settings: BaseSettings) -> None:
        config = DefaultFeedConfig.from_settings(settings)
        if config.uri and not config.feeds:
            settings.set("FEEDS", {config.uri: {"format": "jsonlines", "encoding": "utf8"}}, priority="addon")
