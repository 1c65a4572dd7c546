"""Extractions no corpus wants score below 0.2, whatever the learned estimate says."""

from __future__ import annotations

import pytest

from pipelines.extraction import Page, build_extractor
from pipelines.extraction.degenerate import DEGENERATE_CEILING, capped_quality, degenerate_reason

STORY = (
    "The harbour board met on Monday and agreed that the ferry pier should reopen in spring, "
    "once the repairs to its timber deck are done and the new lights are tested. "
)


@pytest.mark.parametrize(
    "text",
    [
        "hi",
        "",
        None,
        "Please enable JavaScript to view this page.",
        "Access denied. You do not have permission to access this page on this server. Reference 18.2f1a "
        "and a few more words to pass the twenty tokens of the length test here.",
        "Just a moment... Checking your browser before accessing the site. This process is automatic and "
        "your browser will redirect to your requested content shortly.",
    ],
)
def test_short_texts_placeholders_and_errors_are_degenerate(text):
    assert degenerate_reason(text) is not None
    assert capped_quality(0.84, text) == DEGENERATE_CEILING < 0.2


@pytest.mark.parametrize(
    "text",
    [
        STORY * 2,
        STORY * 3 + "The old timetable page was not found in the archive, the clerk said.",
        "港口管理委员会周一开会，同意在春季修复木质甲板后重新开放渡轮码头，并测试新的灯光。",
    ],
)
def test_real_content_keeps_its_estimate(text):
    assert degenerate_reason(text) is None
    assert capped_quality(0.84, text) == 0.84


def test_the_ensemble_rates_a_script_placeholder_page_below_0_2():
    html = (
        "<html><head><title>News</title></head><body><noscript>Please enable JavaScript to view this "
        "page.</noscript><div id='app'><p>Please enable JavaScript to view this page.</p></div></body></html>"
    )
    extraction = build_extractor("ensemble").extract(Page(html, "https://news.example/story"))
    assert extraction is None or (extraction.quality is not None and extraction.quality < 0.2)
    story = Page(
        f"<html><body><article><h1>Pier</h1><p>{STORY * 3}</p></article></body></html>", "https://n.example/a"
    )
    real = build_extractor("ensemble").extract(story)
    assert real is not None and real.quality is not None and real.quality > DEGENERATE_CEILING
