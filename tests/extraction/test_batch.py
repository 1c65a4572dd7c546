"""`scrapy extract` on a folder of HTML files and on a WARC file: a JSONL feed of the crawl's shape."""

from __future__ import annotations

import json
import shutil
import subprocess

from warcio.warcwriter import WARCWriter

from crawler.items import FEED_FIELDS, PageCapture, PageItem
from pipelines.extraction.sources import batch_pages, is_batch_source
from pipelines.warc import write_page
from tests.extraction.test_command import EXTRACTION_FIXTURES, SCRAPY, scrapy_extract
from tests.support.paths import ROOT

ARTICLE = (EXTRACTION_FIXTURES / "article.html").read_text(encoding="utf-8")


def test_a_folder_is_one_line_per_html_file_and_errors_are_lines(tmp_path):
    pages = tmp_path / "pages"
    (pages / "deeper").mkdir(parents=True)
    shutil.copy(EXTRACTION_FIXTURES / "article.html", pages / "a.html")
    shutil.copy(EXTRACTION_FIXTURES / "article.html", pages / "deeper" / "copy.html")
    shutil.copy(EXTRACTION_FIXTURES / "list.html", pages / "b.htm")
    (pages / "broken.html").write_bytes(b"%PDF-1.4 not html")
    (pages / "notes.txt").write_text("skipped: not an HTML name", encoding="utf-8")
    out = tmp_path / "feed.jsonl"
    run = scrapy_extract(str(pages), "-o", str(out))
    assert run.returncode == 1, run.stderr  # a page failed
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [line["url"].rsplit("/", 1)[1] for line in lines] == [
        "a.html",
        "b.htm",
        "broken.html",
        "copy.html",
    ]
    assert all(list(line) == FEED_FIELDS for line in lines)
    first, listing, broken, copy = lines
    assert first["status"] == "ok" and first["text"].startswith("River cleanup draws hundreds")
    assert listing["page_type"] == "list" and listing["items"]
    assert broken["status"] == "error" and broken["error"].startswith("not HTML")
    assert copy["near_duplicate_of"] == first["url"] and copy["simhash"] == first["simhash"]
    assert "1 of 4 page(s) failed: 1 error line(s), 0 with no main content found" in run.stderr


def test_a_page_is_the_same_line_and_fails_alike_alone_and_in_a_folder(tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    shutil.copy(EXTRACTION_FIXTURES / "article.html", pages / "a.html")
    (pages / "empty.html").write_text("<html><body><div></div></body></html>", encoding="utf-8")
    batch = scrapy_extract(str(pages), "--page-type", "article")
    assert batch.returncode == 1
    assert "1 of 2 page(s) failed: 0 error line(s), 1 with no main content found" in batch.stderr
    for name, line in zip(("a.html", "empty.html"), batch.stdout.splitlines(), strict=True):
        alone = scrapy_extract(str(pages / name), "--page-type", "article")
        assert alone.returncode == (1 if name == "empty.html" else 0), alone.stderr
        assert {**json.loads(alone.stdout), "fetched_at": None} == {**json.loads(line), "fetched_at": None}


def test_a_folder_is_feed_lines_only(tmp_path):
    for option in (["--format", "text"], ["--url", "https://a.example/"]):
        run = scrapy_extract(str(EXTRACTION_FIXTURES), *option)
        assert run.returncode == 2 and "no --format text|markdown, no --url" in run.stderr


def test_a_reader_that_stops_early_ends_the_batch_quietly(tmp_path):
    pages = tmp_path / "pages"
    pages.mkdir()
    for number in range(40):
        shutil.copy(EXTRACTION_FIXTURES / "article.html", pages / f"{number:02}.html")
    extract = subprocess.Popen(
        [*SCRAPY, "extract", str(pages), "--extractor", "iawce"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert json.loads(extract.stdout.readline())["url"].endswith("/00.html")
    extract.stdout.close()  # as `| head -1` does
    stderr = extract.stderr.read().decode()
    assert extract.wait(timeout=120) == 0, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr and "Exception ignored" not in stderr


def warc_of(path, items):
    with path.open("wb") as stream:
        writer = WARCWriter(stream, gzip=True)
        for item in items:
            write_page(writer, item)


def test_a_warc_file_gives_the_rendered_dom_or_the_server_document(tmp_path):
    rendered = PageCapture(
        ARTICLE,
        b"",
        [],
        1366,
        900,
        900,
        raw_html=b"<html><body>raw</body></html>",
        raw_status=200,
        raw_headers={"Content-Type": "text/html"},
    )
    dom_only = PageCapture(ARTICLE, b"", [], 1366, 900, 900)
    warc = tmp_path / "crawl.warc.gz"
    warc_of(
        warc,
        [
            PageItem("http://a.example/1", "a.example", capture=rendered),
            PageItem("http://a.example/2", "a.example", capture=dom_only),
        ],
    )
    assert is_batch_source(str(warc)) and is_batch_source(str(tmp_path))
    assert not is_batch_source(str(EXTRACTION_FIXTURES / "article.html"))
    pages = list(batch_pages(str(warc)))
    assert [(p.url, p.html == ARTICLE) for p in pages] == [
        ("http://a.example/1", True),
        ("http://a.example/2", True),
    ]
    run = scrapy_extract(str(warc), "--page-type", "article")
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert [(line["url"], line["status"], line["site"]) for line in lines] == [
        ("http://a.example/1", "ok", "a.example"),
        ("http://a.example/2", "ok", "a.example"),
    ]
    assert lines[1]["near_duplicate_of"] == "http://a.example/1"


def test_a_warc_of_responses_only_is_decoded_by_its_http_charset(tmp_path):
    from io import BytesIO

    from warcio.statusandheaders import StatusAndHeaders

    warc = tmp_path / "other.warc"
    with warc.open("wb") as stream:
        writer = WARCWriter(stream, gzip=False)
        for url, status, body in (
            (
                "http://b.example/ru",
                "200 OK",
                "<html><body><p>Привет, мир</p></body></html>".encode("cp1251"),
            ),
            ("http://b.example/gone", "404 Not Found", b"<html><body>gone</body></html>"),
        ):
            headers = StatusAndHeaders(
                status, [("Content-Type", "text/html; charset=windows-1251")], protocol="HTTP/1.1"
            )
            writer.write_record(
                writer.create_warc_record(url, "response", payload=BytesIO(body), http_headers=headers)
            )
    ru, gone = batch_pages(str(warc))
    assert "Привет, мир" in ru.html and ru.fetched_at
    assert gone.html is None and gone.error == "http: HTTP 404"
