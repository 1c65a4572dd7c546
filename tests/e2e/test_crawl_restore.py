"""End-to-end: a page whose own script removes its document (as some sites do when a copy
is opened under another address) is captured from the HTML it was served, without its
scripts, and says so; a plain page beside it is captured as it renders."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from crawler.capture import RESTORED_WARNING
from crawler.dataset import serve_static_folder
from tests.support.crawling import run_crawl

pytestmark = pytest.mark.e2e

STORY = (
    "The harbour board approved the new ferry timetable on Tuesday after a long debate. "
    "Crossings will run every twenty minutes from March, and the night service returns."
)
GUARDED_PAGE = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ferry timetable approved</title>
<script>if (!location.hostname.endsWith(".example.org")) document.querySelector("html").remove();</script>
</head><body><article><h1>Ferry timetable approved</h1>
<p>{STORY}</p><p>{STORY}</p><p>{STORY}</p></article></body></html>
"""
PLAIN_PAGE = GUARDED_PAGE.replace(
    '<script>if (!location.hostname.endsWith(".example.org")) ', "<script>if (false) "
)


@pytest.fixture
def guarded_site(tmp_path: Path) -> Iterator[str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "guarded.html").write_text(GUARDED_PAGE, encoding="utf-8")
    (site / "plain.html").write_text(PLAIN_PAGE, encoding="utf-8")
    with serve_static_folder(site) as base:
        yield base


def stored(record: dict, key: str) -> bytes:
    data = Path(urlparse(record[key]["uri"]).path).read_bytes()
    return gzip.decompress(data) if key == "html" else data


def test_a_page_that_removes_its_document_is_captured_from_its_served_html(guarded_site: str, tmp_path: Path):
    guarded, plain = f"{guarded_site}/guarded.html", f"{guarded_site}/plain.html"
    run = run_crawl(
        tmp_path / "crawl",
        f"start_urls={guarded},{plain}",
        "follow=false",
        settings={"PAGESIGHT_REPORT_DIR": ""},
    )
    assert run.returncode == 0, run.log[-3000:]
    records = run.by_url()
    assert set(records) == {guarded, plain} and all(r["status"] == "ok" for r in records.values()), records
    restored, rendered = records[guarded], records[plain]
    assert RESTORED_WARNING in restored["warnings"] and RESTORED_WARNING not in rendered["warnings"]
    for record in (restored, rendered):
        assert record["title"] == "Ferry timetable approved"
        assert record["text"].count("twenty minutes") == 3, record["text"]
        boxes = json.loads(stored(record, "boxes"))
        assert any(box["tag"] == "article" and box["h"] > 0 for box in boxes), record["url"]
    html = stored(restored, "html").decode("utf-8")
    assert "<article>" in html and "<script" not in html  # shown without the script that removed it
