"""The Python API, `pagesight.extract`: the record `scrapy extract` prints as a feed line;
the module names it takes; the feed's schema version and its changelog."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from crawler.items import FEED_FIELDS, FEED_SCHEMA
from pagesight import extract
from tests.extraction.test_command import EXTRACTION_FIXTURES, scrapy_extract
from tests.support.paths import ROOT

LIST_URL = "https://gazette.example/news/"


def without_time(record: dict) -> dict:
    return {**record, "fetched_at": None}


def test_extract_gives_the_feed_line_the_command_prints():
    html = (EXTRACTION_FIXTURES / "list.html").read_bytes()
    record = extract(html.decode("utf-8"), url=LIST_URL)
    assert list(record) == FEED_FIELDS and record["schema"] == FEED_SCHEMA
    assert record["page_type"] == "list" and record["items"][0]["url"] == f"{LIST_URL}2024/river-cleanup"
    printed = scrapy_extract("-", "--url", LIST_URL, stdin=html)
    assert printed.returncode == 0, printed.stderr
    assert without_time(json.loads(printed.stdout)) == without_time(record)
    assert without_time(extract(html, url=LIST_URL)) == without_time(record)  # bytes, decoded


def test_extract_options_and_what_fails():
    html = (EXTRACTION_FIXTURES / "article.html").read_text(encoding="utf-8")
    paper = extract(html, extractor="iawce-paper", page_type="article")
    assert (paper["url"], paper["extractor"], paper["page_type"]) == ("", "iawce-paper", "article")
    assert extract(b"%PDF-1.7\n")["error"] == "not HTML: a PDF document, not HTML"
    empty = extract("<html><body><div></div></body></html>")
    assert empty["status"] == "ok" and empty["text"] is None and empty["warnings"]
    with pytest.raises(ValueError, match="page type must be one of article, list, auto"):
        extract(html, page_type="gallery")


def test_a_process_with_another_module_of_a_project_name_is_refused():
    probe = "import sys, types\nsys.modules['models'] = types.ModuleType('models')\nimport pagesight"
    run = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode != 0
    assert (
        "ImportError: PageSight needs the module name 'models', but this process already imported"
        in run.stderr
    )


#: The fields of schema 1. A reader of schema-1 lines relies on each of them: removing or
#: renaming one raises FEED_SCHEMA, with a CHANGELOG.md entry (adding one does not).
SCHEMA_1_FIELDS = [
    "schema",
    "url",
    "site",
    "status",
    "error",
    "fetched_at",
    "http_status",
    "content_type",
    "depth",
    "recrawled",
    "via",
    "seed_date",
    "title",
    "page_type",
    "page_type_score",
    "page_kind",
    "page_kind_score",
    "text",
    "markdown",
    "items",
    "extractor",
    "extraction_quality",
    "author",
    "published",
    "language",
    "canonical_url",
    "final_url",
    "encoding",
    "encoding_source",
    "screenshot",
    "html",
    "raw_html",
    "boxes",
    "scores",
    "simhash",
    "near_duplicate_of",
    "timings_ms",
    "warnings",
    "provenance",
]


def test_the_schema_version_is_raised_with_each_breaking_change_and_logged():
    assert FEED_SCHEMA == 1, "a new schema: keep this test's field list of it, and its CHANGELOG.md entry"
    assert FEED_FIELDS[0] == "schema"
    assert set(SCHEMA_1_FIELDS) <= set(FEED_FIELDS), "a field removed or renamed: raise FEED_SCHEMA"
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## Schema {FEED_SCHEMA}$", changelog, re.MULTILINE)
