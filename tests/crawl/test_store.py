"""The store pipeline writes artifacts through a Scrapy files store; items keep references."""

import asyncio
import gzip
import hashlib
import json
from pathlib import Path
from urllib.parse import urlparse

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.pipelines.files import S3FilesStore
from scrapy.utils.test import get_crawler

from crawler.items import FEED_FIELDS, PageCapture, PageItem
from pipelines.artifacts import ArtifactError, UnsupportedStoreError
from pipelines.store import ArtifactStore, StorePipeline, artifact_stem

PNG = b"\x89PNG\r\n\x1a\nfake"
RAW = "<html><body><p>\u4e2d\u6587 text</p></body></html>".encode("gbk")


def make_item(url="http://a.example/p", raw_html=RAW):
    return PageItem(
        url=url,
        site="a.example",
        capture=PageCapture(
            html="<html><body><p>\u4e2d\u6587 text</p></body></html>",
            screenshot_png=PNG,
            boxes=[{"tag": "p", "path": "/html/body/p", "x": 0, "y": 0, "w": 10, "h": 10}],
            viewport_width=1366,
            page_height=900,
            screenshot_height=900,
            raw_html=raw_html,
        ),
    )


def run(pipeline, item):
    return asyncio.run(pipeline.process_item(item))


def test_local_store_round_trip(tmp_path):
    crawler = get_crawler(settings_dict={"PAGESIGHT_STORE_URI": str(tmp_path / "store")})
    item = run(StorePipeline.from_crawler(crawler), make_item())
    for ref in (item.screenshot, item.html, item.raw_html, item.boxes):
        path = Path(urlparse(ref["uri"]).path)
        data = path.read_bytes()
        assert ref["bytes"] == len(data)
        assert ref["checksum"] == hashlib.md5(data).hexdigest()
        assert ref["path"] in ref["uri"]
    assert Path(urlparse(item.screenshot["uri"]).path).read_bytes() == PNG
    html = gzip.decompress(Path(urlparse(item.html["uri"]).path).read_bytes()).decode("utf-8")
    assert "\u4e2d\u6587" in html
    # The main document as the server sent it: its own bytes, its own encoding.
    assert gzip.decompress(Path(urlparse(item.raw_html["uri"]).path).read_bytes()) == RAW
    assert item.raw_html["path"].startswith("raw/")
    boxes = json.loads(Path(urlparse(item.boxes["uri"]).path).read_text(encoding="utf-8"))
    assert boxes[0]["path"] == "/html/body/p" and item.boxes["count"] == 1
    assert item.screenshot["width"] == 1366
    assert crawler.stats.get_value("pagesight/store/ok") == 1


def test_no_raw_reference_when_the_document_was_not_fetched_ahead(tmp_path):
    crawler = get_crawler(settings_dict={"PAGESIGHT_STORE_URI": str(tmp_path / "store")})
    item = run(StorePipeline.from_crawler(crawler), make_item(raw_html=None))
    assert item.html is not None and item.raw_html is None


def test_paths_are_stable_per_url(tmp_path):
    assert artifact_stem("http://a.example/p") == artifact_stem("http://a.example/p")
    assert artifact_stem("http://a.example/p") != artifact_stem("http://a.example/q")


def test_items_without_capture_pass_through(tmp_path):
    crawler = get_crawler(settings_dict={"PAGESIGHT_STORE_URI": str(tmp_path)})
    item = PageItem(url="http://a.example/x", site="a.example", status="error", error="http: HTTP 500")
    assert run(StorePipeline.from_crawler(crawler), item).screenshot is None


def test_file_uri_and_relative_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert ArtifactStore("out/store").base_uri == (tmp_path / "out/store").as_uri()
    assert ArtifactStore((tmp_path / "x").as_uri()).base_uri == (tmp_path / "x").as_uri()


def test_s3_uri_uses_scrapys_s3_store():
    pytest.importorskip("botocore")
    store = ArtifactStore("s3://bucket/prefix/")
    assert isinstance(store.store, S3FilesStore)
    assert store.base_uri == "s3://bucket/prefix"


def test_unknown_scheme_is_not_configured():
    with pytest.raises(NotConfigured, match="unsupported scheme"):
        ArtifactStore("mongodb://host/db")


def test_store_failure_keeps_the_item(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    crawler = get_crawler(settings_dict={"PAGESIGHT_STORE_URI": str(tmp_path / "store")})
    pipeline = StorePipeline.from_crawler(crawler)
    pipeline.store.store.basedir = str(blocker)  # writing under a regular file fails
    item = run(pipeline, make_item())
    assert item.error is None and item.status == "ok"
    assert len(item.warnings) == 1 and item.warnings[0].startswith("store: ")
    assert crawler.stats.get_value("pagesight/store/failed") == 1


def test_read_gives_back_what_was_stored(tmp_path):
    crawler = get_crawler(settings_dict={"PAGESIGHT_STORE_URI": str(tmp_path / "store")})
    item = run(StorePipeline.from_crawler(crawler), make_item())
    assert ArtifactStore.read(item.html["uri"]).decode("utf-8") == item.capture.html
    assert ArtifactStore.read(item.screenshot["uri"]) == item.capture.screenshot_png
    assert json.loads(ArtifactStore.read(item.boxes["uri"])) == item.capture.boxes
    with pytest.raises(ArtifactError, match="cannot read"):
        ArtifactStore.read((tmp_path / "store" / "nope.png").as_uri())
    with pytest.raises(UnsupportedStoreError, match=r"local stores \(file://\) only"):
        ArtifactStore.read("s3://bucket/html/ab/ab.html.gz")


def test_feed_fields_never_export_bytes():
    assert "capture" not in FEED_FIELDS
    for name in (
        "url",
        "site",
        "status",
        "error",
        "fetched_at",
        "title",
        "page_type",
        "page_type_score",
        "text",
        "items",
        "extractor",
        "screenshot",
        "html",
        "boxes",
        "timings_ms",
        "warnings",
        "provenance",
    ):
        assert name in FEED_FIELDS
