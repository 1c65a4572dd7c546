"""The default feed: `output/news-<time>.jsonl`, unless the crawl names its own."""

from __future__ import annotations

from scrapy.settings import BaseSettings


class DefaultFeedAddon:
    """Adds PAGESIGHT_DEFAULT_FEED to FEEDS only when no feed was given, so that
    ``-o``/``-O`` (or a FEEDS setting) replace it instead of writing beside it."""

    def update_settings(self, settings: BaseSettings) -> None:
        uri = settings.get("PAGESIGHT_DEFAULT_FEED")
        if uri and not settings.getdict("FEEDS"):
            settings.set("FEEDS", {uri: {"format": "jsonlines", "encoding": "utf8"}}, priority="addon")
