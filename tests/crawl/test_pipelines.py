"""The thin pipeline shells: start-up checks, pass-through of uncaptured items, fields set."""

from __future__ import annotations

import asyncio
import importlib.metadata
import io

import pytest
import torch
from PIL import Image
from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler as scrapy_get_crawler

from crawler import signals as pagesight_signals
from crawler.extensions import ReportExtension
from crawler.items import FEED_FIELDS, PARTIAL_LOAD_WARNING, PageCapture, PageItem
from models.common.checkpoint import CheckpointError
from models.pagetype.classifier import save_checkpoint
from models.pagetype.kinds import TYPE_OF_KIND, page_kinds
from models.pagetype.model import LeNet5
from pipelines.classify import ClassifyPipeline
from pipelines.evaluation.gold import GoldFormatError
from pipelines.extract import ExtractPipeline
from pipelines.extraction import ExtractorUnavailable
from pipelines.extraction.ensemble import SHIPPED_CHECKPOINT
from pipelines.score import ScorePipeline
from pipelines.version import PAGESIGHT_VERSION, short_hash
from tests.models.pagetype.test_checkpoint import INPUT_SIZE, lenet_meta
from tests.support.project_settings import pagesight_settings


def get_crawler(settings_dict=None):
    """A crawler with the project's PAGESIGHT_* defaults (Scrapy's own start without them)."""
    return scrapy_get_crawler(settings_dict=pagesight_settings(**(settings_dict or {})))


ARTICLE = (
    "<html lang='en'><head><title>Storm hits coast</title></head><body><nav><a href='/'>Home</a></nav>"
    "<article><h1>Storm hits coast</h1>"
    + "".join(
        f"<p>Paragraph {i} about the storm and the people who waited for it all night.</p>" for i in range(8)
    )
    + "</article><footer>Contact us</footer></body></html>"
)


def png(width=1366, height=1600) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(buffer, format="PNG")
    return buffer.getvalue()


def captured_item(html=ARTICLE) -> PageItem:
    return PageItem(
        url="http://a.example/story",
        site="a.example",
        capture=PageCapture(
            html=html,
            screenshot_png=png(),
            boxes=[],
            viewport_width=1366,
            page_height=1600,
            screenshot_height=1600,
        ),
    )


def run(pipeline, item):
    return asyncio.run(pipeline.process_item(item))


@pytest.fixture()
def checkpoint(tmp_path):
    torch.manual_seed(0)
    return save_checkpoint(tmp_path / "tiny.pt", LeNet5(input_size=INPUT_SIZE).eval(), lenet_meta())


@pytest.fixture()
def kind_checkpoint(tmp_path):
    """An untrained seven-kind model (LeNet-5: no boxes needed)."""
    torch.manual_seed(1)
    kinds = list(page_kinds())
    meta = lenet_meta(
        labels=kinds, args={"num_classes": len(kinds), "input_size": INPUT_SIZE, "in_channels": 1}
    )
    return save_checkpoint(tmp_path / "kinds.pt", LeNet5(len(kinds), input_size=INPUT_SIZE).eval(), meta)


def classifier_settings(checkpoint, kind_checkpoint=None, min_score=0.0):
    """The classifier's settings; the kind model off unless given (min score 0: the
    untrained network is never sure)."""
    settings = {
        "PAGESIGHT_CLASSIFIER_CHECKPOINT": str(checkpoint),
        "PAGESIGHT_CLASSIFIER_MIN_SCORE": min_score,
    }
    if kind_checkpoint is None:
        return settings | {"PAGESIGHT_PAGE_KIND_ENABLED": False}
    return settings | {"PAGESIGHT_PAGE_KIND_CHECKPOINT": str(kind_checkpoint)}


def test_classifier_labels_captured_pages(checkpoint):
    crawler = get_crawler(settings_dict=classifier_settings(checkpoint))
    item = run(ClassifyPipeline.from_crawler(crawler), captured_item())
    assert item.page_type in ("article", "list")
    assert 0.5 <= item.page_type_score <= 1.0
    assert crawler.stats.get_value(f"pagesight/classify/{item.page_type}") == 1
    assert item.provenance["checkpoints"] == {"classifier": short_hash(checkpoint)}
    assert len(item.provenance["checkpoints"]["classifier"]) == 12
    assert (item.page_kind, item.page_kind_score, item.page_kind_probabilities) == (None, None, None)


def test_the_page_kind_is_the_most_probable_kind_of_the_page_type(checkpoint, kind_checkpoint):
    crawler = get_crawler(settings_dict=classifier_settings(checkpoint, kind_checkpoint))
    item = run(ClassifyPipeline.from_crawler(crawler), captured_item())
    probabilities = item.page_kind_probabilities
    assert set(probabilities) == set(page_kinds()) and sum(probabilities.values()) == pytest.approx(1)
    of_type = {k: p for k, p in probabilities.items() if TYPE_OF_KIND.label_of(k) == item.page_type}
    assert item.page_kind == max(of_type, key=of_type.get)
    assert item.page_kind_score == round(of_type[item.page_kind], 4)
    assert item.provenance["checkpoints"] == {
        "classifier": short_hash(checkpoint),
        "page_kind": short_hash(kind_checkpoint),
    }
    assert crawler.stats.get_value(f"pagesight/classify/kind/{item.page_kind}") == 1
    line = {name: getattr(item, name) for name in FEED_FIELDS}
    assert "page_kind_probabilities" not in line and line["page_kind"] == item.page_kind


def test_an_unsure_page_type_is_left_to_the_extractor_and_the_kind_follows_it(checkpoint, kind_checkpoint):
    crawler = get_crawler(settings_dict=classifier_settings(checkpoint, kind_checkpoint, min_score=1.01))
    item = run(ClassifyPipeline.from_crawler(crawler), captured_item())
    assert (item.page_type, item.page_type_score) == (None, None)
    assert crawler.stats.get_value("pagesight/classify/unsure") == 1
    assert item.page_kind == max(item.page_kind_probabilities, key=item.page_kind_probabilities.get)
    item = run(ExtractPipeline.from_crawler(crawler), item)
    assert item.page_type in ("article", "list")  # the extractor's own guess
    assert TYPE_OF_KIND.label_of(item.page_kind) == item.page_type


def test_a_failing_kind_model_costs_the_line_its_kind_not_its_type(checkpoint, kind_checkpoint):
    crawler = get_crawler(settings_dict=classifier_settings(checkpoint, kind_checkpoint))
    pipeline = ClassifyPipeline.from_crawler(crawler)

    def broken(*args):
        raise RuntimeError("kind model exploded")

    pipeline.kind_classifier.page_probabilities = broken
    item = run(pipeline, captured_item())
    assert item.page_type in ("article", "list") and item.page_type_score is not None
    assert (item.page_kind, item.page_kind_score) == (None, None)
    assert item.warnings == ["page_kind: RuntimeError: kind model exploded"]
    assert crawler.stats.get_value("pagesight/page_kind/failed") == 1
    assert "page_kind" not in item.provenance["checkpoints"]


def test_a_kind_checkpoint_without_kinds_stops_at_start_up(checkpoint):
    settings = classifier_settings(checkpoint, kind_checkpoint=checkpoint)  # article/list labels
    with pytest.raises(CheckpointError, match=r"labels \['list'\] are not page kinds"):
        ClassifyPipeline.from_crawler(get_crawler(settings_dict=settings))


def test_classifier_passes_uncaptured_items_through(checkpoint):
    crawler = get_crawler(settings_dict={"PAGESIGHT_CLASSIFIER_CHECKPOINT": str(checkpoint)})
    item = PageItem(url="http://a.example/x", site="a.example", status="error", error="http: HTTP 500")
    assert run(ClassifyPipeline.from_crawler(crawler), item).page_type is None


def test_missing_or_corrupt_checkpoint_stops_at_start_up(tmp_path):
    with pytest.raises(CheckpointError, match=r"nope\.pt"):
        ClassifyPipeline.from_crawler(
            get_crawler(settings_dict={"PAGESIGHT_CLASSIFIER_CHECKPOINT": str(tmp_path / "nope.pt")})
        )
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError):
        ClassifyPipeline.from_crawler(
            get_crawler(settings_dict={"PAGESIGHT_CLASSIFIER_CHECKPOINT": str(corrupt)})
        )


def test_forced_page_type_switches_the_classifier_off():
    with pytest.raises(NotConfigured):
        ClassifyPipeline.from_crawler(get_crawler(settings_dict={"PAGESIGHT_PAGE_TYPE": "list"}))


def test_extraction_fills_text_title_and_metadata():
    crawler = get_crawler(settings_dict={"PAGESIGHT_EXTRACTOR": "iawce", "PAGESIGHT_PAGE_TYPE": "article"})
    item = run(ExtractPipeline.from_crawler(crawler), captured_item())
    assert item.extractor == "iawce"
    assert "Paragraph 3 about the storm" in item.text
    assert "Contact us" not in item.text
    assert item.title == "Storm hits coast"
    assert item.language == "en"
    assert item.page_type == "article"  # the type extraction used, when nothing classified
    assert crawler.stats.get_value("pagesight/extract/ok") == 1
    assert item.provenance["extractor"] == {"name": "iawce", "version": PAGESIGHT_VERSION}
    assert item.warnings == []


def test_a_peer_extractor_runs_in_the_pipeline():
    crawler = get_crawler(settings_dict={"PAGESIGHT_EXTRACTOR": "trafilatura"})
    item = run(ExtractPipeline.from_crawler(crawler), captured_item())
    assert item.extractor == "trafilatura" and "Paragraph 3 about the storm" in item.text
    assert item.provenance["extractor"]["name"] == "trafilatura"
    assert item.provenance["extractor"]["version"] == importlib.metadata.version("trafilatura")


def test_the_default_ensemble_puts_its_quality_estimate_on_the_line():
    crawler = get_crawler(settings_dict={"PAGESIGHT_PAGE_TYPE": "article"})
    item = run(ExtractPipeline.from_crawler(crawler), captured_item())
    assert item.extractor == "ensemble" and "Paragraph 3 about the storm" in item.text
    assert "Contact us" not in item.text
    assert item.extraction_quality is not None and 0.0 <= item.extraction_quality <= 1.0
    # which quality estimate made the choice
    assert item.provenance["checkpoints"]["ensemble"] == short_hash(SHIPPED_CHECKPOINT)
    iawce = get_crawler(settings_dict={"PAGESIGHT_EXTRACTOR": "iawce", "PAGESIGHT_PAGE_TYPE": "article"})
    assert run(ExtractPipeline.from_crawler(iawce), captured_item()).extraction_quality is None


class Raising:
    def __init__(self, error):
        self.error = error
        self.name = "raising"

    def __call__(self, *args, **kwargs):
        raise self.error

    def extract(self, page):
        raise self.error


def test_a_raising_extractor_or_classifier_leaves_a_warning_not_a_lost_line(checkpoint):
    crawler = get_crawler(settings_dict={"PAGESIGHT_CLASSIFIER_CHECKPOINT": str(checkpoint)})
    classify, extract = ClassifyPipeline.from_crawler(crawler), ExtractPipeline.from_crawler(crawler)
    classify.classifier.predict_page = Raising(RuntimeError("CUDA out of memory\nsecond line"))
    extract.extractor = Raising(ValueError("no tree"))
    item = run(extract, run(classify, captured_item()))
    assert item.status == "ok" and item.error is None
    assert item.warnings == ["classify: RuntimeError: CUDA out of memory", "extract: ValueError: no tree"]
    assert crawler.stats.get_value("pagesight/classify/failed") == 1
    assert crawler.stats.get_value("pagesight/extract/failed") == 1


def test_an_empty_extraction_is_a_warning():
    crawler = get_crawler(settings_dict={"PAGESIGHT_PAGE_TYPE": "article"})
    item = run(ExtractPipeline.from_crawler(crawler), captured_item("<html><body></body></html>"))
    assert item.status == "ok" and item.error is None
    assert item.warnings == ["extract: ensemble found no main content"]


CUT_OFF_RENDER = (
    "<html><head><title>Storm hits coast</title></head><body><script src='/slow.js'></script></body></html>"
)


@pytest.mark.parametrize("cut_off", [True, False])
def test_a_render_cut_off_before_its_text_is_extracted_from_the_servers_bytes(cut_off):
    # The parser stopped at a script that never came: the render shows nothing of the
    # article, the server's bytes hold it. Only a page whose load timed out is read from
    # its bytes (a complete render that drops text is the page's own doing).
    item = captured_item(CUT_OFF_RENDER)
    item.capture.raw_html = ARTICLE.replace("coast", "c\u00f4te").encode("cp1252")
    item.capture.encoding = "cp1252"
    if cut_off:
        item.capture.warnings.append(PARTIAL_LOAD_WARNING)
    crawler = get_crawler(settings_dict={"PAGESIGHT_PAGE_TYPE": "article"})
    item = run(ExtractPipeline.from_crawler(crawler), item)
    if cut_off:
        assert "Paragraph 7 about the storm" in item.text and "c\u00f4te" in item.title
        assert item.warnings == [
            "extract: render cut off (0 of 118 words), extracted from the server's bytes"
        ]
        assert crawler.stats.get_value("pagesight/extract/from_sent_bytes") == 1
    else:
        assert item.text is None and item.warnings == ["extract: ensemble found no main content"]


def test_a_failing_render_check_leaves_a_warning_not_a_lost_line(monkeypatch):
    def broken(capture):
        raise LookupError("unknown encoding: x-broken")

    monkeypatch.setattr("pipelines.extract._sent_html_if_render_fell_short", broken)
    crawler = get_crawler(settings_dict={"PAGESIGHT_PAGE_TYPE": "article"})
    item = run(ExtractPipeline.from_crawler(crawler), captured_item())
    assert item.status == "ok" and item.text is None
    assert item.warnings == ["extract: LookupError: unknown encoding: x-broken"]
    assert crawler.stats.get_value("pagesight/extract/failed") == 1


def test_the_classifiers_type_of_a_cut_off_render_gives_way_to_the_bytes_html():
    # The screenshot of a render cut off before its text shows an empty page: whatever the
    # classifier called it, the bytes' page type comes from their HTML.
    item = captured_item(CUT_OFF_RENDER)
    item.capture.raw_html = ARTICLE.encode()
    item.capture.warnings.append(PARTIAL_LOAD_WARNING)
    item.page_type, item.page_type_score = "list", 0.91
    item.page_kind_probabilities = dict.fromkeys(page_kinds(), 1 / 7)
    item.page_kind, item.page_kind_score = "listing", 0.1429
    crawler = get_crawler()
    item = run(ExtractPipeline.from_crawler(crawler), item)
    assert item.page_type == "article" and item.page_type_score is None
    assert (item.page_kind, item.page_kind_score) == (None, None)  # read off the same render
    assert "Paragraph 7 about the storm" in item.text
    assert item.warnings == [
        "extract: render cut off (0 of 118 words), extracted from the server's bytes, "
        "page type from their HTML"
    ]


def test_a_cut_off_render_gives_no_kind_when_the_classifier_was_unsure_too():
    item = captured_item(CUT_OFF_RENDER)
    item.capture.raw_html = ARTICLE.encode()
    item.capture.warnings.append(PARTIAL_LOAD_WARNING)
    item.page_kind_probabilities = dict.fromkeys(page_kinds(), 1 / 7)  # no type: unsure
    item = run(ExtractPipeline.from_crawler(get_crawler()), item)
    assert item.page_type == "article" and "Paragraph 7 about the storm" in item.text
    assert (item.page_kind, item.page_kind_score, item.page_kind_probabilities) == (None, None, None)


def test_extraction_uses_the_classifiers_type():
    crawler = get_crawler()
    item = captured_item()
    item.page_type = "listing"  # a WCXB-style label maps to "list" through the label mapping
    run(ExtractPipeline.from_crawler(crawler), item)
    assert crawler.stats.get_value("pagesight/extract/list") == 1


def test_unknown_extractor_or_page_type_is_a_clear_error():
    with pytest.raises(ExtractorUnavailable, match="unknown extractor 'nope'"):
        ExtractPipeline.from_crawler(get_crawler(settings_dict={"PAGESIGHT_EXTRACTOR": "nope"}))
    with pytest.raises(ValueError, match="PAGESIGHT_PAGE_TYPE"):
        ExtractPipeline.from_crawler(get_crawler(settings_dict={"PAGESIGHT_PAGE_TYPE": "forum"}))


def test_scoring_without_gold_passes_items_through(tmp_path):
    crawler = get_crawler()
    pipeline = ScorePipeline.from_crawler(crawler)
    assert pipeline.evaluation is None
    assert run(pipeline, captured_item()).scores is None


def test_bad_gold_stops_the_crawl_at_start_up(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"url": "http://a.example/story", "text": "x"}\n{broken\n', encoding="utf-8")
    with pytest.raises(GoldFormatError, match="line 2"):
        ScorePipeline.from_crawler(get_crawler(settings_dict={"PAGESIGHT_GOLD": str(gold)}))


def write_gold(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        '{"url": "http://a.example/story", "site": "a", "page_type": "article", '
        '"text": "Paragraph 1 about the storm and the people who waited for it all night."}\n',
        encoding="utf-8",
    )
    return gold


def test_scores_and_the_report_written_when_the_spider_closes(tmp_path):
    crawler = get_crawler(
        settings_dict={
            "PAGESIGHT_REPORT_DIR": str(tmp_path / "report"),
            "PAGESIGHT_PAGE_TYPE": "article",
            "PAGESIGHT_GOLD": str(write_gold(tmp_path)),
        }
    )
    report = ReportExtension.from_crawler(crawler)
    extract, score = ExtractPipeline.from_crawler(crawler), ScorePipeline.from_crawler(crawler)
    assert report.evaluation is score.evaluation is not None
    item = run(score, run(extract, captured_item()))
    assert 0 < item.scores["word_f1"] < 1
    crawler.signals.send_catch_log(signals.spider_closed, spider=None, reason="finished")
    assert (tmp_path / "report" / "report.html").exists()
    assert crawler.stats.get_value("pagesight/score/pages") == 1


def test_the_demo_webs_gold_is_scored_when_it_starts(tmp_path):
    crawler = get_crawler()
    score = ScorePipeline.from_crawler(crawler)
    crawler.signals.send_catch_log(
        pagesight_signals.demo_web_started,
        seed_urls=["http://a.example/"],
        gold_path=str(write_gold(tmp_path)),
    )
    assert len(score.evaluation.gold) == 1


def test_a_raising_scorer_leaves_a_warning(tmp_path):
    crawler = get_crawler(settings_dict={"PAGESIGHT_GOLD": str(write_gold(tmp_path))})
    score = ScorePipeline.from_crawler(crawler)
    score.evaluation.score = Raising(KeyError("gold_url"))
    item = run(score, captured_item())
    assert item.warnings == ["score: KeyError: 'gold_url'"] and item.scores is None
