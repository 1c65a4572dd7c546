"""The labeling session without a browser: marks written at once as valid gold, resume,
page types, a path that names no element, train and predict on the marks."""

from __future__ import annotations

import json

import pytest

from crawler.labeling.session import LabelError, LabelSession
from models.element.data import labeled_pages, read_capture_feed
from pipelines.evaluation.gold import read_gold_jsonl
from pipelines.urls import url_key
from tests.support.element_pages import MAIN_PATH, write_marked_layout


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


def with_predicted_types(feed, page_type: str = "list") -> None:
    """Give every feed line the capture's predicted page type."""
    lines = [
        dict(json.loads(line), page_type=page_type) for line in feed.read_text(encoding="utf-8").splitlines()
    ]
    feed.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_only_a_persons_page_type_is_gold(marked_layout, tmp_path):
    feed, _ = marked_layout
    with_predicted_types(feed)
    session = open_session(feed, tmp_path)
    session.mark_main(0, MAIN_PATH)
    session.mark_type(1, "article")
    session.mark_main(1, MAIN_PATH)
    rows = session.overview()["pages"]
    assert [(r["page_type"], r["predicted_page_type"]) for r in rows[:3]] == [
        (None, "list"),
        ("article", "list"),
        (None, "list"),
    ]
    lines = [json.loads(line) for line in (tmp_path / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    assert "page_type" not in lines[0] and lines[1]["page_type"] == "article"
    assert [page.page_type for page in read_gold_jsonl(tmp_path / "gold.jsonl").pages] == [None, "article"]
    # Training reads the marks: the prediction is not among them.
    assert [page.page_type for page in labeled_pages(session.pages, session.marks)] == ["article", "article"]
    assert "page_type" not in session.marks[url_key("http://site.test/p0")]


def test_clear_undoes_a_pages_labels(marked_layout, tmp_path):
    feed, _ = marked_layout
    session = open_session(feed, tmp_path)
    session.mark_type(0, "list")
    session.mark_main(0, MAIN_PATH)
    session.mark_main(1, MAIN_PATH)
    session.skip(2)
    session.clear(0)
    session.clear(2)
    session.clear(3)  # nothing set: nothing changes
    assert [page.url for page in read_gold_jsonl(tmp_path / "gold.jsonl").pages] == ["http://site.test/p1"]
    overview = open_session(feed, tmp_path).overview()
    assert overview["start"] == 0
    assert [(r["path"], r["page_type"], r["skipped"]) for r in overview["pages"]] == [
        (None, None, False),
        (MAIN_PATH, None, False),
        (None, None, False),
        (None, None, False),
    ]
    assert not list(tmp_path.glob("gold.jsonl*.tmp"))


def test_predicted_types_an_earlier_version_wrote_leave_the_gold(marked_layout, tmp_path, caplog):
    feed, _ = marked_layout
    labels = tmp_path / "gold.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"url": f"http://site.test/p{i}", "page_type": "list", "text": "", "path": MAIN_PATH})
            + "\n"
            for i in range(3)
        ),
        encoding="utf-8",
    )
    state = tmp_path / "gold.jsonl.state.json"
    state.write_text(
        json.dumps({"types": {url_key("http://site.test/p1"): "list"}, "skipped": []}), encoding="utf-8"
    )
    session = open_session(feed, tmp_path)
    assert "2 marks carried a page type nobody set" in caplog.text
    assert [r["page_type"] for r in session.overview()["pages"]] == [None, "list", None, None]
    assert [page.page_type for page in read_gold_jsonl(labels).pages] == [None, "list", None]

    # Gold written by hand (no state file): its page types are a person's.
    state.unlink()
    labels.write_text(
        json.dumps({"url": "http://site.test/p0", "page_type": "list", "text": "", "path": MAIN_PATH}) + "\n"
    )
    assert open_session(feed, tmp_path).overview()["pages"][0]["page_type"] == "list"
