"""`scrapy extract` on fixture files, and the module behind it."""

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.extraction import Extraction, build_extractor
from pipelines.extraction.standalone import SourceError, extract_source, format_extraction, read_source

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "extraction"
SCRAPY = [sys.executable, "-m", "scrapy"]


def scrapy_extract(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*SCRAPY, "extract", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_command_prints_text():
    run = scrapy_extract(str(FIXTURES / "article.html"), "--format", "text", "--page-type", "article")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("River cleanup draws hundreds\n\nMore than three hundred volunteers")
    assert "cookies" not in run.stdout


def test_command_prints_json_of_a_list_page_with_absolute_item_urls():
    run = scrapy_extract(
        str(FIXTURES / "list.html"), "--page-type", "list", "--url", "https://gazette.example/news/"
    )
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    assert found["extractor"].startswith("ensemble:") and found["page_type"] == "list"
    assert found["items"][0]["url"] == "https://gazette.example/news/2024/river-cleanup"


def test_command_markdown_and_paper_extractor():
    run = scrapy_extract(str(FIXTURES / "article.html"), "--format", "markdown", "--extractor", "iawce-paper")
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("# River cleanup draws hundreds")


def test_command_errors_are_clear():
    missing = scrapy_extract("no/such/page.html")
    assert missing.returncode != 0 and "cannot read no/such/page.html" in missing.stderr
    unknown = scrapy_extract(str(FIXTURES / "article.html"), "--extractor", "nope")
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


def test_command_exits_1_when_nothing_is_found(tmp_path):
    empty = tmp_path / "empty.html"
    empty.write_text("<html><body><div></div></body></html>", encoding="utf-8")
    run = scrapy_extract(str(empty), "--page-type", "article")
    assert run.returncode == 1 and "no main content found" in run.stderr


def test_read_source_reads_gzip_and_file_uris(tmp_path):
    html = "<html><body><p>Привет</p></body></html>"
    stored = tmp_path / "page.html.gz"
    stored.write_bytes(gzip.compress(html.encode("cp1251")))
    assert read_source(str(stored)) == (html, "")
    assert read_source(stored.as_uri()) == (html, "")
    broken = tmp_path / "broken.gz"
    broken.write_bytes(b"\x1f\x8b not really gzip")
    with pytest.raises(SourceError, match="does not decompress"):
        read_source(str(broken))


def test_extract_source_and_format():
    iawce = build_extractor("iawce")
    found = extract_source(
        str(FIXTURES / "article.html"), iawce, page_type="auto", url="https://gazette.example/x"
    )
    assert isinstance(found, Extraction) and found.page_type == "article"
    assert json.loads(format_extraction(found, "json"))["title"] == found.title
    assert format_extraction(found, "text") == found.text
    assert format_extraction(found, "markdown") == found.markdown
    with pytest.raises(ValueError, match="format must be one of json, text, markdown"):
        format_extraction(found, "xml")
    with pytest.raises(ValueError, match="page type must be one of article, list, auto"):
        extract_source(str(FIXTURES / "article.html"), iawce, page_type="gallery")
