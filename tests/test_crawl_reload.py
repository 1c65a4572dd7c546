"""End-to-end: a page whose scripts replace its document while it is captured (here a
reload on resize, which the full-page screenshot causes) is stored as one document: the
HTML, boxes and screenshot all of the page it settled on; a page that reloads on every
resize ends as one ``error`` line that says so."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import lxml.html
import pytest

from crawler.dataset import serve_static_folder
from tests.crawling import run_crawl
from tests.test_crawl_restore import stored

pytestmark = pytest.mark.e2e

STORY = "The harbour board approved the new ferry timetable on Tuesday after a long debate. " * 12
#: The first document shows an article and reloads when the window is resized; the second
#: shows a section and stays (``RELOADS`` is the condition for reloading).
RELOADING_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ferry timetable</title>
<script>
const instance = Number(sessionStorage.getItem("instance") || 0) + 1;
sessionStorage.setItem("instance", String(instance));
addEventListener("DOMContentLoaded", () => {
  document.getElementById("story").innerHTML = instance === 1
    ? "<article><h1>First document</h1><p>STORY</p></article>"
    : "<section><h2>Second document</h2><p>STORY</p></section>";
});
if (RELOADS) addEventListener("resize", () => location.reload());
</script></head><body><main id="story"></main></body></html>
""".replace("STORY", STORY)


@pytest.fixture
def reloading_site(tmp_path: Path) -> Iterator[str]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "once.html").write_text(RELOADING_PAGE.replace("RELOADS", "instance === 1"), encoding="utf-8")
    (site / "always.html").write_text(RELOADING_PAGE.replace("RELOADS", "true"), encoding="utf-8")
    with serve_static_folder(site) as base:
        yield base


def test_a_page_that_reloads_while_captured_is_stored_as_one_document(reloading_site: str, tmp_path: Path):
    once, always = f"{reloading_site}/once.html", f"{reloading_site}/always.html"
    run = run_crawl(
        tmp_path / "crawl",
        f"start_urls={once},{always}",
        "follow=false",
        settings={"PAGESIGHT_REPORT_DIR": ""},
    )
    assert run.returncode == 0, run.log[-3000:]
    records = run.by_url()
    assert set(records) == {once, always} and len(run.records) == 2, run.records

    settled = records[once]
    assert settled["status"] == "ok", settled
    assert not any(w.startswith("partial") for w in settled["warnings"]), settled["warnings"]
    tree = lxml.html.fromstring(stored(settled, "html")).getroottree()
    boxes = json.loads(stored(settled, "boxes"))
    assert {box["tag"] for box in boxes} >= {"section", "h2", "p"}, boxes
    for box in boxes:  # every box is an element of the stored HTML
        found = tree.xpath(box["path"])
        assert len(found) == 1 and found[0].tag == box["tag"], box
    assert "Second document" in settled["text"] and "First document" not in settled["text"]

    unstable = records[always]
    assert unstable["status"] == "error", unstable
    assert "navigated away twice while it was captured" in unstable["error"], unstable
