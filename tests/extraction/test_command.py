"""`scrapy extract` on one page (a fixture file, standard input), and the module behind it."""

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from crawler.items import FEED_FIELDS, FEED_SCHEMA
from pipelines.extraction import build_extractor
from pipelines.extraction.sources import SourcePage
from pipelines.extraction.standalone import (
    SourceError,
    feed_record,
    format_record,
    read_source,
    record_failure,
)
from tests.support.paths import FIXTURES, ROOT

EXTRACTION_FIXTURES = FIXTURES / "extraction"
SCRAPY = [sys.executable, "-m", "scrapy"]


def scrapy_extract(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    run = subprocess.run([*SCRAPY, "extract", *args], cwd=ROOT, capture_output=True, input=stdin, timeout=120)
    return subprocess.CompletedProcess(
        run.args, run.returncode, run.stdout.decode("utf-8"), run.stderr.decode("utf-8")
    )


def test_command_prints_text():
    run = scrapy_extract(
        str(EXTRACTION_FIXTURES / "article.html"), "--format", "text", "--page-type", "article"
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("River cleanup draws hundreds\n\nMore than three hundred volunteers")
    assert "cookies" not in run.stdout


def test_command_prints_one_feed_line_of_a_list_page_with_absolute_item_urls():
    run = scrapy_extract(
        str(EXTRACTION_FIXTURES / "list.html"),
        "--page-type",
        "list",
        "--url",
        "https://gazette.example/news/",
    )
    assert run.returncode == 0, run.stderr
    assert len(run.stdout.splitlines()) == 1  # a feed line: `>> feed.jsonl` appends it
    found = json.loads(run.stdout)
    assert list(found) == FEED_FIELDS and found["schema"] == FEED_SCHEMA
    assert (found["url"], found["site"], found["status"]) == (
        "https://gazette.example/news/",
        "gazette.example",
        "ok",
    )
    assert found["extractor"] == "ensemble" and found["page_type"] == "list"
    assert found["provenance"]["extractor"]["name"] == "ensemble" and found["provenance"]["checkpoints"]
    assert 0 <= found["extraction_quality"] <= 1 and found["simhash"]
    assert found["items"][0]["url"] == "https://gazette.example/news/2024/river-cleanup"


def test_an_article_has_no_items_as_in_the_feed(tmp_path):
    out = tmp_path / "page.jsonl"
    run = scrapy_extract(str(EXTRACTION_FIXTURES / "article.html"), "--page-type", "article", "-o", str(out))
    assert run.returncode == 0 and run.stdout == "", run.stderr
    found = json.loads(out.read_text(encoding="utf-8"))
    assert found["items"] is None and "quality" not in found
    assert found["url"] == (EXTRACTION_FIXTURES / "article.html").resolve().as_uri()


def test_standard_input_is_a_page():
    html = (EXTRACTION_FIXTURES / "list.html").read_bytes()
    run = scrapy_extract("-", "--url", "https://gazette.example/news/", "--format", "text", stdin=html)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("Latest news\n\nRiver cleanup draws hundreds")
    found = json.loads(scrapy_extract("-", "--page-type", "list", stdin=html).stdout)
    assert found["url"] == "" and found["items"][0]["url"] == "/news/2024/river-cleanup"  # as written
    binary = scrapy_extract("-", stdin=b"%PDF-1.7\n")
    assert binary.returncode == 2 and binary.stdout == ""
    assert "standard input is a PDF document, not HTML" in binary.stderr


def test_command_markdown_and_paper_extractor():
    run = scrapy_extract(
        str(EXTRACTION_FIXTURES / "article.html"), "--format", "markdown", "--extractor", "iawce-paper"
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("# River cleanup draws hundreds")


def test_command_errors_are_clear():
    missing = scrapy_extract("no/such/page.html")
    assert missing.returncode != 0 and "cannot read no/such/page.html" in missing.stderr
    unknown = scrapy_extract(str(EXTRACTION_FIXTURES / "article.html"), "--extractor", "nope")
    assert unknown.returncode != 0 and "unknown extractor 'nope'; known extractors:" in unknown.stderr


def test_command_refuses_binary_files(tmp_path):
    elf = tmp_path / "program.html"
    elf.write_bytes(Path(sys.executable).resolve().read_bytes()[:65536])
    run = scrapy_extract(str(elf))
    assert run.returncode == 2 and run.stdout == ""
    assert f"{elf} is an ELF executable, not HTML" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    ("body", "reason"),
    [(b"%PDF-1.7\n", "a PDF document"), (b"\x89PNG\r\n", "a PNG image"), (b"<p>a\x00b</p>", "NUL bytes")],
)
def test_read_source_refuses_non_html(tmp_path, body, reason):
    path = tmp_path / "x.html"
    path.write_bytes(body)
    with pytest.raises(SourceError, match=reason):
        read_source(str(path))


def test_command_exits_1_when_nothing_is_found_and_prints_the_line_all_the_same(tmp_path):
    empty = tmp_path / "empty.html"
    empty.write_text("<html><body><div></div></body></html>", encoding="utf-8")
    run = scrapy_extract(str(empty), "--page-type", "article")
    assert run.returncode == 1 and f"{empty}: no main content found" in run.stderr
    found = json.loads(run.stdout)
    assert (found["status"], found["text"]) == ("ok", None)
    assert found["warnings"] == ["extract: ensemble found no main content"]
    text = scrapy_extract(str(empty), "--format", "text")
    assert text.returncode == 1 and text.stdout == ""


def test_read_source_reads_gzip_and_file_uris(tmp_path):
    html = "<html><body><p>Привет</p></body></html>"
    stored = tmp_path / "page.html.gz"
    stored.write_bytes(gzip.compress(html.encode("cp1251")))
    assert read_source(str(stored)) == (html, stored.as_uri())
    assert read_source(stored.as_uri()) == (html, stored.as_uri())
    broken = tmp_path / "broken.gz"
    broken.write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(SourceError, match="does not decompress"):
        read_source(str(broken))


def test_feed_record_and_its_formats():
    iawce = build_extractor("iawce")
    html = (EXTRACTION_FIXTURES / "article.html").read_text(encoding="utf-8")
    found = feed_record(SourcePage("https://gazette.example/x", html), iawce)
    assert (
        list(found) == FEED_FIELDS and found["page_type"] == "article" and found["site"] == "gazette.example"
    )
    assert record_failure(found) is None
    assert json.loads(format_record(found, "json")) == found
    assert (
        format_record(found, "text") == found["text"]
        and format_record(found, "markdown") == found["markdown"]
    )
    with pytest.raises(ValueError, match="format must be one of json, text, markdown"):
        format_record(found, "xml")
    with pytest.raises(ValueError, match="page type must be one of article, list, auto"):
        feed_record(SourcePage("https://gazette.example/x", html), iawce, page_type="gallery")
    broken = feed_record(SourcePage("https://gazette.example/y", error="not HTML: a PDF document"), iawce)
    assert (broken["status"], broken["error"], broken["text"]) == ("error", "not HTML: a PDF document", None)
    assert record_failure(broken) == "not HTML: a PDF document"
    empty = feed_record(SourcePage("https://gazette.example/z", "<html><body></body></html>"), iawce)
    assert record_failure(empty) == "no main content found" and format_record(empty, "text") == ""


def test_one_page_outside_a_crawl_imports_no_crawl_machinery():
    """The command's and the API's glue builds feed lines with pipelines.feedline, not
    with the crawl's extraction pipeline (which imports Scrapy)."""
    from tests.e2e.test_crawl_startup import imported_after

    assert imported_after("import pipelines.extraction.standalone", ("scrapy", "pipelines.extract")) == []


def test_command_keeps_a_story_s_comments_when_asked(tmp_path):
    story = " ".join(["The council met on Tuesday and agreed to repair the old bridge."] * 6)
    comments = "".join(
        f"<li class='comment'><b>reader{i}</b> said: Comment number {i} thanks the council.</li>"
        for i in range(3)
    )
    page = tmp_path / "story.html"
    page.write_text(
        f"<html><body><article><h1>Bridge repairs</h1><p>{story}</p>"
        f"<ol class='comments'>{comments}</ol></article></body></html>",
        encoding="utf-8",
    )
    plain = scrapy_extract(str(page), "--format", "text", "--extractor", "iawce", "--page-type", "article")
    assert plain.returncode == 0, plain.stderr
    assert "repair the old bridge" in plain.stdout and "Comment number" not in plain.stdout
    asked = scrapy_extract(
        str(page),
        "--format",
        "text",
        "--extractor",
        "iawce",
        "--page-type",
        "article",
        "-s",
        'PAGESIGHT_EXTRACTOR_OPTIONS={"iawce": {"include_comments": true}}',
    )
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.startswith(plain.stdout.rstrip("\n"))
    assert asked.stdout.rstrip("\n").endswith("reader2 said: Comment number 2 thanks the council.")
