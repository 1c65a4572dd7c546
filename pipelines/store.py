"""The store pipeline: screenshot (PNG), rendered HTML (gzip), the main document's raw
bytes as the server sent them (gzip) and element boxes (JSON) go to a Scrapy files
store; the item keeps their URIs, paths and checksums."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.pipelines.files import FilesPipeline
from scrapy.settings import BaseSettings
from scrapy.utils.defer import maybe_deferred_to_future

from crawler.items import PageCapture, PageItem
from pipelines.artifacts import read_artifact
from pipelines.steps import record_step_failure


class ArtifactStore:
    """A files store (local folder, file://, s3://, gs://) as Scrapy's FilesPipeline has."""

    def __init__(self, uri: str):
        scheme = "file" if Path(uri).is_absolute() or "://" not in uri else urlparse(uri).scheme
        if scheme not in FilesPipeline.STORE_SCHEMES:
            raise NotConfigured(f"PAGESIGHT_STORE_URI: unsupported scheme {scheme!r}")
        if scheme == "file":
            base = Path(uri.split("://", 1)[-1]).resolve()
            uri = str(base)
            self.base_uri = base.as_uri()
        else:
            self.base_uri = uri.rstrip("/")
        self.store = FilesPipeline.STORE_SCHEMES[scheme](uri)

    async def put(self, path: str, data: bytes, content_type: str) -> dict[str, Any]:
        """Persist ``data`` under ``path``; return its reference for the item."""
        result = self.store.persist_file(
            path,
            BytesIO(data),
            info=None,  # type: ignore[arg-type]  # the stores do not use it
            headers={"Content-Type": content_type},
        )
        if result is not None:
            await maybe_deferred_to_future(result)
        return {
            "uri": f"{self.base_uri}/{path}",
            "path": path,
            "checksum": hashlib.md5(data).hexdigest(),
            "bytes": len(data),
        }

    @staticmethod
    def read(uri: str) -> bytes:
        """The bytes stored at ``uri``, an artifact URI of any store's item (a ``file://``
        URI or path; gzip is undone).

        Raises :class:`~pipelines.artifacts.ArtifactError` when it cannot be read, and
        :class:`~pipelines.artifacts.UnsupportedStoreError` for remote stores (s3://,
        gs://, ftp://), which are written but not read back yet.
        """
        return read_artifact(uri)


def _encode(capture: PageCapture) -> tuple[bytes, bytes | None, bytes]:
    """The rendered HTML gzipped (UTF-8), the raw document gzipped (its own bytes, or
    None when it was not fetched ahead of the browser) and the boxes as compact JSON
    (worker thread)."""
    html_gz = gzip.compress(capture.html.encode("utf-8"), compresslevel=6, mtime=0)
    raw_gz = None
    if capture.raw_html is not None:
        raw_gz = gzip.compress(capture.raw_html, compresslevel=6, mtime=0)
    boxes = json.dumps(capture.boxes, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return html_gz, raw_gz, boxes


def artifact_stem(url: str) -> str:
    """Stable file stem for a page: sha1 of its URL, fanned out by the first two digits."""
    digest = hashlib.sha1(url.encode("utf-8")).hexdigest()
    return f"{digest[:2]}/{digest}"


@dataclass(frozen=True)
class StoreConfig:
    """The store pipeline's settings, read once."""

    uri: str

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> StoreConfig:
        return cls(uri=settings.get("PAGESIGHT_STORE_URI"))


class StorePipeline:
    """Writes each captured page's artifacts; items without a capture pass through."""

    def __init__(self, crawler: Crawler, store: ArtifactStore):
        self.crawler = crawler
        self.store = store

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> StorePipeline:
        uri = StoreConfig.from_settings(crawler.settings).uri
        if not uri:
            raise NotConfigured("PAGESIGHT_STORE_URI is empty")
        # S3/GCS/FTP credentials come from the same settings FilesPipeline reads.
        FilesPipeline._update_stores(crawler.settings)
        return cls(crawler, ArtifactStore(uri))

    async def process_item(self, item: PageItem, spider: Spider | None = None) -> PageItem:
        capture = item.capture
        if capture is None:
            return item
        stem = artifact_stem(item.url)
        html_gz, raw_gz, boxes_json = await asyncio.to_thread(_encode, capture)
        try:
            item.screenshot = await self.store.put(
                f"screenshots/{stem}.png", capture.screenshot_png, "image/png"
            )
            item.screenshot.update(width=capture.viewport_width, height=capture.screenshot_height)
            item.html = await self.store.put(f"html/{stem}.html.gz", html_gz, "application/gzip")
            if raw_gz is not None:
                item.raw_html = await self.store.put(f"raw/{stem}.html.gz", raw_gz, "application/gzip")
            item.boxes = await self.store.put(f"boxes/{stem}.json", boxes_json, "application/json")
            item.boxes["count"] = len(capture.boxes)
        except Exception as exc:  # a store outage must not lose the line
            record_step_failure(item, "store", exc, self.crawler.stats)
            return item
        self.crawler.stats.inc_value("pagesight/store/ok")
        return item
