"""The accumulating Evaluation, peer comparison and the written reports."""

import gzip
import html
import json
import sys
from pathlib import Path

import pytest
from PIL import Image

from pipelines.artifacts import UnsupportedStoreError
from pipelines.evaluation.feed import evaluate_feed, read_feed
from pipelines.evaluation.gold import GoldPage, GoldSet, load_gold
from pipelines.evaluation.report import SUMMARY_COLUMNS, SUMMARY_LEGEND, write_report
from pipelines.evaluation.scorebook import Evaluation
from pipelines.extraction import ExtractorUnavailable, build_extractor
from tests.support.crawling import open_in_chromium
from tests.support.paths import FIXTURES
from tests.support.project_settings import scoring_config

EVALUATION_FIXTURES = FIXTURES / "evaluation"
SUMMARY_KEYS = {
    "pages",
    "word_f1",
    "word_precision",
    "word_recall",
    "shingle_f1",
    "hamming_precision",
    "hamming_recall",
    "unrelated_correct_rate",
    "unrelated_complete_rate",
    "type_accuracy",
}


def _stored_feed(tmp_path: Path, html_uri=None) -> Path:
    """The fixture feed with each ok line's HTML (its text inside page chrome), boxes and
    a screenshot written to a local store, as the store pipeline leaves them."""
    records = list(read_feed(EVALUATION_FIXTURES / "feed.jsonl"))
    store = tmp_path / "store"
    store.mkdir()
    for number, record in enumerate(records):
        if record["status"] != "ok":
            continue
        paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in record["text"].split("\n\n"))
        page = (
            "<html><head><title>t</title></head><body><nav><a href='/'>Home</a> "
            "<a href='/news'>News</a></nav><article><h1>Story</h1>"
            f"{paragraphs}</article><footer>© Example</footer></body></html>"
        )
        html_path = store / f"{number}.html.gz"
        html_path.write_bytes(gzip.compress(page.encode("utf-8")))
        shot_path = store / f"{number}.png"
        Image.new("RGB", (1366, 3000), (200, 220, 240)).save(shot_path)
        record["html"] = {"uri": html_uri or html_path.as_uri(), "path": html_path.name}
        record["screenshot"] = {"uri": shot_path.as_uri(), "path": shot_path.name}
        boxes_path = store / f"{number}.json"
        boxes_path.write_text("[]", "utf-8")
        record["boxes"] = {"uri": boxes_path.as_uri(), "path": boxes_path.name}
    feed = tmp_path / "feed.jsonl"
    feed.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return feed


@pytest.fixture
def gold():
    return load_gold(EVALUATION_FIXTURES / "gold.jsonl")


@pytest.fixture
def report(gold):
    return evaluate_feed(EVALUATION_FIXTURES / "feed.jsonl", gold, scoring_config())


def test_summary_on_the_fixture_feed(report):
    summary = report["summary"]
    assert set(summary) >= SUMMARY_KEYS
    assert (summary["pages"], summary["failures"], summary["pages_with_gold_text"]) == (6, 2, 6)
    distances = [page["hamming_distance"] for page in report["pages"]]
    # bridge and the Chinese page are exact (0); the festival page lost half its text and
    # gained boilerplate; the error line and the missing page are 64.
    assert distances[0] == distances[3] == 0 and distances[4] == distances[5] == 64
    correct = sum(d < 30 for d in distances)
    complete = sum(d < 10 for d in distances)
    assert summary["hamming_precision"] == pytest.approx(correct / 6)
    assert summary["hamming_recall"] == pytest.approx(complete / correct)
    # type: bridge ✓, festival predicted list ✗, listing→list ✓, zh ✓, error ✗, missing ✗
    assert summary["type_accuracy"] == pytest.approx(3 / 6)
    # list items: bridge by URL, festival by title, weather unmatched → 2/3 and 2/3
    assert summary["item_precision"] == pytest.approx(2 / 3)
    assert summary["item_recall"] == pytest.approx(2 / 3)
    assert summary["ms_per_page"] == pytest.approx((12 + 8 + 20 + 10) / 4)
    assert summary["word_f1"] == pytest.approx(sum(p["word_f1"] for p in report["pages"]) / 6)


def test_groups_failures_and_unmatched_lines(report):
    assert set(report["sites"]) == {"alpha", "beta"}
    assert report["sites"]["beta"]["pages"] == 3 and report["sites"]["beta"]["failures"] == 2
    assert set(report["page_types"]) == {"article", "listing"}
    assert report["page_types"]["listing"]["pages"] == 1
    assert report["failures"] == [
        {
            "url": "https://beta.example/article/2",
            "site": "beta",
            "reason": "error: TimeoutError: page did not load in 30 s",
        },
        {"url": "https://beta.example/night-market", "site": "beta", "reason": "missing from feed"},
    ]
    assert report["feed"]["unmatched_urls"] == ["https://alpha.example/about"]
    assert report["confusion"] == {
        "gold": ["article", "list"],
        "predicted": ["article", "list", "(none)"],
        "matrix": [[2, 1, 2], [0, 1, 0]],
    }
    assert [page["url"] for page in report["worst_pages"]] == [
        "http://ALPHA.example/news/river-festival/#comments",
        "https://alpha.example/news",
    ]
    alpha_pairs = report["sites"]["alpha"]["unrelated_pairs"]
    assert alpha_pairs == 6 and report["summary"]["unrelated_pairs"] == 6 + 2
    # 4 extractions, each against the 5 other gold texts of the whole set
    assert report["summary"]["unrelated_any_site_pairs"] == 20


def test_duplicates_count_once_and_missing_pages_join_their_hosts_site():
    pages = [
        GoldPage(url="https://a.example/1", text="one two three", source="g:1"),
        GoldPage(url="https://a.example/2", text="four five six", source="g:2"),
    ]
    evaluation = Evaluation(GoldSet("g", "jsonl", pages), scoring_config())
    first = {"url": "https://a.example/1", "site": "site-a", "text": "one two three"}
    assert evaluation.score(first)["word_f1"] == 1.0
    evaluation.score({**first, "text": "something else"})
    report = evaluation.report()
    assert report["feed"]["duplicates"] == ["https://a.example/1"]
    assert report["summary"]["word_f1"] == pytest.approx(0.5)
    assert report["failures"] == [
        {"url": "https://a.example/2", "site": "site-a", "reason": "missing from feed"}
    ]


def test_write_report_writes_json_markdown_and_html(report, tmp_path):
    paths = write_report(report, tmp_path / "out")
    assert paths.json.is_file() and paths.markdown.is_file() and paths.html.is_file()
    assert set(paths.plots) == {"hamming-distance", "word-f1-per-site", "page-type-confusion"}
    written = json.loads(paths.json.read_text("utf-8"))
    assert SUMMARY_KEYS <= set(written["summary"]) <= set(written["sites"]["alpha"])
    page = paths.html.read_text("utf-8")
    for site in report["sites"]:
        assert f"<td>{site}</td>" in page
    assert page.count("data:image/png;base64,") == 3
    assert "missing from feed" in page and "https://beta.example/night-market" in page
    markdown = paths.markdown.read_text("utf-8")
    assert "| alpha | pagesight | 3 |" in markdown and "plots/hamming-distance.png" in markdown


def test_every_summary_column_is_explained_and_page_types_say_their_label(report, tmp_path):
    assert report["page_type_labels"] == {"article": "article", "listing": "list"}
    paths = write_report(report, tmp_path / "out")
    markdown, page = paths.markdown.read_text("utf-8"), paths.html.read_text("utf-8")
    for key, heading, _ in SUMMARY_COLUMNS:
        assert f"- **{heading}**: {SUMMARY_LEGEND[key]}" in markdown
        assert f"<dt>{html.escape(heading)}</dt>" in page
    assert "A snippet cut in the middle of a word never matches." in markdown
    assert "| listing (list) | pagesight |" in markdown and "| article | pagesight |" in markdown
    assert "<td>listing (list)</td>" in page


def test_feed_with_extraction_quality_gets_the_predicted_vs_true_plot(gold, tmp_path):
    records = list(read_feed(EVALUATION_FIXTURES / "feed.jsonl"))
    for number, record in enumerate(records):
        record["extraction_quality"] = 0.2 + 0.1 * number
    feed = tmp_path / "feed.jsonl"
    feed.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    report = evaluate_feed(feed, gold, scoring_config())
    rated = [page for page in report["pages"] if page["extraction_quality"] is not None]
    assert rated and all(page["word_f1"] is not None for page in rated)
    paths = write_report(report, tmp_path / "out")
    assert "predicted-vs-true-quality" in paths.plots
    with Image.open(paths.plots["predicted-vs-true-quality"]) as plot:
        assert plot.width > 100
    assert "plots/predicted-vs-true-quality.png" in paths.markdown.read_text("utf-8")


def test_html_report_escapes_feed_and_gold_content(tmp_path):
    hostile = "<script>alert(1)</script>"
    pages = [
        GoldPage(url="javascript:alert(1)", text=f"{hostile} gold", source="g:1", site=hostile),
        GoldPage(url="https://a.example/2", text="quiet text here", source="g:2", site="<b>s</b>"),
    ]
    evaluation = Evaluation(GoldSet("g", "jsonl", pages), scoring_config())
    evaluation.score({"url": "javascript:alert(1)", "text": f"{hostile} extracted"})
    page = write_report(evaluation.report(), tmp_path).html.read_text("utf-8")
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>s</b>" not in page and "&lt;b&gt;s&lt;/b&gt;" in page
    assert 'href="javascript:' not in page


def test_worst_pages_show_local_screenshot_thumbnails(gold, tmp_path):
    report = evaluate_feed(_stored_feed(tmp_path), gold, scoring_config())
    assert report["worst_pages"][0]["screenshot_uri"].startswith("file://")
    page = write_report(report, tmp_path / "out").html.read_text("utf-8")
    assert page.count("data:image/jpeg;base64,") == len(report["worst_pages"]) == 2


def test_compare_runs_peers_on_the_stored_html(gold, tmp_path):
    report = evaluate_feed(
        _stored_feed(tmp_path), gold, scoring_config(), compare=[build_extractor("trafilatura")]
    )
    assert list(report["systems"]) == ["pagesight", "trafilatura"]
    peer = report["systems"]["trafilatura"]["summary"]
    assert peer["pages"] == 6 and peer["failures"] == 2  # the error line and the missing page
    assert peer["ms_per_page"] > 0 and peer["type_accuracy"] is None
    # the bridge page's stored HTML holds its whole text inside navigation and footer
    bridge = report["systems"]["trafilatura"]["pages"][0]
    assert bridge["gold_url"] == "https://alpha.example/news/harbor-bridge"
    assert bridge["word_recall"] == 1.0 and bridge["correct"]
    page = write_report(report, tmp_path / "out").html.read_text("utf-8")
    assert "<td>trafilatura</td>" in page


def test_compare_needs_a_local_store(gold, tmp_path):
    feed = _stored_feed(tmp_path, html_uri="s3://bucket/html/ab/abcdef.html.gz")
    with pytest.raises(UnsupportedStoreError, match=r"local stores \(file://\) only"):
        evaluate_feed(feed, gold, scoring_config(), compare=[build_extractor("readability")])


def test_unreadable_stored_html_fails_only_that_page(gold, tmp_path):
    feed = _stored_feed(tmp_path)
    (tmp_path / "store" / "0.html.gz").unlink()
    report = evaluate_feed(feed, gold, scoring_config(), compare=[build_extractor("justext")])
    assert len(report["failures"]) == 2  # ours: the error line and the missing page
    peer_failures = {f["url"]: f["reason"] for f in report["systems"]["justext"]["failures"]}
    assert peer_failures["https://alpha.example/news/harbor-bridge"].startswith(
        "error: stored capture unreadable: cannot read"
    )
    assert peer_failures["https://beta.example/night-market"] == "missing from feed"


def test_missing_or_unknown_extractors_say_what_to_do(monkeypatch):
    with pytest.raises(
        ExtractorUnavailable, match=r"known extractors: .*iawce, iawce-other-type, iawce-paper, justext"
    ):
        build_extractor("boilerpipe")
    monkeypatch.setitem(sys.modules, "trafilatura", None)
    with pytest.raises(ExtractorUnavailable, match=r"needs the trafilatura package.*requirements\.txt"):
        build_extractor("trafilatura")


def test_compare_hands_any_extractor_the_stored_capture(gold, tmp_path):
    seen = []

    class Spy:
        name = "spy"

        def extract(self, page):
            seen.append((page.url, page.page_type, page.screenshot_image.size, page.boxes))
            return build_extractor("iawce").extract(page)

    report = evaluate_feed(
        _stored_feed(tmp_path), gold, scoring_config(), compare=[Spy(), build_extractor("iawce")]
    )
    assert list(report["systems"]) == ["pagesight", "spy", "iawce"]
    assert seen and all(size == (1366, 3000) and boxes == [] for _, _, size, boxes in seen)
    assert {page_type for _, page_type, _, _ in seen} <= {"article", "list"}
    assert report["systems"]["iawce"]["summary"]["word_f1"] > 0.5


@pytest.mark.e2e
def test_html_report_opens_in_headless_chromium_without_errors(gold, tmp_path):
    report = evaluate_feed(
        _stored_feed(tmp_path), gold, scoring_config(), compare=[build_extractor("readability")]
    )
    opened = open_in_chromium(write_report(report, tmp_path / "out").html)
    errors, broken_images, text = opened.errors, opened.broken_images, opened.text
    assert errors == []
    assert broken_images == 0
    for site in report["sites"]:
        assert site in text
    assert "readability" in text


def test_page_kinds_get_their_accuracy_recall_and_confusion_when_the_feed_has_them(tmp_path):
    kinds = [
        ("1", "forum", "forum"),
        ("2", "forum", "article"),
        ("3", "product", "product"),
        ("4", "listing", None),
    ]
    pages = [
        GoldPage(url=f"https://a.example/{n}", text="one two three", source=f"g:{n}", page_type=gold_kind)
        for n, gold_kind, _ in kinds
    ]
    pages.append(GoldPage(url="https://a.example/5", text="one two three", source="g:5"))  # no kind
    evaluation = Evaluation(GoldSet("g", "jsonl", pages), scoring_config())
    without = Evaluation(GoldSet("g", "jsonl", pages), scoring_config())
    for n, _, predicted in [*kinds, ("5", None, "article")]:
        line = {"url": f"https://a.example/{n}", "text": "one two three", "page_type": "article"}
        evaluation.score({**line, "page_kind": predicted})
        without.score(line)
    assert without.report()["page_kinds"] is None  # a feed without kinds has no kind table
    report = evaluation.report()
    assert report["page_kinds"] == {
        "pages": 4,
        "accuracy": 0.5,
        "recall": {"forum": 0.5, "listing": 0.0, "product": 1.0},
        "confusion": {
            "gold": ["forum", "listing", "product"],
            "predicted": ["article", "forum", "listing", "product", "(none)"],
            "matrix": [[1, 1, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 1, 0]],
        },
    }
    paths = write_report(report, tmp_path / "out")
    assert "page-kind-confusion" in paths.plots
    markdown = paths.markdown.read_text("utf-8")
    assert "## Page kinds" in markdown and "Kind accuracy 0.500 over 4 pages" in markdown
    assert "| forum | 1 | 1 | 0 | 0 | 0 | 0.500 |" in markdown


def test_an_article_list_gold_has_no_kind_table(report):
    # the fixture gold types pages article and listing (a kind), but a demo-web gold only
    # article and list: its articles alone are no kind gold
    pages = [GoldPage(url="https://a.example/1", text="one two", source="g:1", page_type="article")]
    pages.append(GoldPage(url="https://a.example/2", text="three four", source="g:2", page_type="list"))
    evaluation = Evaluation(GoldSet("g", "jsonl", pages), scoring_config())
    for n, kind in (("1", "forum"), ("2", "listing")):
        evaluation.score({"url": f"https://a.example/{n}", "text": "one two", "page_kind": kind})
    assert evaluation.report()["page_kinds"] is None
