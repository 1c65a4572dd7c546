"""WARC out: the server's document (status, headers, bytes) and the rendered DOM, per page."""

from __future__ import annotations

import pytest
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import Settings
from scrapy.spiders import Spider
from warcio.archiveiterator import ArchiveIterator

from crawler.items import PageCapture, PageItem
from pipelines.warc import RECORD_KIND_HEADER, RENDERED_DOM, WarcPipeline
from tests.support.project_settings import pagesight_settings

RAW = "<html><head><meta charset='windows-1251'></head><body><p>Привет</p></body></html>".encode("cp1251")


def pipeline(out):
    crawler = Crawler(Spider, Settings(pagesight_settings(PAGESIGHT_WARC_OUT=str(out))), init_reactor=True)
    crawler._apply_settings()
    return WarcPipeline.from_crawler(crawler)


def test_off_without_a_folder():
    crawler = Crawler(Spider, Settings(pagesight_settings()))
    with pytest.raises(NotConfigured):
        WarcPipeline.from_crawler(crawler)


def test_response_and_rendered_dom_records(tmp_path):
    warc = pipeline(tmp_path / "warc")
    warc.open_spider()
    capture = PageCapture(
        "<html><body><p>Привет</p><p>rendered</p></body></html>",
        b"",
        [],
        1366,
        900,
        900,
        final_url="http://a.example/x",
        raw_html=RAW,
        raw_status=200,
        raw_headers={"content-type": "text/html; charset=windows-1251", "x-served-by": "demo"},
    )
    warc.process_item(PageItem("http://a.example/x", "a.example", capture=capture))
    warc.process_item(PageItem("http://a.example/err", "a.example", status="error"))
    warc.close_spider()
    (path,) = (tmp_path / "warc").glob("pagesight-*.warc.gz")
    with path.open("rb") as stream:
        records = [
            (r.rec_type, r.rec_headers, r.http_headers, r.content_stream().read())
            for r in ArchiveIterator(stream)
        ]
    assert [kind for kind, *_ in records] == ["warcinfo", "response", "resource"]
    _, response_headers, http, body = records[1]
    assert body == RAW and http.get_statuscode() == "200"
    assert http.get_header("x-served-by") == "demo"
    assert response_headers.get_header("WARC-Target-URI") == "http://a.example/x"
    _, dom_headers, _, dom = records[2]
    assert dom.decode("utf-8") == capture.html
    assert dom_headers.get_header(RECORD_KIND_HEADER) == RENDERED_DOM
    assert dom_headers.get_header("WARC-Concurrent-To") == response_headers.get_header("WARC-Record-ID")
