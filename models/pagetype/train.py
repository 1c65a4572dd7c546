"""The page-type trainer: LeNet-5, ResNet-101 and PageNet, on the one domain split.

:func:`train_classifier` (LeNet-5, ResNet-101, the I-AWCE paper's setup) reads the
manifests, maps labels to classes, splits by the one domain split
(:mod:`models.common.splits`: train, validation, heldout as the test split), trains with
Adam and cross-entropy (lr 2e-4, batch 16, 30 epochs, used for both models unless
changed), keeps the epoch with the best validation accuracy (ties: lower validation loss;
:mod:`models.common.training`'s rule), and evaluates it on the test split. It writes
``OUT`` (the checkpoint), ``OUT.card.json`` (model card) and ``OUT.confusion.png``.
There is no augmentation, so every image is decoded and transformed once, and a frozen
encoder (ResNet-101's backbone) runs once per image: the trainable part then learns
from the cached encoder outputs, which gives the same result as running the whole
network every epoch at a fraction of the cost. LeNet-5 trains end to end on the cached
transformed images (memory: pages × input_size² × 4 bytes, 300 MB for 1,500 pages at 224).

:func:`train_pagenet` (PageNet, and the LeNet-5 baseline on the same pages and split for
the ablation) trains on the split's training pages, picks the epoch on validation pages
(balanced accuracy, ties: lower loss; or the lowest loss), fits the softmax temperature
on validation pages, and scores held-out pages (accuracy, list recall, expected
calibration error). Adam, batch 16, the I-AWCE paper's learning-rate schedule
(:func:`paper_learning_rate`) or a constant rate.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image
from torch import nn
from tqdm import tqdm

from models.common.efficientnet import Trunk, load_imagenet_lite0
from models.common.metrics import ClassificationMetrics, classification_metrics
from models.common.report import format_metrics, save_confusion_png
from models.common.splits import HELDOUT, TRAIN, VALIDATION
from models.common.training import BestEpoch, best_index, seed_everything
from models.common.transform import INPUT_SIZE, SCREENSHOT_TRANSFORM, ScreenshotTransform, open_screenshot
from models.pagetype.classifier import (
    CheckpointMeta,
    save_checkpoint,
    stored_state_dict,
    wheel_trunk_record,
    write_page_type_card,
)
from models.pagetype.data import (
    ManifestError,
    ManifestRecord,
    PageTensors,
    gray_float,
    prepare_pages,
    read_manifests,
    record_roles,
    summarize,
)
from models.pagetype.labels import LabelMapping, load_label_mapping
from models.pagetype.layout import DEFAULT_STATISTICS_GROUPS, STATISTICS_GROUPS, statistics_names
from models.pagetype.model import (
    MODELS,
    STATISTICS_FEATURES,
    LeNet5,
    PageNet,
    PageTypeModel,
    PooledScreenshot,
    ResNet101Classifier,
    model_spec,
    pagenet_args,
    resolve_backbone_weights,
    resolve_device,
)

logger = logging.getLogger(__name__)

CLASS_WEIGHTING = ("none", "balanced")
#: The trainer's splits and the role in the one split (models/common/splits.py) each one takes.
SPLITS = {"train": TRAIN, "val": VALIDATION, "test": HELDOUT}


@dataclass
class TrainConfig:
    """Everything one training run depends on (recorded in the checkpoint)."""

    data: list[Path]
    out: Path
    model: str = "lenet5"
    labels: str | None = None
    epochs: int = 30
    batch_size: int = 16
    lr: float = 2e-4
    input_size: int = 224
    device: str = "auto"
    seed: int = 0
    #: ResNet-101 backbone: "imagenet" (torchvision's cache folder) or a file.
    weights: str | None = None
    #: "balanced" weighs the loss by inverse class frequency in the training split.
    class_weights: str = "none"
    #: The command line that ran the training (for the model card).
    command: str = ""
    progress: bool = True

    def validate(self) -> None:
        """ValueError with a clear message for options that cannot work."""
        spec = model_spec(self.model)
        if not self.data:
            raise ValueError("give at least one dataset folder (--data)")
        for name in ("epochs", "batch_size", "input_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.lr <= 0:
            raise ValueError(f"lr must be positive, got {self.lr}")
        if self.class_weights not in CLASS_WEIGHTING:
            raise ValueError(f"class_weights must be one of {CLASS_WEIGHTING}, got {self.class_weights!r}")
        if self.weights is not None and not spec.pretrained_backbone:
            raise ValueError(f"--weights applies to models with a pretrained backbone, not {self.model}")

    def to_dict(self) -> dict[str, Any]:
        """Plain data (paths as strings) for the checkpoint."""
        config = asdict(self)
        config["data"] = [str(path) for path in self.data]
        config["out"] = str(self.out)
        del config["progress"], config["command"]
        return config


@dataclass
class ClassifierEpochStats:
    """Loss and validation accuracy after one epoch."""

    epoch: int
    train_loss: float
    val_loss: float
    val_accuracy: float


@dataclass
class TrainResult:
    """What a training run produced."""

    checkpoint: Path
    model_card: Path
    confusion_png: Path
    model: str
    backbone: str
    best_epoch: int
    history: list[ClassifierEpochStats]
    test: ClassificationMetrics
    test_by_source: dict[str, ClassificationMetrics]
    data: dict[str, Any]

    def report(self) -> str:
        """The end-of-training report: test metrics and where the files went."""
        best = self.history[self.best_epoch - 1]
        title = MODELS[self.model].title
        lines = [
            f"{title} ({self.backbone}): best epoch {self.best_epoch}/{len(self.history)}, "
            f"validation accuracy {best.val_accuracy:.4f}",
            f"test split: {self.data['test']['pages']} pages from {self.data['test']['sites']} sites",
            format_metrics(self.test),
        ]
        if len(self.test_by_source) > 1:
            for source, metrics in self.test_by_source.items():
                recalls = ", ".join(
                    f"{c.label} recall {c.recall:.4f}" for c in metrics.per_class if c.support
                )
                lines.append(
                    f"  source {source or '(none)'}: accuracy {metrics.accuracy:.4f} "
                    f"on {metrics.pages} pages; {recalls}"
                )
        lines += [
            f"checkpoint  {self.checkpoint}",
            f"model card  {self.model_card}",
            f"confusion   {self.confusion_png}",
        ]
        return "\n".join(lines)


@dataclass
class _Split:
    """One split's records, class indices and encoded inputs."""

    records: list[ManifestRecord]
    targets: torch.Tensor
    inputs: torch.Tensor


def train_classifier(config: TrainConfig) -> TrainResult:
    """Train, select by validation accuracy, evaluate on the test split, save."""
    config.validate()
    spec = model_spec(config.model)
    device = resolve_device(config.device)
    mapping = load_label_mapping(config.labels)
    records, classes, indices = _split_dataset(config, mapping)
    weights_file, backbone = _backbone(spec, config)
    seed_everything(config.seed)
    args = spec.args_for(len(mapping.labels), config.input_size)
    model = spec.build(args, weights_file).to(device)
    transform = ScreenshotTransform(config.input_size, spec.grayscale)
    if not isinstance(model, LeNet5 | ResNet101Classifier):
        raise ValueError(f"{spec.title} has its own trainer (scrapy train-classifier --model {config.model})")
    encoder, trainable = model.split_frozen()

    started = time.perf_counter()
    splits = {
        name: _encode_split(
            [records[i] for i in indices[name]],
            torch.tensor([classes[i] for i in indices[name]]),
            transform,
            encoder,
            device,
            config,
            name,
        )
        for name in SPLITS
    }
    encode_seconds = time.perf_counter() - started
    started = time.perf_counter()
    history, best_epoch = _fit(trainable, splits, len(mapping.labels), config, device)
    train_seconds = time.perf_counter() - started

    # Evaluate exactly the weights that are saved (fp16 for LeNet-5).
    model.load_state_dict(stored_state_dict(model, config.model))
    test_predictions = _predict(trainable, splits["test"].inputs, config.batch_size)
    test = classification_metrics(splits["test"].targets.tolist(), test_predictions, mapping.labels)
    test_by_source = _metrics_by_source(splits["test"], test_predictions, mapping.labels)
    best = history[best_epoch - 1]
    meta = CheckpointMeta(
        model=config.model,
        args=args,
        labels=list(mapping.labels),
        transform=transform.to_dict(),
        config={**config.to_dict(), "backbone": backbone, "label_mapping": mapping.to_dict()},
        metrics={
            "test": test.to_dict(),
            "test_by_source": {source: m.to_dict() for source, m in test_by_source.items()},
            "best_epoch": best_epoch,
            "val_accuracy": best.val_accuracy,
            "val_loss": best.val_loss,
            "history": [asdict(stats) for stats in history],
        },
        split={
            "by": "models/common/splits.py",
            "val_sites": sorted({r.site for r in splits["val"].records}),
            "test_sites": sorted({r.site for r in splits["test"].records}),
        },
    )
    checkpoint = save_checkpoint(config.out, model, meta)
    confusion_png = save_confusion_png(
        test,
        checkpoint.with_name(checkpoint.stem + ".confusion.png"),
        f"{spec.title} ({backbone}), test split",
    )
    data = {
        name: summarize(split.records, [mapping.labels[k] for k in split.targets.tolist()])
        for name, split in splits.items()
    }
    card = write_page_type_card(
        checkpoint,
        meta,
        config.command,
        data,
        {
            "training_device": str(device),
            "seconds": {"encode": round(encode_seconds, 1), "train": round(train_seconds, 1)},
        },
    )
    logger.info("Saved %s checkpoint to %s (test accuracy %.4f)", spec.title, checkpoint, test.accuracy)
    return TrainResult(
        checkpoint,
        card,
        confusion_png,
        config.model,
        backbone,
        best_epoch,
        history,
        test,
        test_by_source,
        data,
    )


def _split_dataset(
    config: TrainConfig, mapping: LabelMapping
) -> tuple[list[ManifestRecord], list[int], dict[str, list[int]]]:
    """Records, their class indices, and the indices of each split: train, val and test
    are the train, validation and heldout roles of the one split (``models/common/splits.py``);
    pages without a role are left out."""
    records = read_manifests(config.data)
    mapping.check_covers(record.label for record in records)
    classes = [mapping.index_of(record.label) for record in records]
    roles = record_roles(records)
    if None in roles:
        logger.warning(
            "Left out %d of %d pages: their sites are not in the split and the manifest gives no role",
            roles.count(None),
            len(records),
        )
    indices = {name: [i for i, r in enumerate(roles) if r == role] for name, role in SPLITS.items()}
    for name, role in SPLITS.items():
        if not indices[name]:
            raise ManifestError(
                f"the {name} split is empty: no page's site has the {role} role in models/common/splits.py "
                f"(or give pages outside WCXB dev a role in the manifest)"
            )
    train_classes = {classes[i] for i in indices["train"]}
    absent = [label for k, label in enumerate(mapping.labels) if k not in train_classes]
    if absent:
        logger.warning("Classes absent from the training split: %s", ", ".join(absent))
    return records, classes, indices


def _backbone(spec: type[PageTypeModel], config: TrainConfig) -> tuple[Path | None, str]:
    """The pretrained weights file (None: no backbone) and how to call it."""
    if not spec.pretrained_backbone:
        return None, "trained end to end"
    weights_file = resolve_backbone_weights(config.weights)
    return weights_file, f"ImageNet backbone {weights_file.name}"


def _encode_split(
    records: list[ManifestRecord],
    targets: torch.Tensor,
    transform: ScreenshotTransform,
    encoder: nn.Module | None,
    device: torch.device,
    config: TrainConfig,
    name: str,
) -> _Split:
    """Decode and transform each screenshot once, and run the frozen encoder over it."""
    outputs = []
    starts = range(0, len(records), config.batch_size)
    with torch.no_grad():
        for start in tqdm(starts, desc=f"encode {name}", unit="batch", disable=not config.progress):
            batch = torch.stack([transform(_open(r)) for r in records[start : start + config.batch_size]])
            batch = batch.to(device)
            outputs.append(encoder(batch) if encoder is not None else batch)
    return _Split(records, targets.to(device), torch.cat(outputs))


def _open(record: ManifestRecord) -> Image.Image:
    try:
        return open_screenshot(record.image)
    except OSError as exc:  # Pillow's UnidentifiedImageError is an OSError
        raise ManifestError(f"{record.image}: not a readable screenshot: {exc}") from exc


def _fit(
    trainable: nn.Module,
    splits: dict[str, _Split],
    num_classes: int,
    config: TrainConfig,
    device: torch.device,
) -> tuple[list[ClassifierEpochStats], int]:
    """Train ``trainable``; leave it holding the best epoch's weights."""
    train = splits["train"]
    loss_fn = nn.CrossEntropyLoss(weight=_class_weights(train.targets, num_classes, config).to(device))
    optimizer = torch.optim.Adam([p for p in trainable.parameters() if p.requires_grad], lr=config.lr)
    order = torch.Generator().manual_seed(config.seed)
    history: list[ClassifierEpochStats] = []
    kept = BestEpoch()
    for epoch in range(1, config.epochs + 1):
        trainable.train()
        permutation = torch.randperm(len(train.targets), generator=order).to(device)
        batches = torch.split(permutation, config.batch_size)
        total_loss = 0.0
        with tqdm(
            total=len(batches),
            desc=f"epoch {epoch}/{config.epochs}",
            unit="batch",
            disable=not config.progress,
        ) as bar:
            for batch in batches:
                optimizer.zero_grad()
                loss = loss_fn(trainable(train.inputs[batch]), train.targets[batch])
                loss.backward()
                optimizer.step()
                total_loss += loss.item() * len(batch)
                bar.update()
                bar.set_postfix(loss=f"{loss.item():.4f}")
            val_loss, val_accuracy = _evaluate(trainable, splits["val"], loss_fn, config.batch_size)
            stats = ClassifierEpochStats(epoch, total_loss / len(train.targets), val_loss, val_accuracy)
            bar.set_postfix(loss=f"{stats.train_loss:.4f}", val_acc=f"{val_accuracy:.4f}")
        history.append(stats)
        logger.info(
            "epoch %d/%d: train loss %.4f, val loss %.4f, val accuracy %.4f",
            epoch,
            config.epochs,
            stats.train_loss,
            val_loss,
            val_accuracy,
        )
        kept.offer(epoch, (val_accuracy, -val_loss), trainable)
    return history, kept.restore(trainable)


def _class_weights(targets: torch.Tensor, num_classes: int, config: TrainConfig) -> torch.Tensor:
    """Loss weights: all ones, or n / (classes × n_class) for "balanced"."""
    if config.class_weights == "none":
        return torch.ones(num_classes)
    counts = torch.bincount(targets.cpu(), minlength=num_classes).float()
    return len(targets) / (num_classes * counts.clamp(min=1))


def _predict(trainable: nn.Module, inputs: torch.Tensor, batch_size: int) -> list[int]:
    trainable.eval()
    with torch.no_grad():
        return [int(k) for chunk in torch.split(inputs, batch_size) for k in trainable(chunk).argmax(dim=1)]


def _evaluate(
    trainable: nn.Module, split: _Split, loss_fn: nn.Module, batch_size: int
) -> tuple[float, float]:
    """(mean loss, accuracy) on a split."""
    trainable.eval()
    total_loss, correct = 0.0, 0
    with torch.no_grad():
        for inputs, targets in zip(
            torch.split(split.inputs, batch_size), torch.split(split.targets, batch_size), strict=False
        ):
            logits = trainable(inputs)
            total_loss += loss_fn(logits, targets).item() * len(targets)
            correct += int((logits.argmax(dim=1) == targets).sum())
    return total_loss / len(split.targets), correct / len(split.targets)


def _metrics_by_source(
    split: _Split, predictions: Sequence[int], labels: Sequence[str]
) -> dict[str, ClassificationMetrics]:
    """Test metrics per dataset source (e.g. the demo web vs WCXB)."""
    targets = split.targets.tolist()
    by_source: dict[str, list[int]] = {}
    for position, record in enumerate(split.records):
        by_source.setdefault(record.source, []).append(position)
    return {
        source: classification_metrics(
            [targets[i] for i in positions], [predictions[i] for i in positions], labels
        )
        for source, positions in sorted(by_source.items())
    }


logger = logging.getLogger(__name__)

WARMUP_EPOCHS = 15
LR_START = 1e-5
LR_PEAK = 4e-4
LR_DECAY = 0.8
CALIBRATION_BINS = 15
TEMPERATURES = torch.logspace(math.log10(0.2), math.log10(10.0), 200)


def paper_learning_rate(epoch: int) -> float:
    """The I-AWCE schedule (epoch from 0): linear 1e-5 → 4e-4 over 15 epochs, then
    ``(4e-4 - 1e-5) * 0.8 ** (epoch - 15) + 1e-5``."""
    if epoch < WARMUP_EPOCHS:
        return LR_START + (LR_PEAK - LR_START) * epoch / WARMUP_EPOCHS
    return (LR_PEAK - LR_START) * LR_DECAY ** (epoch - WARMUP_EPOCHS) + LR_START


@dataclass
class FitConfig:
    """How one network is trained (recorded in the checkpoint)."""

    epochs: int = 30
    batch_size: int = 16
    #: "balanced" weighs the loss by inverse class frequency of the training pages.
    class_weights: str = "balanced"
    weight_decay: float = 1e-4
    #: "paper" (:func:`paper_learning_rate`) or "constant" (``learning_rate`` throughout).
    schedule: str = "paper"
    learning_rate: float = LR_PEAK
    #: The epoch kept: "balanced-accuracy" (validation balanced accuracy, ties: lower
    #: validation loss) or "loss" (lowest validation loss).
    select: str = "balanced-accuracy"
    seed: int = 0
    device: str = "cpu"
    progress: bool = True

    def to_dict(self) -> dict[str, Any]:
        config = asdict(self)
        del config["progress"]
        return config


@dataclass
class PageNetEpochStats:
    """Learning rate, losses and validation balanced accuracy after one epoch."""

    epoch: int
    learning_rate: float
    train_loss: float
    val_loss: float
    val_balanced_accuracy: float


@dataclass
class Evaluation:
    """Held-out scores of a calibrated network: all held-out pages, and each source
    family apart (:func:`source_family`: unstyled WCXB pages, styled generated sites)."""

    metrics: ClassificationMetrics
    ece: float
    ece_uncalibrated: float
    temperature: float
    by_source: dict[str, ClassificationMetrics] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.metrics.to_dict(),
            "ece": self.ece,
            "ece_uncalibrated": self.ece_uncalibrated,
            "temperature": self.temperature,
            "by_source": {family: m.to_dict() for family, m in self.by_source.items()},
        }


def source_family(source: str) -> str:
    """A manifest source's family for reports: ``styled-<theme>`` → ``styled``,
    ``demo-<seed>`` → ``demo``, others as they are (``wcxb``)."""
    for family in ("styled", "demo"):
        if source.startswith(f"{family}-"):
            return family
    return source


Logits = Callable[[Any, torch.Tensor], torch.Tensor]  # (the model, page indices) → logits


def pagenet_logits(pages: PageTensors, device: torch.device) -> Logits:
    """Uncalibrated PageNet logits of page indices, from the precomputed inputs."""

    def logits(model: PageNet, index: torch.Tensor) -> torch.Tensor:
        hidden = pages.hidden[index].to(device).float() if "screenshot" in model.inputs else None
        layout = pages.layout[index].to(device).float() if "layout" in model.inputs else None
        statistics = pages.statistics[index].to(device) if "statistics" in model.inputs else None
        return model.logits_from_hidden(hidden, layout, statistics)

    return logits


def branch_logits(model: PageNet, name: str, pages: PageTensors, device: torch.device) -> Logits:
    """Late fusion: one branch's own logits of page indices."""

    def logits(branch: nn.Module, index: torch.Tensor) -> torch.Tensor:
        hidden = pages.hidden[index].to(device).float() if name == "screenshot" else None
        layout = pages.layout[index].to(device).float() if name == "layout" else None
        statistics = pages.statistics[index].to(device) if name == "statistics" else None
        return model.branch_logits(name, hidden, layout, statistics)

    return logits


def lenet_logits(pages: PageTensors, device: torch.device) -> Logits:
    """LeNet-5 logits of page indices, from the grayscale top squares."""

    def logits(model: nn.Module, index: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = model(gray_float(pages.gray[index]).to(device))
        return out

    return logits


SCHEDULES = ("paper", "constant")
SELECTIONS = ("balanced-accuracy", "loss")


def epoch_learning_rate(config: FitConfig, epoch: int) -> float:
    """The learning rate of an epoch (from 0) under the config's schedule."""
    if config.schedule == "paper":
        return paper_learning_rate(epoch)
    if config.schedule == "constant":
        return config.learning_rate
    raise ValueError(f"schedule must be one of {SCHEDULES}, got {config.schedule!r}")


def selection_key(config: FitConfig, stats: PageNetEpochStats) -> tuple[float, ...]:
    """How an epoch ranks for keeping (higher is better)."""
    if config.select == "balanced-accuracy":
        return (stats.val_balanced_accuracy, -stats.val_loss)
    if config.select == "loss":
        return (-stats.val_loss,)
    raise ValueError(f"select must be one of {SELECTIONS}, got {config.select!r}")


def new_lenet(num_classes: int) -> LeNet5:
    return LeNet5(num_classes=num_classes, input_size=INPUT_SIZE, in_channels=1)


def prepare_statistics(model: nn.Module, pages: PageTensors) -> None:
    """Set the standardization of a statistics branch and of a pooled screenshot branch
    (late fusion) from the training pages."""
    if not isinstance(model, PageNet):
        return
    if "statistics" in model.inputs:
        train = pages.statistics[pages.subset(TRAIN)]
        model.statistics.mean.copy_(train.mean(dim=0))
        model.statistics.std.copy_(train.std(dim=0).clamp(min=1e-3))
    screenshot = getattr(model, "screenshot", None)
    if isinstance(screenshot, PooledScreenshot):
        hidden = pages.hidden[pages.subset(TRAIN)]
        pooled = torch.cat([PooledScreenshot.pool(chunk.float()) for chunk in torch.split(hidden, 256)])
        screenshot.mean.copy_(pooled.mean(dim=0))
        screenshot.std.copy_(pooled.std(dim=0).clamp(min=1e-3))


def fit(
    model: nn.Module, pages: PageTensors, logits: Logits, num_classes: int, config: FitConfig
) -> list[PageNetEpochStats]:
    """Train on the training pages; leave the model holding the best epoch's weights."""
    device = torch.device(config.device)
    train, val = pages.subset(TRAIN), pages.subset(VALIDATION)
    if not len(train) or not len(val):
        raise ValueError(f"need training and validation pages, got {len(train)} and {len(val)}")
    targets = pages.targets.to(device)
    weights = torch.ones(num_classes)
    if config.class_weights == "balanced":
        counts = torch.bincount(pages.targets[train], minlength=num_classes).float()
        weights = len(train) / (num_classes * counts.clamp(min=1))
    loss_fn = nn.CrossEntropyLoss(weight=weights.to(device))
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.Adam(parameters, lr=LR_START, weight_decay=config.weight_decay)
    order = torch.Generator().manual_seed(config.seed)
    history: list[PageNetEpochStats] = []
    kept = BestEpoch()
    for epoch in range(config.epochs):
        learning_rate = epoch_learning_rate(config, epoch)
        for group in optimizer.param_groups:
            group["lr"] = learning_rate
        model.train()
        total = 0.0
        batches = torch.split(train[torch.randperm(len(train), generator=order)], config.batch_size)
        for batch in tqdm(
            batches, desc=f"epoch {epoch + 1}/{config.epochs}", unit="batch", disable=not config.progress
        ):
            optimizer.zero_grad()
            loss = loss_fn(logits(model, batch), targets[batch])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        val_logits = predict_logits(model, logits, val, config.batch_size)
        val_loss = float(nn.functional.cross_entropy(val_logits, pages.targets[val]))
        balanced = balanced_accuracy(pages.targets[val], val_logits.argmax(dim=1), num_classes)
        history.append(PageNetEpochStats(epoch + 1, learning_rate, total / len(train), val_loss, balanced))
        logger.info(
            "epoch %d/%d: lr %.2e, train loss %.4f, val loss %.4f, val balanced accuracy %.4f",
            epoch + 1,
            config.epochs,
            learning_rate,
            total / len(train),
            val_loss,
            balanced,
        )
        kept.offer(epoch + 1, selection_key(config, history[-1]), model)
    kept.restore(model)
    return history


def predict_logits(model: nn.Module, logits: Logits, index: torch.Tensor, batch_size: int) -> torch.Tensor:
    """Uncalibrated logits (on the CPU) of page indices, in eval mode."""
    model.eval()
    with torch.no_grad():
        return torch.cat([logits(model, chunk).float().cpu() for chunk in torch.split(index, batch_size * 4)])


def balanced_accuracy(targets: torch.Tensor, predicted: torch.Tensor, num_classes: int) -> float:
    """Mean recall over the classes present."""
    recalls = [
        float((predicted[targets == k] == k).float().mean())
        for k in range(num_classes)
        if (targets == k).any()
    ]
    return sum(recalls) / len(recalls)


def fit_temperature(logits: torch.Tensor, targets: torch.Tensor) -> float:
    """The temperature that minimizes the negative log-likelihood (grid search)."""
    losses = [float(nn.functional.cross_entropy(logits / t, targets)) for t in TEMPERATURES]
    return float(TEMPERATURES[int(np.argmin(losses))])


def expected_calibration_error(probabilities: torch.Tensor, targets: torch.Tensor) -> float:
    """ECE over CALIBRATION_BINS equal-width bins of the top-class probability."""
    confidence, predicted = probabilities.max(dim=1)
    correct = (predicted == targets).float()
    edges = torch.linspace(0, 1, CALIBRATION_BINS + 1)
    error = 0.0
    for low, high in pairwise(edges):
        inside = (confidence > low) & (confidence <= high)
        if inside.any():
            gap = abs(float(confidence[inside].mean()) - float(correct[inside].mean()))
            error += gap * float(inside.float().mean())
    return error


def score_by_source(
    pages: PageTensors, index: torch.Tensor, predicted: torch.Tensor, labels: list[str]
) -> tuple[ClassificationMetrics, dict[str, ClassificationMetrics]]:
    """Scores of predictions for page indices: all of them, and each source family apart."""
    targets = pages.targets[index]
    families = [source_family(pages.records[i].source) for i in index.tolist()]
    by_source = {}
    for family in sorted(set(families)):
        rows = torch.tensor([f == family for f in families])
        by_source[family] = classification_metrics(targets[rows].tolist(), predicted[rows].tolist(), labels)
    return classification_metrics(targets.tolist(), predicted.tolist(), labels), by_source


def calibrate_and_evaluate(
    model: nn.Module, pages: PageTensors, logits: Logits, labels: list[str], batch_size: int
) -> Evaluation:
    """Fit the temperature on validation pages (stored in a PageNet), score held-out pages."""
    val, heldout = pages.subset(VALIDATION), pages.subset(HELDOUT)
    temperature = fit_temperature(predict_logits(model, logits, val, batch_size), pages.targets[val])
    if isinstance(model, PageNet):
        model.temperature.fill_(temperature)
    raw = predict_logits(model, logits, heldout, batch_size)
    targets = pages.targets[heldout]
    metrics, by_source = score_by_source(pages, heldout, raw.argmax(dim=1), labels)
    return Evaluation(
        metrics=metrics,
        ece=expected_calibration_error(torch.softmax(raw / temperature, dim=1), targets),
        ece_uncalibrated=expected_calibration_error(torch.softmax(raw, dim=1), targets),
        temperature=temperature,
        by_source=by_source,
    )


def fit_branch(
    model: PageNet, name: str, pages: PageTensors, device: torch.device, num_classes: int, config: FitConfig
) -> list[PageNetEpochStats]:
    """Late fusion: train one branch alone, initialised from the seed as a PageNet of
    that input alone would be, and keep its epoch by its own validation scores."""
    branch = model.branch(name)
    seed_everything(config.seed)
    for module in branch.modules():
        if isinstance(module, nn.Linear | nn.Conv2d | nn.BatchNorm2d):
            module.reset_parameters()
    return fit(branch, pages, branch_logits(model, name, pages, device), num_classes, config)


def branch_stack(
    model: PageNet, pages: PageTensors, index: torch.Tensor, device: torch.device, batch_size: int
) -> torch.Tensor:
    """Late fusion: every branch's own logits of page indices, (pages, classes, branches)."""
    return torch.stack(
        [
            predict_logits(model, branch_logits(model, name, pages, device), index, batch_size)
            for name in model.inputs
        ],
        dim=-1,
    )


def fit_fusion(
    model: PageNet, pages: PageTensors, device: torch.device, batch_size: int, with_bias: bool = True
) -> None:
    """Late fusion: the branch weights (and bias, or 0: each branch keeps the class prior
    it learnt on the training pages) that minimise the validation pages' cross-entropy of
    ``sum_b w_b * z_b + bias`` (L-BFGS), stored in the model."""
    val = pages.subset(VALIDATION)
    stacked = branch_stack(model, pages, val, device, batch_size)
    weight = torch.ones(len(model.inputs), requires_grad=True)
    bias = torch.zeros(stacked.shape[1], requires_grad=with_bias)
    fitted = [weight, bias] if with_bias else [weight]
    optimizer = torch.optim.LBFGS(fitted, max_iter=500, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(stacked @ weight + bias, pages.targets[val])
        loss.backward()  # type: ignore[no-untyped-call]
        return loss

    optimizer.step(closure)  # type: ignore[no-untyped-call]
    model.fusion_weight.copy_(weight.detach())
    model.fusion_bias.copy_(bias.detach())


def late_fusion_report(
    model: PageNet, pages: PageTensors, labels: list[str], device: torch.device, batch_size: int
) -> dict[str, Any]:
    """What each branch is worth in the fused decision on held-out pages: its weight, its
    share of the fused logit margins (mean |w_b * z_b| over all branches'), its own
    scores, the scores with its weight set to 0, and how often the fused prediction
    differs from the branch alone and from the model without it."""
    heldout = pages.subset(HELDOUT)
    stacked = branch_stack(model, pages, heldout, device, batch_size)
    weight, bias = model.fusion_weight.float().cpu(), model.fusion_bias.float().cpu()
    fused = (stacked @ weight + bias).argmax(dim=1)
    centred = stacked - stacked.mean(dim=1, keepdim=True)  # softmax-invariant margins
    contribution = (centred * weight).abs().sum(dim=1).mean(dim=0)
    branches = {}
    for b, name in enumerate(model.inputs):
        alone = stacked[..., b].argmax(dim=1)
        zeroed = weight.clone()
        zeroed[b] = 0.0
        without = (stacked @ zeroed + bias).argmax(dim=1)
        alone_metrics, alone_by_source = score_by_source(pages, heldout, alone, labels)
        without_metrics, without_by_source = score_by_source(pages, heldout, without, labels)
        branches[name] = {
            "weight": float(weight[b]),
            "share": float(contribution[b] / contribution.sum()),
            "alone": {
                **alone_metrics.to_dict(),
                "by_source": {f: m.to_dict() for f, m in alone_by_source.items()},
            },
            "without": {
                **without_metrics.to_dict(),
                "by_source": {f: m.to_dict() for f, m in without_by_source.items()},
            },
            "fused_differs_from_alone": float((fused != alone).float().mean()),
            "fused_differs_from_without": float((fused != without).float().mean()),
        }
    return {"bias": bias.tolist(), "branches": branches}


def epoch_summary(history: list[PageNetEpochStats], config: FitConfig) -> dict[str, Any]:
    """The kept epoch and the whole history, for a checkpoint's metrics."""
    best = history[best_index([selection_key(config, h) for h in history])]
    return {
        "best_epoch": best.epoch,
        "val_balanced_accuracy": best.val_balanced_accuracy,
        "val_loss": best.val_loss,
        "history": [asdict(h) for h in history],
    }


@dataclass
class PageNetConfig:
    """One `scrapy train-classifier --model pagenet` run."""

    data: list[Path]
    out: Path
    inputs: list[str]
    labels: str | None = None
    dropout: float = 0.3
    statistics_width: int = STATISTICS_FEATURES
    #: The page statistics' groups (:data:`models.pagetype.layout.STATISTICS_GROUPS`).
    statistics_groups: list[str] = field(default_factory=lambda: list(DEFAULT_STATISTICS_GROUPS))
    #: "early" (one head over the concatenated features) or "late" (a head per branch,
    #: trained alone, logits combined with weights fitted on validation pages).
    fusion: str = "early"
    #: Late fusion: fit a bias beside the branch weights on validation pages.
    fusion_bias: bool = True
    #: Late fusion's screenshot branch: its head's dropout, learning rate and weight decay
    #: (None: ``dropout`` and the fit config's).
    screenshot_dropout: float | None = None
    screenshot_learning_rate: float | None = None
    screenshot_weight_decay: float | None = None
    #: Folder keeping each page's encoded inputs between runs (None: encode every time).
    cache: Path | None = None
    fit: FitConfig = field(default_factory=FitConfig)
    #: The command line that ran the training (for the model card).
    command: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "data": [str(d) for d in self.data],
            "out": str(self.out),
            "inputs": self.inputs,
            "labels": self.labels,
            "dropout": self.dropout,
            "statistics_width": self.statistics_width,
            "statistics_groups": self.statistics_groups,
            "fusion": self.fusion,
            "fusion_bias": self.fusion_bias,
            "screenshot_dropout": self.screenshot_dropout,
            "screenshot_learning_rate": self.screenshot_learning_rate,
            "screenshot_weight_decay": self.screenshot_weight_decay,
            "cache": str(self.cache) if self.cache else None,
            **self.fit.to_dict(),
        }


def train_pagenet(config: PageNetConfig) -> tuple[Path, Path, Evaluation]:
    """Prepare the pages, train, calibrate, score held-out domains, save checkpoint + card."""
    mapping = load_label_mapping(config.labels)
    labels = list(mapping.labels)
    device = resolve_device(config.fit.device)
    seed_everything(config.fit.seed)
    args = {
        **pagenet_args(
            len(labels),
            config.inputs,
            config.dropout,
            config.statistics_width,
            config.fusion,
            config.screenshot_dropout,
            config.statistics_groups,
        ),
        "trunk": wheel_trunk_record(),
    }
    model = PageNet(
        args["num_classes"],
        args["inputs"],
        args["dropout"],
        statistics_width=args["statistics_width"],
        fusion=args["fusion"],
        screenshot_dropout=args["screenshot_dropout"],
        statistics=args["statistics_groups"],
    )
    started = time.perf_counter()
    # The trunk also encodes the screenshot for models that do not read it (the cache
    # then serves every variant).
    trunk = model.trunk if "screenshot" in model.inputs else Trunk(load_imagenet_lite0())
    pages = prepare_pages(
        read_manifests(config.data),
        mapping,
        trunk,
        config.cache,
        progress=config.fit.progress,
        statistics=args["statistics_groups"],
    )
    prepare_seconds = time.perf_counter() - started
    model.to(device)
    prepare_statistics(model, pages)
    fit_config = replace(config.fit, device=str(device))
    started = time.perf_counter()
    training: dict[str, Any]
    if model.fusion == "late":
        branches = {}
        for name in model.inputs:
            branch_config = fit_config
            if name == "screenshot":
                branch_config = replace(
                    fit_config,
                    learning_rate=fit_config.learning_rate
                    if config.screenshot_learning_rate is None
                    else config.screenshot_learning_rate,
                    weight_decay=fit_config.weight_decay
                    if config.screenshot_weight_decay is None
                    else config.screenshot_weight_decay,
                )
            history = fit_branch(model, name, pages, device, len(labels), branch_config)
            branches[name] = epoch_summary(history, branch_config)
        training = {"branches": branches}
        round_to_fp16(model)
        fit_fusion(model, pages, device, fit_config.batch_size, config.fusion_bias)
    else:
        training = epoch_summary(
            fit(model, pages, pagenet_logits(pages, device), len(labels), fit_config), fit_config
        )
    train_seconds = time.perf_counter() - started
    round_to_fp16(model)  # score exactly the weights that are saved
    evaluation = calibrate_and_evaluate(
        model, pages, pagenet_logits(pages, device), labels, fit_config.batch_size
    )
    if model.fusion == "late":
        training["fusion"] = late_fusion_report(model, pages, labels, device, fit_config.batch_size)
    meta = CheckpointMeta(
        model="pagenet",
        args=args,
        labels=labels,
        transform=SCREENSHOT_TRANSFORM.to_dict(),
        config={**config.to_dict(), "label_mapping": mapping.to_dict()},
        metrics={"heldout": evaluation.to_dict(), **training},
        split={
            "by": "domain",
            "file": "models/splits/wcxb-dev.json",
            "roles": "train / validation / heldout",
        },
    )
    checkpoint = save_checkpoint(config.out, model.cpu(), meta)
    data = {
        role: summarize(
            [pages.records[i] for i in pages.subset(role).tolist()],
            [labels[int(k)] for k in pages.targets[pages.subset(role)]],
        )
        for role in (TRAIN, VALIDATION, HELDOUT)
    }
    card = write_page_type_card(
        checkpoint,
        meta,
        config.command,
        data,
        {
            "sees": {name: model_sees(name, model.fusion, model.statistics_groups) for name in model.inputs},
            "training_device": str(device),
            "seconds": {"prepare": round(prepare_seconds, 1), "train": round(train_seconds, 1)},
        },
    )
    logger.info(
        "Saved PageNet checkpoint to %s (held-out accuracy %.4f)", checkpoint, evaluation.metrics.accuracy
    )
    return checkpoint, card, evaluation


def pagenet_report(config: PageNetConfig, checkpoint: Path, card: Path, evaluation: Evaluation) -> str:
    """The end-of-training report of :func:`train_pagenet`: held-out scores, calibration
    and where the files went."""
    lines = [
        f"PageNet ({', '.join(config.inputs)}; {config.fusion} fusion): held-out "
        f"{_scores(evaluation.metrics)}, ECE {evaluation.ece:.4f} (uncalibrated "
        f"{evaluation.ece_uncalibrated:.4f}, temperature {evaluation.temperature:.2f})"
    ]
    lines += [f"  {family}: {_scores(metrics)}" for family, metrics in evaluation.by_source.items()]
    return "\n".join([*lines, f"checkpoint  {checkpoint}", f"model card  {card}"])


def _scores(metrics: ClassificationMetrics) -> str:
    recall = {c.label: c.recall for c in metrics.per_class}
    return (
        f"accuracy {metrics.accuracy:.4f} on {metrics.pages} pages, list recall {recall.get('list', 0.0):.4f}"
    )


def round_to_fp16(model: nn.Module) -> None:
    """Round the floating weights as a checkpoint stores them (fp16)."""
    model.load_state_dict(
        {
            k: v.to(torch.float16).float() if v.is_floating_point() else v
            for k, v in model.state_dict().items()
        }
    )


def model_sees(name: str, fusion: str, statistics: Sequence[str] = DEFAULT_STATISTICS_GROUPS) -> str:
    """What a branch reads, for the model card."""
    if name == "screenshot" and fusion == "late":
        return (
            "the top 1366 x 1366 px of the page in RGB, resized to 224 x 224, through "
            "EfficientNet-Lite0 with its ImageNet weights, frozen, up to the last block's "
            "depthwise convolution: the 1152 channels' average and maximum over the 7 x 7 "
            "grid, through a linear head"
        )
    if name == "statistics":
        groups = "; ".join(
            f"{len(STATISTICS_GROUPS[group])} {STATISTICS_SEES[group]}" for group in statistics
        )
        return f"{len(statistics_names(statistics))} page statistics, no pixels: {groups}"
    return MODEL_SEES[name]


MODEL_SEES = {
    "screenshot": "the top 1366 x 1366 px of the page in RGB, resized to 224 x 224, through "
    "EfficientNet-Lite0 (ImageNet, frozen up to the last block's projection)",
    "layout": "every element box of the whole page, squashed to a 128 x 48 raster of text, "
    "link, heading, image, list-container and list-item masks",
}
#: What each statistics group holds, for the model card.
STATISTICS_SEES = {
    "dom": "from the element boxes of the rendered page (links and their share of the text and "
    "area, long paragraphs, headings and linked headings, repeated sibling groups, page height, "
    "class-name hints such as pagination, excerpt, card)",
    "layout": "of the boxes' layout as a person sees it (the largest grid or stack of same-size "
    "sibling cards holding a link and a heading or picture: its size, columns and share of the "
    "first screens; same-size text blocks; the share of text in links on the first screen and "
    "below; the text column's height and text shares; headings per screen; pictures)",
    "url": "from the page's address (canonical link, og:url or the URL: depth, taxonomy, "
    "pagination and section paths, dated slug)",
    "markup": "from the rendered HTML (the schema.org types it declares by family, og:type, code "
    "blocks, forms and their fields, tables, quotes, time elements, rel=next, prices in the text)",
}
