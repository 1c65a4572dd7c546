"""Self-describing checkpoints: round trip, compact storage, and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from PIL import Image
from scrapy.settings import Settings

from models.common.card import CARD_FIELDS, card_path
from models.common.checkpoint import CheckpointError, content_hash
from models.common.transform import ScreenshotTransform
from models.pagetype.classifier import (
    CheckpointMeta,
    PageTypeClassifier,
    load_classifier,
    read_checkpoint,
    save_checkpoint,
    write_page_type_card,
)
from models.pagetype.layout import FEATURES_VERSION
from models.pagetype.model import MODELS, LeNet5, LeNet5Model, model_spec
from tests.support.project_settings import pagesight_settings

INPUT_SIZE = 32


def lenet_meta(**changes) -> CheckpointMeta:
    meta = CheckpointMeta(
        model="lenet5",
        args={"num_classes": 2, "input_size": INPUT_SIZE, "in_channels": 1},
        labels=["article", "list"],
        transform=ScreenshotTransform(INPUT_SIZE, grayscale=True).to_dict(),
        config={"epochs": 1},
        metrics={"test": {"accuracy": 0.5}},
        split={"test_sites": ["a.test"]},
    )
    for key, value in changes.items():
        setattr(meta, key, value)
    return meta


@pytest.fixture
def saved(tmp_path) -> tuple[Path, LeNet5]:
    torch.manual_seed(0)
    model = LeNet5(input_size=INPUT_SIZE).eval()
    return save_checkpoint(tmp_path / "lenet5.pt", model, lenet_meta()), model


def screenshots(count: int) -> list[Image.Image]:
    rng = np.random.default_rng(1)
    return [Image.fromarray(rng.integers(0, 256, (90, 60, 3), dtype=np.uint8)) for _ in range(count)]


def rewrite(path: Path, **changes) -> Path:
    payload = torch.load(path, weights_only=True)
    for key, value in changes.items():
        if value is None:
            del payload[key]
        else:
            payload[key] = value
    torch.save(payload, path)
    return path


def test_classifier_from_settings_loads_the_named_architecture_once(saved):
    path, _ = saved
    settings = Settings(pagesight_settings(PAGESIGHT_CLASSIFIER_CHECKPOINT=str(path)))
    classifier = PageTypeClassifier.from_settings(settings)
    assert (classifier.checkpoint, classifier.model_name, str(classifier.device)) == (path, "lenet5", "cpu")
    assert model_spec("lenet5") is LeNet5Model and set(MODELS) == {"lenet5", "resnet101", "pagenet"}
    settings.set("PAGESIGHT_CLASSIFIER_CHECKPOINT", str(path.with_name("missing.pt")))
    with pytest.raises(CheckpointError, match=r"missing\.pt"):
        PageTypeClassifier.from_settings(settings)


def test_round_trip_keeps_metadata_and_predictions(saved):
    path, model = saved
    classifier = load_classifier(path)
    assert classifier.model_name == "lenet5" and classifier.labels == ["article", "list"]
    assert classifier.transform == ScreenshotTransform(INPUT_SIZE, True)
    assert classifier.metadata["split"] == {"test_sites": ["a.test"]}
    images = screenshots(5)
    with torch.no_grad():
        expected = torch.softmax(model(torch.stack([classifier.transform(i) for i in images])), dim=1)
    probabilities = classifier.predict_proba(images)
    assert torch.allclose(probabilities, expected, atol=2e-3)  # fp16 storage
    predictions = classifier.predict(images, batch_size=2)
    assert predictions == classifier.predict(images)
    assert [label for label, _ in predictions] == [classifier.labels[k] for k in expected.argmax(1)]
    assert all(0.5 <= p <= 1.0 for _, p in predictions)
    assert classifier.predict([]) == []


def test_lenet_weights_are_stored_in_fp16(saved):
    path, model = saved
    _, state = read_checkpoint(path)
    assert {t.dtype for t in state.values()} == {torch.float16}
    parameters = sum(p.numel() for p in model.parameters())
    assert path.stat().st_size < parameters * 2.2


def test_missing_checkpoint(tmp_path):
    with pytest.raises(CheckpointError, match=f"checkpoint not found: {tmp_path / 'none.pt'}"):
        load_classifier(tmp_path / "none.pt")
    for unset in (None, ""):
        with pytest.raises(CheckpointError, match="no classifier checkpoint path given"):
            load_classifier(unset)


@pytest.mark.parametrize("cut", [0, 100, 0.5])
def test_truncated_checkpoint(saved, cut):
    path, _ = saved
    content = path.read_bytes()
    path.write_bytes(content[: int(len(content) * cut) if isinstance(cut, float) else cut])
    reason = "the file is empty" if cut == 0 else "it is truncated or not a checkpoint"
    with pytest.raises(CheckpointError, match=f"is unreadable: {reason}") as error:
        load_classifier(path)
    assert "weights_only" not in str(error.value) and not str(error.value).endswith(":")


def test_garbage_file(tmp_path):
    path = tmp_path / "garbage.pt"
    path.write_bytes(b"this is not a checkpoint at all" * 20)
    with pytest.raises(CheckpointError, match="unreadable"):
        load_classifier(path)


def test_plain_state_dict_is_not_a_checkpoint(tmp_path):
    path = tmp_path / "state.pt"
    torch.save(LeNet5(input_size=INPUT_SIZE).state_dict(), path)
    with pytest.raises(CheckpointError, match="not a page-type classifier checkpoint"):
        load_classifier(path)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"labels": None}, "lacks labels"),
        ({"state_dict": None, "split": None}, "lacks split, state_dict"),
        ({"format_version": 99}, "format_version 99"),
        ({"model": "vgg16"}, "unknown model 'vgg16'"),
        ({"labels": ["article", "list", "other"]}, r"3 labels .* but num_classes 2"),
        (
            {"args": {"num_classes": 2, "input_size": 64, "in_channels": 1}},
            "weights do not match LeNet-5",
        ),
        (
            {"args": {"num_classes": 2, "input_size": INPUT_SIZE, "depth": 9}},
            "cannot build LeNet-5",
        ),
        (
            {"transform": {**ScreenshotTransform(INPUT_SIZE, True).to_dict(), "mean": [0.1]}},
            "in mean",
        ),
        (
            {"transform": ScreenshotTransform(INPUT_SIZE, False).to_dict()},
            "grayscale=False does not fit",
        ),
        ({"config": ["epochs"]}, "config must be objects"),
        ({"state_dict": {"weight": [1, 2]}}, "not a mapping of tensors"),
    ],
)
def test_malformed_or_mismatched_checkpoints(saved, changes, message):
    path, _ = saved
    with pytest.raises(CheckpointError, match=message):
        load_classifier(rewrite(path, **changes))


def test_extra_weights_do_not_match(saved):
    path, _ = saved
    state = torch.load(path, weights_only=True)["state_dict"]
    with pytest.raises(CheckpointError, match="Unexpected key"):
        load_classifier(rewrite(path, state_dict={**state, "extra.weight": torch.zeros(2)}))


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-CUDA error")
def test_cuda_without_cuda_is_a_checkpoint_error(saved):
    path, _ = saved
    with pytest.raises(CheckpointError, match="CUDA is not available"):
        load_classifier(path, device="cuda")


def test_metadata_must_be_plain_data(tmp_path):
    with pytest.raises(ValueError, match="plain JSON data"):
        save_checkpoint(
            tmp_path / "x.pt", LeNet5(input_size=INPUT_SIZE), lenet_meta(config={"out": Path("x")})
        )
    assert not list(tmp_path.iterdir())


def test_model_card_repeats_metadata_with_file_facts(saved):
    path, _ = saved
    written = write_page_type_card(path, lenet_meta(), "scrapy train-classifier", {"train": {"pages": 3}}, {})
    assert written == card_path(path) == path.with_name("lenet5.card.json")
    card = json.loads(written.read_text())
    assert list(card)[: len(CARD_FIELDS)] == list(CARD_FIELDS)
    assert (card["family"], card["command"], card["versions"]["denoiser"]) == (
        "pagetype",
        "scrapy train-classifier",
        None,
    )
    assert card["versions"]["features"] == FEATURES_VERSION
    assert card["checkpoint"]["file"] == "lenet5.pt"
    assert card["checkpoint"]["bytes"] == path.stat().st_size
    assert card["checkpoint"]["sha256"] == content_hash(path)
    assert (card["model"], card["labels"], card["data"]) == (
        "lenet5",
        ["article", "list"],
        {"train": {"pages": 3}},
    )
