"""The labeling session without a browser: marks written at once as valid gold, resume,
page types, a path that names no element, train and predict on the marks."""

from __future__ import annotations

import json

import pytest

from crawler.labeling.session import LabelError, LabelSession
from models.element_data import read_capture_feed
from pipelines.evaluation.gold import read_gold_jsonl
from tests.element_pages import MAIN_PATH, write_marked_layout


@pytest.fixture
def marked_layout(tmp_path):
    return write_marked_layout(tmp_path)


def open_session(feed, tmp_path) -> LabelSession:
    return LabelSession(
        read_capture_feed(feed),
        tmp_path / "gold.jsonl",
        tmp_path / "gold.model.npz",
        tmp_path / "no.npz",
        768,
    )


def test_marks_are_gold_at_once_and_a_reopened_session_resumes(marked_layout, tmp_path):
    feed, _ = marked_layout
    session = open_session(feed, tmp_path)
    assert session.overview()["start"] == 0
    session.mark_type(0, "list")
    entry = session.mark_main(0, MAIN_PATH)
    assert entry["page_type"] == "list" and entry["path"] == MAIN_PATH and entry["text"].count("\n\n") >= 4
    session.skip(1)
    session.mark_type(2, "article")  # before its main element: kept in the state file

    reopened = open_session(feed, tmp_path)
    overview = reopened.overview()
    assert overview["start"] == 2
    assert [p["path"] for p in overview["pages"]] == [MAIN_PATH, None, None, None]
    assert overview["pages"][2]["page_type"] == "article" and overview["pages"][1]["skipped"]
    reopened.mark_main(2, MAIN_PATH)
    reopened.mark_main(0, MAIN_PATH + "/p[1]")  # a second mark replaces the first
    gold = read_gold_jsonl(tmp_path / "gold.jsonl")
    assert [page.url for page in gold.pages] == ["http://site.test/p0", "http://site.test/p2"]
    lines = [json.loads(line) for line in (tmp_path / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines[0]["path"] == MAIN_PATH + "/p[1]" and lines[1]["page_type"] == "article"


def test_bad_requests_are_clear_errors(marked_layout, tmp_path):
    feed, _ = marked_layout
    session = open_session(feed, tmp_path)
    with pytest.raises(LabelError, match=r"/html/body/div\[7\] names no element of the stored page"):
        session.mark_main(0, "/html/body/div[7]")
    with pytest.raises(LabelError, match="page type must be one of article, list"):
        session.mark_type(0, "forum")
    with pytest.raises(LabelError, match="no page 9"):
        session.skip(9)
    with pytest.raises(LabelError, match="nothing to train on"):
        session.train()
    with pytest.raises(LabelError, match=r"no\.npz not found"):
        session.predict(0)
    assert not (tmp_path / "gold.jsonl").exists()


def test_train_on_marks_then_predict_an_unmarked_page(marked_layout, tmp_path):
    pytest.importorskip("sklearn")
    feed, _ = marked_layout
    session = open_session(feed, tmp_path)
    for index in range(3):
        session.mark_main(index, MAIN_PATH)
    assert session.train()["marked"] == 3
    assert session.predict(3)["path"] == MAIN_PATH
