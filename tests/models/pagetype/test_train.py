"""Training on a tiny generated screenshot set: loss goes down, the checkpoint round-trips,
and `scrapy train-classifier` drives it."""

from __future__ import annotations

import json
import random
import sys
from argparse import Namespace
from pathlib import Path

import pytest
import torch
from PIL import Image, ImageDraw
from scrapy.cmdline import execute
from scrapy.exceptions import UsageError
from torchvision.models import resnet101

import models.common.transform
from models.common.transform import open_screenshot
from models.pagetype.classifier import load_classifier, read_checkpoint
from models.pagetype.data import ManifestError, read_manifest
from models.pagetype.labels import LabelMappingError
from models.pagetype.model import PretrainedWeightsError
from models.pagetype.train import TrainConfig, train_classifier
from tests.support.paths import ROOT

SITES = 12
PAGES_PER_SITE = 3
SITE_ROLES = ("train", "train", "validation", "heldout")


def article_page(rng: random.Random, width: int = 96, height: int = 200) -> Image.Image:
    """Header bar over one column of text lines."""
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 10), fill=(rng.randint(0, 90),) * 3)
    for y in range(16, height - 4, 6):
        draw.rectangle((8, y, 8 + rng.randint(width // 2, width - 16), y + 2), fill=(40, 40, 40))
    return image


def list_page(rng: random.Random, width: int = 96, height: int = 200) -> Image.Image:
    """Header bar over a grid of cards with thumbnails."""
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, width, 10), fill=(rng.randint(0, 90),) * 3)
    for top in range(16, height - 30, 34):
        for left in range(4, width - 28, 31):
            draw.rectangle((left, top, left + 26, top + 28), outline=(120, 120, 120))
            draw.rectangle((left + 2, top + 2, left + 24, top + 16), fill=(rng.randint(60, 200),) * 3)
    return image


def make_dataset(
    folder: Path, sites: int = SITES, labels: tuple[str, ...] = ("listing", "article", "forum")
) -> Path:
    """``sites`` sites of three pages each; one page in three is a list page. Their roles
    (the sites are not WCXB's) follow SITE_ROLES."""
    rng = random.Random(0)
    (folder / "png").mkdir(parents=True)
    lines = []
    for site in range(sites):
        for page in range(PAGES_PER_SITE):
            label = labels[(site + page) % len(labels)]
            draw = list_page if label in ("listing", "list") else article_page
            name = f"png/{site}-{page}.png"
            draw(rng).save(folder / name)
            lines.append(
                {
                    "image": name,
                    "label": label,
                    "site": f"site{site}.test",
                    "url": f"http://site{site}.test/{page}",
                    "source": "synthetic",
                    "role": SITE_ROLES[site % len(SITE_ROLES)],
                }
            )
    (folder / "manifest.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    return make_dataset(tmp_path_factory.mktemp("screens"))


def config(dataset: Path, out: Path, **changes) -> TrainConfig:
    settings = {
        "data": [dataset],
        "out": out,
        "input_size": 32,
        "epochs": 6,
        "lr": 1e-3,
        "device": "cpu",
        "progress": False,
        **changes,
    }
    return TrainConfig(**settings)


def reload_test_metrics(checkpoint: Path, dataset: Path) -> list[list[int]]:
    """Confusion matrix of the reloaded classifier on the checkpoint's test sites."""
    classifier = load_classifier(checkpoint)
    test_sites = set(classifier.metadata["split"]["test_sites"])
    records = [r for r in read_manifest(dataset) if r.site in test_sites]
    predicted = classifier.predict([open_screenshot(r.image) for r in records], batch_size=4)
    mapping = classifier.metadata["config"]["label_mapping"]
    confusion = [[0, 0], [0, 0]]
    for record, (label, _) in zip(records, predicted, strict=False):
        true = mapping["map"].get(record.label, record.label)
        confusion[classifier.labels.index(true)][classifier.labels.index(label)] += 1
    return confusion


def test_lenet_training_lowers_loss_and_round_trips(dataset, tmp_path):
    result = train_classifier(config(dataset, tmp_path / "lenet5.pt"))
    losses = [epoch.train_loss for epoch in result.history]
    assert len(losses) == 6 and losses[-1] < losses[0]
    assert result.checkpoint.is_file() and result.confusion_png.read_bytes()[:4] == b"\x89PNG"
    assert result.test.pages == sum(result.data["test"]["classes"].values())
    assert reload_test_metrics(result.checkpoint, dataset) == result.test.confusion

    meta, _ = read_checkpoint(result.checkpoint)
    assert meta.metrics["best_epoch"] == result.best_epoch
    assert meta.metrics["val_accuracy"] == max(e.val_accuracy for e in result.history)
    assert meta.config["backbone"] == "trained end to end" and meta.config["lr"] == 1e-3
    train_sites = (
        {f"site{s}.test" for s in range(SITES)} - set(meta.split["val_sites"]) - set(meta.split["test_sites"])
    )
    assert train_sites and not set(meta.split["val_sites"]) & set(meta.split["test_sites"])
    card = json.loads(result.model_card.read_text())
    assert card["metrics"] == meta.metrics and card["split"] == meta.split
    assert card["data"]["train"]["sites"] == len(train_sites)
    assert "accuracy" in result.report() and str(result.checkpoint) in result.report()


def test_same_seed_same_model(dataset, tmp_path):
    first = train_classifier(config(dataset, tmp_path / "a.pt", epochs=2))
    second = train_classifier(config(dataset, tmp_path / "b.pt", epochs=2))
    assert [e.train_loss for e in first.history] == [e.train_loss for e in second.history]
    _, state_a = read_checkpoint(first.checkpoint)
    _, state_b = read_checkpoint(second.checkpoint)
    assert all(torch.equal(state_a[name], state_b[name]) for name in state_a)


def test_resnet_trains_its_head_on_a_weights_file_backbone(tmp_path):
    dataset = make_dataset(tmp_path / "screens", sites=4)
    weights = tmp_path / "resnet101-test.pth"
    torch.save(resnet101(weights=None).state_dict(), weights)
    result = train_classifier(
        config(
            dataset,
            tmp_path / "resnet101.pt",
            model="resnet101",
            weights=str(weights),
            epochs=2,
            input_size=16,
        )
    )
    meta, state = read_checkpoint(result.checkpoint)
    assert meta.config["backbone"] == result.backbone == "ImageNet backbone resnet101-test.pth"
    assert meta.transform["grayscale"] is False and state["head.2.weight"].shape == (2, 1024)
    assert reload_test_metrics(result.checkpoint, dataset) == result.test.confusion


def test_training_and_inference_share_the_transform(dataset, tmp_path, monkeypatch):
    calls: list[tuple[int, bool]] = []
    original = models.common.transform.screenshot_transform

    def spy(image, input_size, grayscale, rgb):
        calls.append((input_size, grayscale))
        return original(image, input_size, grayscale, rgb)

    monkeypatch.setattr(models.common.transform, "screenshot_transform", spy)
    result = train_classifier(config(dataset, tmp_path / "lenet5.pt", epochs=1))
    assert calls == [(32, True)] * SITES * PAGES_PER_SITE
    load_classifier(result.checkpoint).predict([open_screenshot(next(dataset.glob("png/*.png")))])
    assert len(calls) == SITES * PAGES_PER_SITE + 1


def test_missing_imagenet_weights_stop_before_training(dataset, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))
    with pytest.raises(PretrainedWeightsError, match=r"resnet101-63fe2227\.pth"):
        train_classifier(config(dataset, tmp_path / "r.pt", model="resnet101"))
    assert not (tmp_path / "r.pt").exists()


def test_bad_training_input_is_refused(dataset, tmp_path):
    with pytest.raises(ValueError, match="--weights applies to models with a pretrained backbone"):
        train_classifier(config(dataset, tmp_path / "x.pt", weights="w.pth"))
    with pytest.raises(ValueError, match="epochs must be at least 1"):
        train_classifier(config(dataset, tmp_path / "x.pt", epochs=0))
    with pytest.raises(LabelMappingError, match=r"does not cover dataset labels \['forum'\]"):
        train_classifier(
            config(
                dataset,
                tmp_path / "x.pt",
                labels={"labels": ["article", "list"], "map": {"listing": "list"}},
            )
        )
    small = make_dataset(tmp_path / "small", sites=2)
    with pytest.raises(ManifestError, match="the val split is empty: no page's site has the validation role"):
        train_classifier(config(small, tmp_path / "x.pt"))


def test_command_usage_errors(tmp_path):
    command = _load_command()
    options = Namespace(
        data=[str(tmp_path / "nowhere")],
        out=str(tmp_path / "x.pt"),
        model="lenet5",
        labels=None,
        epochs=1,
        batch_size=16,
        lr=2e-4,
        input_size=32,
        device="cpu",
        seed=0,
        weights=None,
        class_weights="none",
    )
    with pytest.raises(UsageError, match="no dataset manifest"):
        command.run([], options)
    with pytest.raises(UsageError, match="unexpected arguments"):
        command.run(["extra"], options)


def test_late_fusion_options_without_late_fusion_are_a_usage_error():
    command = _load_command()
    late_only = {"screenshot_dropout": None, "screenshot_lr": 0.0, "screenshot_weight_decay": None}
    options = Namespace(model="pagenet", fusion="early", no_fusion_bias=False, **late_only)
    with pytest.raises(UsageError, match="--screenshot-lr: only with --fusion late"):
        command.run([], options)


def test_scrapy_train_classifier_command(dataset, tmp_path, monkeypatch, capsys):
    out = tmp_path / "cli" / "lenet5.pt"
    monkeypatch.chdir(ROOT)
    with pytest.raises(SystemExit) as exit_status:
        execute(
            [
                "scrapy",
                "train-classifier",
                "--data",
                str(dataset),
                "--out",
                str(out),
                "--epochs",
                "2",
                "--input-size",
                "32",
                "--device",
                "cpu",
                "--class-weights",
                "balanced",
            ]
        )
    captured = capsys.readouterr()
    assert exit_status.value.code == 0, captured.err
    assert "confusion matrix" in captured.out and "epoch 2/2" in captured.err
    meta, _ = read_checkpoint(out)
    assert meta.config["class_weights"] == "balanced" and meta.config["epochs"] == 2
    assert out.with_name("lenet5.card.json").is_file() and out.with_name("lenet5.confusion.png").is_file()


def _load_command():
    from importlib import import_module

    return import_module("crawler.commands.train-classifier").Command()


@pytest.mark.parametrize(
    "argv", [["scrapy", "--data", "D x"], ["scrapy", "train-classifier", "--data", "D x"]]
)
def test_the_card_records_the_command_as_typed(monkeypatch, argv):
    """Scrapy pops the command's name off sys.argv before running it: the card puts it back."""
    from importlib import import_module

    monkeypatch.setattr(sys, "argv", argv)
    command_line = import_module("crawler.commands.train-classifier")._command_line
    assert command_line() == "scrapy train-classifier --data 'D x'"
