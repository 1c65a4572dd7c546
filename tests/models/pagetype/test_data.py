"""Dataset manifests, label mappings, split roles and the screenshot transform."""

from __future__ import annotations

import io
import json
from collections import Counter

import numpy as np
import pytest
import torch
from PIL import Image

from models.common.splits import HELDOUT, TRAIN, VALIDATION, load_split
from models.common.transform import (
    IMAGENET_MEAN,
    IMAGENET_STD,
    ScreenshotTransform,
    open_screenshot,
    screenshot_transform,
)
from models.pagetype.data import ManifestError, read_manifest, read_manifests, record_roles
from models.pagetype.labels import LabelMappingError, load_label_mapping, shipped_label_mappings

WCXB_TYPES = ["article", "listing", "collection", "forum", "product", "documentation", "service"]


def write_dataset(folder, lines):
    """A dataset folder with png/a.png, png/b.png and a manifest of ``lines``
    (dicts are written as JSON, strings as they are)."""
    (folder / "png").mkdir(parents=True, exist_ok=True)
    for name in ("a", "b"):
        Image.new("RGB", (8, 8), "white").save(folder / "png" / f"{name}.png")
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines)
    (folder / "manifest.jsonl").write_text(text + "\n", encoding="utf-8")
    return folder


# --- manifests ---------------------------------------------------------------------------


def test_manifest_records_resolve_images_and_normalize_sites(tmp_path):
    folder = write_dataset(
        tmp_path,
        [
            {
                "image": "png/a.png",
                "label": "listing",
                "site": "WWW.Example.com",
                "url": "u",
                "source": "wcxb",
            },
            {"image": "png/b.png", "label": "article", "site": "news.example.org"},
        ],
    )
    records = read_manifest(folder)
    assert [r.site for r in records] == ["example.com", "news.example.org"]
    assert records[0].image == (tmp_path / "png" / "a.png").resolve() and records[0].image.is_file()
    assert (records[0].label, records[0].url, records[0].source) == ("listing", "u", "wcxb")
    assert (records[1].url, records[1].source) == ("", "")


def test_several_manifests_concatenate(tmp_path):
    first = write_dataset(tmp_path / "one", [{"image": "png/a.png", "label": "article", "site": "a.test"}])
    second = write_dataset(tmp_path / "two", [{"image": "png/a.png", "label": "list", "site": "b.test"}])
    records = read_manifests([first, second])
    assert [(r.site, r.label) for r in records] == [("a.test", "article"), ("b.test", "list")]
    assert records[0].image != records[1].image


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ['{"image": "png/a.png", "label": "article", "site": "a.test"}', "{not json"],
            r"manifest.jsonl:2: not JSON",
        ),
        ([{"image": "png/a.png", "site": "a.test"}], "missing or empty label"),
        (
            ['{"image": "png/gone.png", "label": "article", "site": "a.test"}'],
            "image not found: .*gone.png",
        ),
        (["[1, 2]"], "expected a JSON object"),
        ([], "lists no screenshots"),
    ],
)
def test_bad_manifests_are_reported_with_their_line(tmp_path, lines, message):
    write_dataset(tmp_path, lines)
    with pytest.raises(ManifestError, match=message):
        read_manifest(tmp_path)


def test_missing_manifest_is_reported(tmp_path):
    with pytest.raises(ManifestError, match="no dataset manifest at"):
        read_manifest(tmp_path / "nowhere")


# --- label mappings ----------------------------------------------------------------------


def test_default_mapping_is_the_papers_two_classes():
    mapping = load_label_mapping()
    assert mapping.labels == ("article", "list")
    assert {raw: mapping.label_of(raw) for raw in [*WCXB_TYPES, "list"]} == {
        "article": "article",
        "listing": "list",
        "collection": "list",
        "forum": "article",
        "product": "article",
        "documentation": "article",
        "service": "article",
        "list": "list",
    }
    assert mapping.index_of("collection") == 1


def test_three_and_seven_class_mappings_load_the_same_way():
    assert set(shipped_label_mappings()) >= {"article-list", "article-list-other", "wcxb-7"}
    three = load_label_mapping("article-list-other")
    assert three.labels == ("article", "list", "other")
    assert [three.label_of(raw) for raw in ("forum", "listing", "article", "list")] == [
        "other",
        "list",
        "article",
        "list",
    ]
    seven = load_label_mapping("wcxb-7")
    assert list(seven.labels) == WCXB_TYPES
    assert [seven.index_of(raw) for raw in WCXB_TYPES] == list(range(7))


def test_mappings_come_from_files_and_dicts(tmp_path):
    spec = {"labels": ["news", "hub"], "map": {"article": "news", "listing": "hub"}}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(spec))
    from_file, from_dict = load_label_mapping(path), load_label_mapping(spec)
    assert from_file.name == "mine" and from_file.labels == from_dict.labels == ("news", "hub")
    assert from_file.index_of("listing") == from_dict.index_of("listing") == 1


def test_uncovered_labels_and_bad_mappings_are_refused(tmp_path):
    mapping = load_label_mapping("wcxb-7")
    with pytest.raises(LabelMappingError, match=r"does not cover dataset labels \['list', 'video'\]"):
        mapping.check_covers(["article", "video", "list"])
    with pytest.raises(LabelMappingError, match="'video' is not covered"):
        mapping.index_of("video")
    with pytest.raises(LabelMappingError, match="map to labels not in"):
        load_label_mapping({"labels": ["a"], "map": {"x": "b"}})
    with pytest.raises(LabelMappingError, match="duplicate labels"):
        load_label_mapping({"labels": ["a", "a"]})
    with pytest.raises(LabelMappingError, match=r"label mapping not found: nope.*article-list"):
        load_label_mapping("nope")
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(LabelMappingError, match="not readable JSON"):
        load_label_mapping(broken)


# --- site-disjoint splits ----------------------------------------------------------------


def test_record_roles_come_from_the_one_split_or_the_manifest(tmp_path):
    split = load_split()
    heldout, train = split.domains(HELDOUT)[0], split.domains(TRAIN)[0]
    folder = write_dataset(
        tmp_path,
        [
            {"image": "png/a.png", "label": "article", "site": f"www.{heldout}"},
            {"image": "png/a.png", "label": "article", "site": train},
            {"image": "png/b.png", "label": "article", "site": train, "role": "validation"},
            {"image": "png/b.png", "label": "listing", "site": "generated.test"},
        ],
    )
    assert record_roles(read_manifest(folder)) == [HELDOUT, TRAIN, VALIDATION, None]
    bad = write_dataset(tmp_path / "bad", [{"image": "png/a.png", "label": "x", "site": "s", "role": "test"}])
    with pytest.raises(ManifestError, match="role must be one of"):
        record_roles(read_manifest(bad))


# --- the screenshot transform ------------------------------------------------------------


def banded_page(width: int, height: int, top: int) -> Image.Image:
    """White for the first ``top`` rows, black below."""
    image = Image.new("RGB", (width, height), "black")
    image.paste((255, 255, 255), (0, 0, width, top))
    return image


def test_transform_uses_the_top_square_only():
    tall = banded_page(100, 400, top=100)
    tensor = screenshot_transform(tall, 32, grayscale=True)
    assert tensor.shape == (1, 32, 32) and tensor.dtype == torch.float32
    assert torch.allclose(tensor, torch.ones(1, 32, 32))  # white → (1 - 0.5) / 0.5
    assert torch.equal(tensor, screenshot_transform(tall.crop((0, 0, 100, 100)), 32, True))


def test_short_pages_are_padded_with_white_at_the_bottom():
    short = banded_page(100, 50, top=0)  # all black, half a square high
    tensor = screenshot_transform(short, 20, grayscale=True)
    assert torch.allclose(tensor[0, :8], torch.full((8, 20), -1.0))
    assert torch.allclose(tensor[0, 12:], torch.ones(8, 20))


def test_rgb_transform_uses_imagenet_normalization():
    tensor = screenshot_transform(Image.new("RGBA", (40, 60), (255, 255, 255, 255)), 16, grayscale=False)
    assert tensor.shape == (3, 16, 16)
    expected = [(1 - m) / s for m, s in zip(IMAGENET_MEAN, IMAGENET_STD, strict=False)]
    assert torch.allclose(tensor[:, 0, 0], torch.tensor(expected))


def test_open_screenshot_decodes_only_the_top_square_identically(tmp_path):
    rng = np.random.default_rng(0)
    tall = Image.fromarray(rng.integers(0, 256, (900, 120, 3), dtype=np.uint8))
    buffer = io.BytesIO()
    tall.save(buffer, "PNG")
    png = buffer.getvalue()
    (tmp_path / "tall.png").write_bytes(png)
    for source in (png, tmp_path / "tall.png"):
        top = open_screenshot(source)
        assert top.size == (120, 120)
        assert np.array_equal(np.asarray(top), np.asarray(tall.crop((0, 0, 120, 120))))
    wide = Image.new("RGB", (120, 50), "red")
    buffer = io.BytesIO()
    wide.save(buffer, "PNG")
    assert open_screenshot(buffer.getvalue()).size == (120, 50)


def test_transform_spec_round_trips_and_refuses_other_transforms():
    transform = ScreenshotTransform(224, grayscale=True)
    spec = transform.to_dict()
    assert ScreenshotTransform.from_dict(spec) == transform
    assert Counter(spec) == Counter(json.loads(json.dumps(spec)))
    with pytest.raises(ValueError, match=r"differs .* in mean"):
        ScreenshotTransform.from_dict({**spec, "mean": [0.4]})
    with pytest.raises(ValueError, match=r"differs .* in name"):
        ScreenshotTransform.from_dict({**spec, "name": "center-crop"})
    with pytest.raises(ValueError, match="needs input_size and grayscale"):
        ScreenshotTransform.from_dict({"name": "top-square"})
