"""The element classifier: features from boxes, the exported tree ensemble, training on
marked captures, the extractor and its bad-input paths (no browser)."""

from __future__ import annotations

import hashlib
import json
import logging
import subprocess
import sys

import numpy as np
import pytest
from scrapy.settings import Settings

from models.common.checkpoint import CheckpointError
from models.common.trees import ESTIMATE, LOG_ODDS
from models.common.versions import denoiser_version
from models.element.data import (
    AUTO,
    FEATURES_VERSION,
    TrainingPage,
    apply_marks,
    cleaning_type,
    collect_rows,
    labeled_pages,
    load_rows,
    page_rows,
    read_capture_feed,
    read_marks,
    save_rows,
)
from models.element.model import TreeEnsemble
from models.element.train import (
    TrainConfig,
    element_versions,
    train_element_classifier,
    training_rows,
    write_element_card,
)
from pipelines.extraction import Page, build_extractor
from pipelines.extraction.dom import parse_html
from pipelines.extraction.element_classifier import KNOWN_FEATURES, ElementClassifierExtractor, element_text
from pipelines.extraction.element_features import (
    ELEMENT_FEATURES,
    ORIGINAL_FEATURES,
    PAGE_FEATURES,
    candidates,
    feature_matrix,
    page_relative,
    tag_weight,
    word_weight,
)
from pipelines.urls import url_key
from tests.support.element_pages import MAIN_PATH, layout_boxes, layout_page, write_marked_layout
from tests.support.paths import ROOT

SIDEBAR = "/html/body/div[2]/div[2]"


@pytest.fixture
def marked_layout(tmp_path):
    return write_marked_layout(tmp_path)


def features_of(html: str, path: str) -> dict[str, float]:
    found, rows = feature_matrix(parse_html(html), layout_boxes(html), KNOWN_FEATURES, 768)
    index = [c.path for c in found].index(path)
    return dict(zip(KNOWN_FEATURES, rows[index], strict=True))


def test_the_original_seventeen_features_in_order():
    assert len(ORIGINAL_FEATURES) == 17
    assert ORIGINAL_FEATURES[0] == "relative_points_count" and ORIGINAL_FEATURES[-1] == "imgs_per_symbol"


def test_word_and_tag_weights():
    assert word_weight("post-body") == 1.0
    assert word_weight("site-footer") == 0.0
    assert word_weight("sidebar") == 0.5
    assert (tag_weight("p"), tag_weight("nav"), tag_weight("x-widget")) == (1.0, 0.0, 0.5)


def test_features_of_the_story_and_the_sidebar():
    html = layout_page(1)
    story, side = features_of(html, MAIN_PATH), features_of(html, SIDEBAR)
    assert story["contains_h1"] == 1.0 and side["contains_h1"] == 0.0
    assert story["relative_text_length"] > 0.6 > side["relative_text_length"]
    assert story["link_text_density"] == 0.0 and side["link_text_density"] == 1.0
    assert story["in_the_middle_of_width"] == 1.0 and side["in_the_middle_of_width"] == 0.0
    assert story["relative_width"] == pytest.approx(760 / 1200)
    assert story["relative_points_count"] > 0.0
    assert story["depth"] == 2.0 and story["in_first_screen"] == 1.0
    assert 0.0 < story["text_length_vs_html_length"] < 1.0


def test_the_feature_matrix_has_a_row_per_candidate_in_the_asked_order():
    html = layout_page(1)
    found, rows = feature_matrix(parse_html(html), layout_boxes(html), ["depth", "contains_h1"], 768)
    assert rows.shape == (len(found), 2)
    story = [c.path for c in found].index(MAIN_PATH)
    assert rows[story].tolist() == [2.0, 1.0]
    bare = "<html><body><p>Text without a box.</p></body></html>"
    found, rows = feature_matrix(parse_html(bare), [], KNOWN_FEATURES, 768)
    assert found == [] and rows.shape == (0, len(KNOWN_FEATURES))


def test_page_relative_features_place_the_story_among_its_candidates():
    html = layout_page(1)
    story, wrap = features_of(html, MAIN_PATH), features_of(html, "/html/body/div[2]")
    paragraph, side = features_of(html, MAIN_PATH + "/p[1]"), features_of(html, SIDEBAR)
    assert story["depth_from_core"] == 0.0 and story["unlinked_share_of_core"] == 1.0
    assert wrap["depth_from_core"] == -1.0 and paragraph["depth_from_core"] == 1.0
    assert side["unlinked_share_of_core"] == 0.0
    assert wrap["text_rank"] < story["text_rank"] < paragraph["text_rank"]
    assert story["link_density_rank"] == 0.0 < side["link_density_rank"]
    assert wrap["area_rank"] < story["area_rank"]


def test_page_relative_ranks_and_core_on_a_hand_made_matrix():
    names = list(ELEMENT_FEATURES)
    rows = np.zeros((4, len(names)))
    column = {name: rows[:, i] for i, name in enumerate(names)}
    column["relative_text_length"][:] = [1.0, 0.9, 0.5, 0.1]
    column["relative_area"][:] = [1.0, 0.5, 0.5, 0.1]
    column["link_text_density"][:] = [0.3, 0.1, 0.0, 1.0]
    column["unlinked_text_share"][:] = [1.0, 0.6, 0.55, 0.0]
    column["depth"][:] = [0, 1, 2, 1]
    relative = dict(zip(PAGE_FEATURES, page_relative(rows).T, strict=True))
    np.testing.assert_allclose(relative["text_rank"], [0.0, 0.25, 0.5, 0.75])
    np.testing.assert_allclose(relative["area_rank"], [0.0, 0.25, 0.25, 0.75])
    np.testing.assert_allclose(relative["link_density_rank"], [0.5, 0.25, 0.0, 0.75])
    np.testing.assert_allclose(relative["depth_from_core"], [-2, -1, 0, -1])
    np.testing.assert_allclose(relative["unlinked_share_of_core"], [1 / 0.55, 0.6 / 0.55, 1.0, 0.0])


def test_candidates_are_boxed_elements_with_text():
    html = layout_page(2).replace("</body>", "<script>var x = 1;</script><div></div></body>")
    root = parse_html(html)
    boxes = layout_boxes(html)
    paths = [c.path for c in candidates(root, boxes)]
    assert MAIN_PATH in paths
    assert not any(p.endswith("script") for p in paths)
    assert "/html/body/div[4]" not in paths  # the empty div
    assert candidates(root, [b for b in boxes if b["path"] != MAIN_PATH]) != []
    assert MAIN_PATH not in [c.path for c in candidates(root, [b for b in boxes if b["path"] != MAIN_PATH])]


@pytest.mark.parametrize("estimator", ["GradientBoostingClassifier", "HistGradientBoostingClassifier"])
def test_tree_ensemble_matches_sklearn_and_survives_a_round_trip(tmp_path, estimator):
    sklearn = pytest.importorskip("sklearn.ensemble")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 3))
    y = (x[:, 0] + 0.5 * x[:, 1] > 0.3).astype(int)
    model = getattr(sklearn, estimator)(max_depth=3, learning_rate=0.3, random_state=0).fit(x, y)
    names = list(ORIGINAL_FEATURES[:3])
    ensemble = TreeEnsemble.from_sklearn(model, names, {"viewport_height": 768})
    np.testing.assert_allclose(ensemble.probabilities(x), model.predict_proba(x)[:, 1], atol=1e-9)
    loaded = TreeEnsemble.load(ensemble.save(tmp_path / "m.npz"), KNOWN_FEATURES)
    np.testing.assert_allclose(loaded.raw_scores(x), ensemble.raw_scores(x))
    assert loaded.features == names and loaded.meta["viewport_height"] == 768


@pytest.mark.parametrize("estimator", ["GradientBoostingRegressor", "HistGradientBoostingRegressor"])
def test_a_regressor_copies_into_a_tree_ensemble_of_estimates(tmp_path, estimator):
    sklearn = pytest.importorskip("sklearn.ensemble")
    rng = np.random.default_rng(1)
    x = rng.normal(size=(400, 3))
    y = np.clip(0.5 + 0.4 * x[:, 0] - 0.2 * x[:, 1] ** 2, 0.0, 1.0)
    model = getattr(sklearn, estimator)(max_depth=3, learning_rate=0.3, random_state=0).fit(x, y)
    ensemble = TreeEnsemble.from_sklearn(model, list(ORIGINAL_FEATURES[:3]), {"viewport_height": 768})
    np.testing.assert_allclose(ensemble.raw_scores(x), model.predict(x), atol=1e-9)
    loaded = TreeEnsemble.load(ensemble.save(tmp_path / "r.npz"), KNOWN_FEATURES)
    assert loaded.output == ESTIMATE
    assert int(np.argmax(loaded.raw_scores(x))) == int(np.argmax(model.predict(x)))
    np.testing.assert_allclose(loaded.confidence(np.array([-0.2, 0.4, 1.3])), [0.0, 0.4, 1.0])


def one_leaf_ensemble(feature: str) -> TreeEnsemble:
    """A one-tree, one-leaf ensemble (value 0.5) over a single named feature."""
    return TreeEnsemble(
        *(np.array([-1]),) * 2,
        np.array([0]),
        np.array([0.0]),
        np.array([0.5]),
        np.array([0]),
        baseline=0.0,
        rate=1.0,
        depth=0,
        features=[feature],
    )


def test_a_checkpoint_without_output_holds_log_odds(tmp_path):
    ensemble = one_leaf_ensemble("depth")
    path = ensemble.save(tmp_path / "old.npz")
    with np.load(path) as data:
        arrays = dict(data)
    meta = json.loads(str(arrays.pop("meta")))
    del meta["output"]
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)
    loaded = TreeEnsemble.load(path, KNOWN_FEATURES)
    assert loaded.output == LOG_ODDS
    assert loaded.confidence(np.array([0.5]))[0] == pytest.approx(1 / (1 + np.exp(-0.5)))


def test_checkpoint_errors_are_one_clear_line(tmp_path):
    with pytest.raises(CheckpointError, match=r"no-such\.npz not found; train one with"):
        TreeEnsemble.load(tmp_path / "no-such.npz")
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="unreadable"):
        TreeEnsemble.load(broken)
    other = tmp_path / "other.npz"
    np.savez(other, meta=np.array(json.dumps({"format": "something-else"})))
    with pytest.raises(CheckpointError, match="not an element classifier checkpoint"):
        TreeEnsemble.load(other)
    ensemble = one_leaf_ensemble("font_size")
    with pytest.raises(CheckpointError, match=r"features this code does not compute \(font_size\)"):
        TreeEnsemble.load(ensemble.save(tmp_path / "font.npz"), KNOWN_FEATURES)
    ensemble = one_leaf_ensemble("depth")
    ensemble.output = "odds-squared"
    with pytest.raises(CheckpointError, match=r"unknown output 'odds-squared'"):
        TreeEnsemble.load(ensemble.save(tmp_path / "odd.npz"), KNOWN_FEATURES)


def test_train_on_marks_then_the_extractor_picks_the_story_of_an_unmarked_page(marked_layout, tmp_path):
    pytest.importorskip("sklearn")
    feed, marks = marked_layout
    captures = read_capture_feed(feed)
    pages = labeled_pages(captures, read_marks(marks))
    assert [p.capture.url for p in pages] == [f"http://site.test/p{i}" for i in range(3)]
    rows = collect_rows(pages, list(KNOWN_FEATURES), 768)
    config = TrainConfig.from_setting("shipped", list(KNOWN_FEATURES), 50, 0, 768)
    result = train_element_classifier(rows, config)
    checkpoint = result.model.save(tmp_path / "model.npz")

    extractor = ElementClassifierExtractor(ElementClassifierExtractor.Options(checkpoint))
    html, boxes = captures[3].read()
    choice = extractor.choose(Page(html, captures[3].url, boxes=boxes))
    assert choice is not None and choice.path == MAIN_PATH
    found = extractor.extract(Page(html, captures[3].url, boxes=boxes))
    assert found is not None and found.extractor == "element-classifier"
    assert found.text == element_text(html, boxes, MAIN_PATH)
    assert found.text.split("\n\n")[0] == parse_html(html).find(".//h1").text
    card = json.loads(
        write_element_card(
            checkpoint, result.model, "scrapy train-element-classifier", element_versions()
        ).read_text()
    )
    assert (card["family"], card["versions"]["denoiser"], card["versions"]["features"]) == (
        "element",
        denoiser_version(),
        FEATURES_VERSION,
    )
    assert (
        card["checkpoint"]["format"] == "pagesight-element-classifier" and card["metrics"] == result.metrics
    )


def test_graded_targets_are_each_elements_word_f1_against_the_gold(marked_layout, tmp_path, monkeypatch):
    feed, _ = marked_layout
    captures = read_capture_feed(feed)
    html, boxes = captures[0].read()
    story = element_text(html, boxes, MAIN_PATH)
    marks = tmp_path / "text-marks.jsonl"
    marks.write_text(
        json.dumps({"url": captures[0].url, "text": story, "path": MAIN_PATH})
        + "\n"
        + json.dumps({"url": captures[1].url, "text": "", "path": MAIN_PATH})
        + "\n",
        encoding="utf-8",
    )
    graded, binary = collect_rows(labeled_pages(captures, read_marks(marks)), list(KNOWN_FEATURES), 768)
    target = dict(zip(graded.paths, graded.targets.tolist(), strict=True))
    assert target[MAIN_PATH] == pytest.approx(1.0)
    assert 0.5 < target["/html/body/div[2]"] < 1.0  # the wrapper adds the sidebar's words
    assert 0.0 < target[MAIN_PATH + "/p[1]"] < 0.5  # one of four paragraphs
    assert target[SIDEBAR] == 0.0
    assert binary.targets.tolist() == [float(path == MAIN_PATH) for path in binary.paths]
    cache = tmp_path / "rows.npz"
    save_rows(cache, [graded, binary], list(KNOWN_FEATURES), 768)
    reloaded = load_rows(cache, list(KNOWN_FEATURES), 768)
    assert reloaded is not None
    np.testing.assert_array_equal(reloaded[0].targets, graded.targets)
    with monkeypatch.context() as patched:  # rows computed by other denoiser rules are not reused
        patched.setattr("models.element.data.denoiser_fingerprint", lambda: "other rules")
        assert load_rows(cache, list(KNOWN_FEATURES), 768) is None
    config = TrainConfig.from_setting("hgb-f1-page", list(KNOWN_FEATURES), 3, 0, 768)
    x, y = training_rows([graded], config)
    assert x.shape[1] == len(ORIGINAL_FEATURES) + len(PAGE_FEATURES) and y[0] == pytest.approx(1.0)
    assert y[1:].max() > 0.5  # the wrapper, a near miss, keeps its word F1


def test_a_mark_on_a_page_with_a_gold_text_grades_against_the_marked_element(marked_layout):
    feed, _ = marked_layout
    capture = read_capture_feed(feed)[0]
    html, boxes = capture.read()
    # The page's gold says the sidebar is the content; a person marked the story.
    page = TrainingPage(capture, None, AUTO, element_text(html, boxes, SIDEBAR) or "")
    mark = {"url": capture.url, "text": element_text(html, boxes, MAIN_PATH), "path": MAIN_PATH}
    marked = apply_marks([page], {url_key(capture.url): mark})[0]
    rows = page_rows(marked, list(KNOWN_FEATURES), 768)
    assert rows is not None and rows.paths[rows.positive] == MAIN_PATH
    target = dict(zip(rows.paths, rows.targets.tolist(), strict=True))
    assert target[MAIN_PATH] == pytest.approx(1.0) and target[SIDEBAR] == 0.0


def test_an_f1_regressor_trained_on_graded_marks_picks_the_story(marked_layout, tmp_path):
    pytest.importorskip("sklearn")
    feed, _ = marked_layout
    captures = read_capture_feed(feed)
    marks = tmp_path / "text-marks.jsonl"
    marks.write_text(
        "".join(
            json.dumps({"url": c.url, "text": element_text(*c.read(), MAIN_PATH), "path": MAIN_PATH}) + "\n"
            for c in captures[:3]
        ),
        encoding="utf-8",
    )
    rows = collect_rows(labeled_pages(captures, read_marks(marks)), list(KNOWN_FEATURES), 768)
    config = TrainConfig.from_setting("hgb-f1-page", list(KNOWN_FEATURES), 50, 0, 768)
    model = train_element_classifier(rows, config).model
    assert model.output == ESTIMATE
    checkpoint = model.save(tmp_path / "model.npz")
    extractor = ElementClassifierExtractor(ElementClassifierExtractor.Options(checkpoint))
    html, boxes = captures[3].read()
    choice = extractor.choose(Page(html, captures[3].url, boxes=boxes))
    assert choice is not None and choice.path == MAIN_PATH and 0.0 <= choice.probability <= 1.0


def test_a_mark_whose_element_is_gone_is_left_out(marked_layout, caplog):
    feed, marks = marked_layout
    page = labeled_pages(read_capture_feed(feed), read_marks(marks))[0]
    page.main_path = "/html/body/div[9]"
    with caplog.at_level(logging.WARNING):
        assert page_rows(page, list(KNOWN_FEATURES), 768) is None
    assert "its main element /html/body/div[9] (person) is not a boxed element with text" in caplog.text
    assert element_text(layout_page(0), [], "/html/body/div[9]") is None
    assert element_text(layout_page(0), [], "not an xpath ((") is None


def test_extractor_returns_none_with_a_reason_on_bad_pages(tmp_path, caplog):
    extractor = build_extractor("element-classifier")
    boxes = layout_boxes(layout_page(0))
    with caplog.at_level(logging.INFO):
        assert extractor.extract(Page(layout_page(0), "http://a.test/1")) is None
        assert extractor.extract(Page("", "http://a.test/2", boxes=boxes)) is None
        assert (
            extractor.extract(
                Page("<html><head><title>x</title></head></html>", "http://a.test/3", boxes=boxes)
            )
            is None
        )
    assert "no element boxes for http://a.test/1" in caplog.text
    assert "http://a.test/2 has no body" in caplog.text
    missing = ElementClassifierExtractor(ElementClassifierExtractor.Options(tmp_path / "none.npz"))
    with caplog.at_level(logging.WARNING):
        assert missing.extract(Page(layout_page(0), "http://a.test/4", boxes=boxes)) is None
    assert "none.npz not found" in caplog.text


def test_from_settings_fails_at_start_up_on_a_missing_checkpoint(tmp_path):
    with pytest.raises(CheckpointError, match=r"gone\.npz not found"):
        ElementClassifierExtractor.from_settings(
            Settings({"PAGESIGHT_ELEMENT_CLASSIFIER_CHECKPOINT": str(tmp_path / "gone.npz")})
        )


@pytest.mark.e2e
def test_predict_element_command_renders_and_picks_the_story(marked_layout, tmp_path):
    pytest.importorskip("sklearn")
    feed, marks = marked_layout
    rows = collect_rows(labeled_pages(read_capture_feed(feed), read_marks(marks)), list(KNOWN_FEATURES), 768)
    config = TrainConfig.from_setting("shipped", list(KNOWN_FEATURES), 50, 0, 768)
    model = train_element_classifier(rows, config).model.save(tmp_path / "model.npz")
    page = tmp_path / "unseen.html"
    page.write_text(layout_page(7), encoding="utf-8")
    empty = tmp_path / "empty.html"
    empty.write_text("", encoding="utf-8")

    def predict(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "scrapy", "predict-element", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )

    found = predict(str(page), "--model", str(model))
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert answer["path"] == MAIN_PATH and answer["box"]["w"] > 500 and 0 < answer["probability"] <= 1
    assert answer["text"].split("\n\n")[0] == parse_html(layout_page(7)).find(".//h1").text
    nothing = predict(str(empty), "--model", str(model), "--format", "text")
    assert nothing.returncode == 1 and "no element to choose" in nothing.stderr
    no_model = predict(str(page), "--model", str(tmp_path / "none.npz"))
    assert no_model.returncode != 0 and "none.npz not found; train one with" in no_model.stderr
    no_file = predict(str(tmp_path / "missing.html"), "--model", str(model))
    assert no_file.returncode != 0 and "not an http(s) URL and no such file" in no_file.stderr


def test_training_pages_are_cleaned_for_the_extractors_page_type():
    assert [cleaning_type(t) for t in ("listing", "collection", "list")] == ["list"] * 3
    assert [cleaning_type(t) for t in ("article", "product", "forum")] == ["article"] * 3


def element_features_digest() -> str:
    """A hash of every element feature on fixed pages, as an article and as a list."""
    digest = hashlib.sha256()
    for seed in range(4):
        html = layout_page(seed)
        for page_type in ("article", "list"):
            found, rows = feature_matrix(parse_html(html), layout_boxes(html), KNOWN_FEATURES, 768, page_type)
            digest.update(json.dumps([c.path for c in found]).encode())
            digest.update(np.round(rows, 5).tobytes())
    return digest.hexdigest()[:16]


def test_the_features_version_is_bumped_when_what_they_compute_changes():
    """When this fails, the element features changed: bump FEATURES_VERSION, pin the new
    hash, and re-measure (or retrain) the shipped element classifier."""
    assert (FEATURES_VERSION, element_features_digest()) == (1, "e127111b734faf07")
