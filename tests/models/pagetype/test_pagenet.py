"""PageNet: layout inputs from boxes, the paper's schedule, calibration, training on a
tiny captured dataset, and checkpoints that keep the frozen trunk in the wheel."""

from __future__ import annotations

import hashlib
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image
from torch.nn.functional import cross_entropy

from models.common import efficientnet
from models.common.checkpoint import CheckpointError
from models.common.transform import SCREENSHOT_TRANSFORM
from models.pagetype.classifier import PageTypeClassifier, load_classifier, read_checkpoint
from models.pagetype.data import prepare_pages, read_manifests
from models.pagetype.labels import load_label_mapping
from models.pagetype.layout import (
    DOM_STATISTICS,
    FEATURES_VERSION,
    LAYOUT_STATISTICS,
    RASTER_CHANNELS,
    RASTER_HEIGHT,
    RASTER_WIDTH,
    STATISTICS_GROUPS,
    URL_STATISTICS,
    dom_statistics,
    layout_raster,
    layout_statistics,
    page_statistics,
    statistics_names,
    url_statistics,
)
from models.pagetype.model import PageNet, pagenet_args, trunk_keys
from models.pagetype.train import (
    FitConfig,
    PageNetConfig,
    PageNetEpochStats,
    branch_stack,
    epoch_learning_rate,
    expected_calibration_error,
    fit_fusion,
    fit_temperature,
    paper_learning_rate,
    selection_key,
    source_family,
    train_pagenet,
)
from tests.support.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "pagetype"

WIDTH = 1366


def box(tag, x, y, w, h, path, text_len=0, classes=()):
    return {
        "tag": tag,
        "id": "",
        "classes": list(classes),
        "path": path,
        "x": x,
        "y": y,
        "w": w,
        "h": h,
        "visible": True,
        "text_len": text_len,
    }


def list_boxes(items: int = 12) -> list[dict]:
    boxes = [box("ul", 0, 0, WIDTH, 40 * items, "/html/body/ul", text_len=30 * items)]
    for i in range(1, items + 1):
        li = f"/html/body/ul/li[{i}]"
        boxes.append(box("li", 0, 40 * (i - 1), WIDTH, 40, li, text_len=30, classes=("item",)))
        boxes.append(box("a", 0, 40 * (i - 1), 300, 20, li + "/a", text_len=30))
    return boxes


def article_boxes(paragraphs: int = 8) -> list[dict]:
    boxes = [
        box("article", 0, 0, 800, 200 * paragraphs + 60, "/html/body/article", text_len=600 * paragraphs)
    ]
    boxes.append(box("h1", 0, 0, 800, 60, "/html/body/article/h1", text_len=40))
    for i in range(1, paragraphs + 1):
        boxes.append(box("p", 0, 60 + 200 * (i - 1), 800, 200, f"/html/body/article/p[{i}]", text_len=600))
    return boxes


def card_grid_boxes(rows: int = 3, columns: int = 3) -> list[dict]:
    """A list page as a person sees it: a nav bar of links, then a grid of same-size
    cards, each a linked picture above a linked heading and a short excerpt."""
    boxes = [box("nav", 0, 0, WIDTH, 60, "/html/body/nav", text_len=60)]
    boxes += [box("a", 100 * i, 10, 90, 40, f"/html/body/nav/a[{i + 1}]", text_len=10) for i in range(6)]
    boxes.append(box("main", 0, 60, WIDTH, 420 * rows, "/html/body/main", text_len=150 * rows * columns))
    for row in range(rows):
        for column in range(columns):
            card = f"/html/body/main/div[{row * columns + column + 1}]"
            x, y = 40 + 440 * column, 80 + 420 * row
            boxes += [
                box("div", x, y, 400, 400, card, text_len=150),
                box("a", x, y, 400, 220, card + "/a"),
                box("img", x, y, 400, 220, card + "/a/img"),
                box("h3", x, y + 230, 400, 30, card + "/h3", text_len=40),
                box("a", x, y + 230, 400, 30, card + "/h3/a", text_len=40),
                box("p", x, y + 270, 400, 100, card + "/p", text_len=110),
            ]
    return boxes


def article_with_nav_boxes() -> list[dict]:
    """An article as a person sees it: the same nav bar, then one tall column of text."""
    boxes = [box("nav", 0, 0, WIDTH, 60, "/html/body/nav", text_len=60)]
    boxes += [box("a", 100 * i, 10, 90, 40, f"/html/body/nav/a[{i + 1}]", text_len=10) for i in range(6)]
    return boxes + [
        {**b, "y": b["y"] + 60, "path": b["path"].replace("body", "body/main")} for b in article_boxes(12)
    ]


def test_layout_statistics_see_a_card_grid_and_a_text_column():
    grid = dict(zip(LAYOUT_STATISTICS, layout_statistics(card_grid_boxes(), WIDTH), strict=True))
    article = dict(zip(LAYOUT_STATISTICS, layout_statistics(article_with_nav_boxes(), WIDTH), strict=True))
    # nine same-size cards, each a link with a picture and a heading, in three columns
    assert grid["card_group"] == pytest.approx(np.log1p(9))
    assert grid["card_group_columns"] == pytest.approx(np.log1p(3))
    assert grid["card_group_image_share"] == grid["card_group_heading_share"] == 1.0
    assert grid["card_groups"] == pytest.approx(np.log1p(1))
    # the cards cover 9 * 400 * 400 of the page's 1366 x 1320 px (shorter than 3 screens)
    assert grid["card_group_area_share"] == pytest.approx(9 * 400 * 400 / (WIDTH * 1320))
    assert grid["images_first_screens"] == pytest.approx(np.log1p(9))
    assert article["card_group"] == article["card_group_area_share"] == article["card_groups"] == 0.0
    # the paragraphs are same-size siblings with text, but no cards
    assert article["same_size_group"] == pytest.approx(np.log1p(12))
    # the article's text block is its one column: nearly all the page's height and text
    assert article["text_block_height_share"] > 0.9 and article["text_block_text_share"] > 0.9
    assert grid["text_block_height_share"] == grid["text_block_text_share"] == 0.0
    # links: the nav bar is all links, the article's text below the first screen none
    assert article["first_screen_link_share"] > article["lower_link_share"] == 0.0
    # below the first screen: the last row's cards (40 of 150 characters in links) and
    # the excerpts of the row the screen's edge cuts
    assert grid["lower_link_share"] == pytest.approx(3 * 40 / (3 * 150 + 3 * 110))
    assert article["headings_per_screen"] < grid["headings_per_screen"]


def test_a_stack_of_teasers_of_uneven_height_is_one_card_group():
    boxes = []
    for i, (width, height) in enumerate([(800, 100), (799.5, 140), (801, 120), (790, 110), (806, 130)]):
        teaser = f"/html/body/main/div[{i + 1}]"
        y = 150 * i
        boxes += [
            box("div", 0, y, width, height, teaser, text_len=120),
            box("h2", 0, y, width, 30, teaser + "/h2", text_len=40),
            box("a", 0, y, 300, 30, teaser + "/h2/a", text_len=40),
        ]
    # a sibling of another width (the sidebar) is no member, however many links it holds
    boxes += [box("div", 820, 0, 300, 130, "/html/body/main/div[6]", text_len=120)]
    boxes += [box("h2", 820, 0, 300, 30, "/html/body/main/div[6]/h2", text_len=40)]
    boxes += [box("a", 820, 0, 300, 30, "/html/body/main/div[6]/h2/a", text_len=40)]
    statistics = dict(zip(LAYOUT_STATISTICS, layout_statistics(boxes, WIDTH), strict=True))
    assert statistics["card_group"] == pytest.approx(np.log1p(5))
    assert statistics["card_group_columns"] == pytest.approx(np.log1p(1))
    assert statistics["card_group_heading_share"] == 1.0 and statistics["card_group_image_share"] == 0.0


def test_layout_statistics_of_an_empty_page_are_zero():
    np.testing.assert_array_equal(layout_statistics([], WIDTH), 0.0)


def test_layout_raster_marks_elements_by_kind_and_place():
    raster = layout_raster(list_boxes(), WIDTH)
    assert raster.shape == (len(RASTER_CHANNELS), RASTER_HEIGHT, RASTER_WIDTH)
    link, item = RASTER_CHANNELS.index("link"), RASTER_CHANNELS.index("item")
    # 20 px links every 40 px, 300 of 1366 px wide: stripes in the left cells only
    assert 0.3 < raster[link, :, 0].mean() < 0.8 and not raster[link, :, -1].any()
    assert raster[item].all()
    assert not raster[RASTER_CHANNELS.index("heading")].any()


def test_dom_statistics_tell_a_link_list_from_an_article():
    listing = dict(zip(DOM_STATISTICS, dom_statistics(list_boxes(), WIDTH), strict=True))
    article = dict(zip(DOM_STATISTICS, dom_statistics(article_boxes(), WIDTH), strict=True))
    assert listing["link_text_share"] == pytest.approx(1.0)
    assert article["link_text_share"] == 0.0
    assert listing["largest_sibling_group_with_links"] == pytest.approx(torch.tensor(12.0).log1p().item())
    assert article["long_paragraphs"] > listing["long_paragraphs"] == 0.0
    assert listing["class_item"] > 0 and article["class_item"] == 0.0


def test_class_hints_count_teasers_and_pagination():
    teasers = [
        box("h2", 0, 100 * i, 600, 40, f"/html/body/main/div[{i}]/h2", text_len=40, classes=["entry-title"])
        for i in range(1, 7)
    ]
    links = [
        box("a", 0, 100 * i, 600, 40, f"/html/body/main/div[{i}]/h2/a", text_len=40) for i in range(1, 7)
    ]
    pager = [box("nav", 0, 800, 600, 40, "/html/body/main/nav", text_len=10, classes=["page-numbers"])]
    statistics = dict(zip(DOM_STATISTICS, dom_statistics(teasers + links + pager, WIDTH), strict=True))
    assert statistics["linked_headings"] == pytest.approx(np.log1p(6))
    assert statistics["linked_heading_share"] == 1.0
    assert statistics["largest_linked_heading_group"] == pytest.approx(np.log1p(6))
    assert statistics["class_pagination"] == pytest.approx(np.log1p(1))
    assert statistics["class_post"] == pytest.approx(np.log1p(6))


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://a.example/category/food/", {"url_taxonomy": 1.0, "url_ends_with_slash": 1.0}),
        ("https://a.example/blog/page/3", {"url_pagination": 1.0, "url_taxonomy": 0.0}),
        ("https://a.example/news/", {"url_section": 1.0}),
        ("https://a.example/2024/05/how-to-bake-bread", {"url_dated": 1.0, "url_slug_words": np.log1p(3)}),
        ("https://a.example/", {"url_root": 1.0, "url_depth": 0.0}),
        ("https://a.example/search?q=x", {"url_query": 1.0, "url_root": 0.0}),
    ],
)
def test_url_statistics_read_the_address(url, expected):
    statistics = dict(zip(URL_STATISTICS, url_statistics(url), strict=True))
    for name, value in expected.items():
        assert statistics[name] == pytest.approx(value), name


def page_features_digest(groups: tuple[str, ...], html: str = "") -> str:
    """A hash of what models.pagetype.layout computes for a list page and an article."""
    digest = hashlib.sha256()
    for boxes, url in (
        (list_boxes(), "https://a.example/tag/x/"),
        (list_boxes(1), "https://a.example/2024/01/a-post"),
    ):
        digest.update(np.round(page_statistics(boxes, WIDTH, url, groups, html), 5).tobytes())
        digest.update(layout_raster(boxes, WIDTH).tobytes())
    return digest.hexdigest()[:16]


def test_the_features_version_is_bumped_when_what_they_compute_changes():
    """When this fails, the page-type features changed: bump FEATURES_VERSION, pin the new
    hashes, and re-measure (or retrain) the shipped page-type checkpoints. The markup
    group (added beside the others, which it leaves as they were) is pinned on its own."""
    boxes_only = page_features_digest(("dom", "layout", "url"))
    markup = page_features_digest(("markup",), (FIXTURES / "markup-page.html").read_text(encoding="utf-8"))
    assert (FEATURES_VERSION, boxes_only, markup) == (1, "f66c677848b4ee54", "d9f8b8a7858c6d53")
    assert set(STATISTICS_GROUPS) == {"dom", "layout", "url", "markup"}


def test_page_statistics_are_the_groups_asked_for_in_order():
    url = "https://a.example/tag/x/"
    dom, layout, address = (
        dom_statistics(list_boxes(), WIDTH),
        layout_statistics(list_boxes(), WIDTH),
        url_statistics(url),
    )
    # the default (checkpoints that record no groups): the DOM, then the address
    np.testing.assert_array_equal(page_statistics(list_boxes(), WIDTH, url), np.concatenate([dom, address]))
    assert statistics_names() == DOM_STATISTICS + URL_STATISTICS
    every = page_statistics(list_boxes(), WIDTH, url, ("url", "layout", "dom"))
    np.testing.assert_array_equal(every, np.concatenate([dom, layout, address]))
    assert statistics_names(("url", "layout", "dom")) == DOM_STATISTICS + LAYOUT_STATISTICS + URL_STATISTICS
    with pytest.raises(ValueError, match="non-empty subset"):
        page_statistics(list_boxes(), WIDTH, url, ("dom", "pixels"))
    with pytest.raises(ValueError, match="non-empty subset"):
        statistics_names(())


def test_paper_learning_rate_warms_up_then_decays():
    assert paper_learning_rate(0) == pytest.approx(1e-5)
    assert paper_learning_rate(15) == pytest.approx(4e-4)
    assert paper_learning_rate(7) == pytest.approx(1e-5 + (4e-4 - 1e-5) * 7 / 15)
    assert paper_learning_rate(17) == pytest.approx((4e-4 - 1e-5) * 0.8**2 + 1e-5)


def test_schedules_and_epoch_selection():
    paper, constant = FitConfig(), FitConfig(schedule="constant", learning_rate=1e-3, select="loss")
    assert epoch_learning_rate(paper, 15) == paper_learning_rate(15)
    assert epoch_learning_rate(constant, 0) == epoch_learning_rate(constant, 40) == 1e-3
    sharp = PageNetEpochStats(1, 1e-3, 0.1, val_loss=0.40, val_balanced_accuracy=0.90)
    calm = PageNetEpochStats(2, 1e-3, 0.1, val_loss=0.20, val_balanced_accuracy=0.85)
    assert max([sharp, calm], key=lambda h: selection_key(paper, h)) is sharp
    assert max([sharp, calm], key=lambda h: selection_key(constant, h)) is calm
    with pytest.raises(ValueError, match="schedule must be one of"):
        epoch_learning_rate(FitConfig(schedule="cosine"), 0)
    with pytest.raises(ValueError, match="select must be one of"):
        selection_key(FitConfig(select="accuracy"), calm)


def test_statistics_branch_width_is_an_argument():
    args = pagenet_args(2, ["statistics"], statistics_width=64)
    model = PageNet(2, args["inputs"], statistics_width=args["statistics_width"], pretrained=False)
    assert model.fc.in_features == 64
    with pytest.raises(ValueError, match="statistics_width must be positive"):
        pagenet_args(2, ["statistics"], statistics_width=0)


def test_temperature_scaling_cools_overconfident_logits():
    torch.manual_seed(0)
    targets = torch.randint(0, 2, (400,))
    # right 75% of the time but always ~100% sure
    predicted = torch.where(torch.rand(400) < 0.75, targets, 1 - targets)
    logits = torch.nn.functional.one_hot(predicted, 2).float() * 12
    temperature = fit_temperature(logits, targets)
    assert temperature > 3
    assert expected_calibration_error(torch.softmax(logits / temperature, 1), targets) < 0.05
    assert expected_calibration_error(torch.softmax(logits, 1), targets) > 0.2


def _png(color) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (96, 160), color).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    """Lists (blue links, link boxes) and articles (black text, paragraphs), with roles."""
    root = tmp_path_factory.mktemp("captures")
    lines = []
    for n in range(24):
        label = "listing" if n % 2 else "article"
        role = ("train", "validation", "heldout")[n % 3] if n >= 6 else "train"
        (root / f"{n}.png").write_bytes(_png((40, 60, 200) if n % 2 else (20, 20, 20)))
        boxes = list_boxes(10 + n % 5) if n % 2 else article_boxes(4 + n % 5)
        (root / f"{n}.json").write_text(json.dumps(boxes))
        lines.append(
            {
                "image": f"{n}.png",
                "boxes": f"{n}.json",
                "label": label,
                "site": f"s{n}.example",
                "role": role,
                "source": "styled-theme" if n >= 18 else "wcxb",
            }
        )
    (root / "manifest.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return root


@pytest.fixture(scope="module")
def trained(dataset, tmp_path_factory):
    torch.set_num_threads(1)
    config = PageNetConfig(
        data=[dataset],
        out=tmp_path_factory.mktemp("out") / "pagenet.pt",
        inputs=["screenshot", "layout", "statistics"],
        fit=FitConfig(epochs=2, batch_size=4, progress=False),
    )
    return train_pagenet(config)


def test_train_pagenet_writes_a_calibrated_checkpoint_without_the_trunk(trained):
    checkpoint, card, evaluation = trained
    assert evaluation.metrics.pages == 6 and evaluation.temperature > 0
    # held-out pages 8, 11, 14, 17 (wcxb) and 20, 23 (styled), also scored apart
    assert {family: m.pages for family, m in evaluation.by_source.items()} == {"styled": 2, "wcxb": 4}
    assert source_family("demo-11") == "demo" and source_family("wcxb") == "wcxb"
    meta, state = read_checkpoint(checkpoint)
    assert meta.args["trunk"]["sha256"] == efficientnet.WEIGHTS_SHA256
    assert meta.args["statistics_groups"] == ["dom", "url"]  # the default
    assert not any(key.startswith("trunk.") for key in state)
    assert all(t.dtype == torch.float16 for t in state.values() if t.is_floating_point())
    assert set(json.loads(card.read_text())["sees"]) == {"screenshot", "layout", "statistics"}
    classifier = load_classifier(checkpoint)
    assert float(classifier.model.temperature) == pytest.approx(evaluation.temperature, rel=1e-3)  # fp16
    label, score = classifier.predict_page(_png((40, 60, 200)), list_boxes(), "https://s1.example/news/")
    assert label in ("article", "list") and 0.5 <= score <= 1.0
    with pytest.raises(ValueError, match="reads element boxes"):
        classifier.predict([Image.new("RGB", (96, 160))])


def test_late_fusion_weighs_each_branchs_own_logits():
    model = PageNet(2, ["screenshot", "statistics"], pretrained=False, fusion="late")
    assert not list(model.screenshot.parameters()) and not hasattr(model, "fc")
    assert model.heads["screenshot"][1].in_features == 2 * 1152
    hidden, statistics = torch.randn(3, 1152, 7, 7), torch.randn(3, len(statistics_names()))
    model.eval()
    model.fusion_weight.copy_(torch.tensor([0.5, 2.0]))
    model.fusion_bias.copy_(torch.tensor([0.1, -0.1]))
    expected = (
        0.5 * model.branch_logits("screenshot", hidden, None, statistics)
        + 2.0 * model.branch_logits("statistics", hidden, None, statistics)
        + torch.tensor([0.1, -0.1])
    )
    assert torch.allclose(model.logits_from_hidden(hidden, None, statistics), expected, atol=1e-5)
    with pytest.raises(ValueError, match="fusion must be one of"):
        pagenet_args(2, ["statistics"], fusion="middle")


@pytest.fixture(scope="module")
def trained_late(dataset, tmp_path_factory):
    torch.set_num_threads(1)
    config = PageNetConfig(
        data=[dataset],
        out=tmp_path_factory.mktemp("out") / "pagenet-late.pt",
        inputs=["screenshot", "statistics"],
        fusion="late",
        screenshot_dropout=0.5,
        screenshot_learning_rate=1e-3,
        statistics_groups=["dom", "layout", "url"],
        fit=FitConfig(epochs=3, batch_size=4, progress=False),
    )
    return train_pagenet(config)


def test_late_fusion_checkpoint_trains_no_pixel_layer_and_stores_its_weights(trained_late, dataset):
    checkpoint, card, _ = trained_late
    meta, state = read_checkpoint(checkpoint)
    assert meta.args["fusion"] == "late" and "fc.weight" not in state
    assert (meta.args["dropout"], meta.args["screenshot_dropout"]) == (0.3, 0.5)
    assert meta.config["screenshot_learning_rate"] == 1e-3
    assert {k for k in state if k.startswith("screenshot.")} == {"screenshot.mean", "screenshot.std"}
    assert float(state["screenshot.std"].min()) > 0 and float(state["screenshot.mean"].abs().max()) > 0
    metrics = json.loads(card.read_text())["metrics"]
    assert set(metrics["branches"]) == {"screenshot", "statistics"}
    report = metrics["fusion"]["branches"]
    assert sum(b["share"] for b in report.values()) == pytest.approx(1.0)
    assert report["screenshot"]["weight"] == pytest.approx(float(state["fusion_weight"][0]), rel=1e-3)
    sees = json.loads(card.read_text())["sees"]
    assert "frozen" in sees["screenshot"] and "same-size" in sees["statistics"]
    # the statistics groups it reads are recorded, and the crawl computes those
    assert meta.args["statistics_groups"] == ["dom", "layout", "url"]
    assert state["statistics.mean"].shape == (
        len(DOM_STATISTICS) + len(LAYOUT_STATISTICS) + len(URL_STATISTICS),
    )
    assert all(0.0 <= b["fused_differs_from_alone"] <= 1.0 for b in report.values())
    classifier = load_classifier(checkpoint)
    label, score = classifier.predict_page(_png((40, 60, 200)), list_boxes(), "https://s1.example/news/")
    assert label in ("article", "list") and 0.5 <= score <= 1.0
    assert classifier.statistics_groups == ("dom", "layout", "url")
    # the fitted weights fit validation pages at least as well as the plain sum
    model = classifier.model
    assert [model.heads[name][0].p for name in model.inputs] == [0.5, 0.3]
    pages = prepare_pages(
        read_manifests([dataset]),
        load_label_mapping(None),
        model.trunk,
        progress=False,
        statistics=model.statistics_groups,
    )
    val = pages.subset("validation")
    stacked = branch_stack(model, pages, val, torch.device("cpu"), 4)
    fitted = stacked @ model.fusion_weight + model.fusion_bias
    plain = stacked.sum(dim=-1)
    targets = pages.targets[val]
    assert cross_entropy(fitted, targets) <= cross_entropy(plain, targets) + 1e-3
    fit_fusion(model, pages, torch.device("cpu"), 4, with_bias=False)
    assert not model.fusion_bias.any()
    without_bias = stacked @ model.fusion_weight
    assert cross_entropy(fitted, targets) <= cross_entropy(without_bias, targets) + 1e-3


def test_checkpoint_refuses_another_trunk_and_an_altered_wheel(trained, tmp_path, monkeypatch):
    model = PageNet(2, ["screenshot"], pretrained=False)
    assert trunk_keys(model) and all(k.startswith("trunk.") for k in trunk_keys(model))
    checkpoint = trained[0]
    payload = torch.load(checkpoint, weights_only=True)
    payload["args"]["trunk"]["sha256"] = "f" * 64
    other = tmp_path / "other.pt"
    torch.save(payload, other)
    with pytest.raises(CheckpointError, match=r"trained on trunk weights efficientnet-lite0-57934424\.pth"):
        load_classifier(other)
    efficientnet.pretrained_weights.cache_clear()
    monkeypatch.setattr(efficientnet, "WEIGHTS_SHA256", "0" * 64)
    with pytest.raises(CheckpointError, match=r"not the pinned .*pip install --force-reinstall"):
        load_classifier(checkpoint)
    efficientnet.pretrained_weights.cache_clear()


def test_a_statistics_model_reads_only_the_screenshot_header():
    model = PageNet(2, ["statistics"], pretrained=False)
    classifier = PageTypeClassifier(
        model, "pagenet", ["article", "list"], SCREENSHOT_TRANSFORM, torch.device("cpu"), {}, Path("x.pt")
    )
    assert (classifier.needs_pixels, classifier.needs_boxes) == (False, True)
    png = _png((40, 60, 200))
    cut = png[: len(png) // 2]  # the header and the start of the pixel data only
    label, score = classifier.predict_page(cut, list_boxes(), "https://s1.example/news/")
    assert label in ("article", "list") and 0.5 <= score <= 1.0
    pixels = PageTypeClassifier(
        PageNet(2, ["screenshot"], pretrained=False),
        "pagenet",
        ["article", "list"],
        SCREENSHOT_TRANSFORM,
        torch.device("cpu"),
        {},
        Path("x.pt"),
    )
    with pytest.raises(OSError):
        pixels.predict_page(cut, [], "https://s1.example/news/")


def test_classify_benchmark_scores_the_split_role_asked_for(trained_late, dataset):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from classify import evaluation_records  # benchmarks/classify.py

    classifier = load_classifier(trained_late[0])
    records = read_manifests([dataset])
    for role in ("validation", "heldout"):
        chosen = evaluation_records(classifier, records, role)
        assert len(chosen) == 6
        assert {record.site for record in chosen} == {
            f"s{n}.example" for n in range(6, 24) if ("train", "validation", "heldout")[n % 3] == role
        }
    assert len(evaluation_records(classifier, records, "all")) == 24
