"""Training a page-type classifier from screenshot manifests.

:func:`train_classifier` reads the manifests, maps labels to classes, splits by the one
domain split (``models/splits.py``: train, validation, heldout as the test split),
trains with Adam and cross-entropy (the paper's setup: lr 2e-4, batch 16, 30 epochs,
used for both models unless changed), keeps the epoch with the best validation
accuracy (ties: lower validation loss), and evaluates it on the test split. It writes
``OUT`` (the checkpoint), ``OUT.card.json`` (model card) and ``OUT.confusion.png``.

There is no augmentation, so every image is decoded and transformed once, and a frozen
encoder (ResNet-101's backbone) runs once per image: the trainable part then learns
from the cached encoder outputs, which gives the same result as running the whole
network every epoch at a fraction of the cost. LeNet-5 trains end to end on the cached
transformed images (memory: pages × input_size² × 4 bytes, 300 MB for 1,500 pages at 224).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image
from torch import nn
from tqdm import tqdm

from models.checkpoint import CheckpointMeta, save_checkpoint, stored_state_dict, write_model_card
from models.data import ManifestError, ManifestRecord, read_manifests, record_roles, summarize
from models.labels import LabelMapping, load_label_mapping
from models.lenet import LeNet5
from models.metrics import ClassificationMetrics, classification_metrics
from models.registry import MODELS, PageTypeModel, model_spec, resolve_device
from models.report import format_metrics, save_confusion_png
from models.resnet import ResNet101Classifier, resolve_backbone_weights
from models.splits import HELDOUT, TRAIN, VALIDATION
from models.transform import ScreenshotTransform, open_screenshot

logger = logging.getLogger(__name__)

CLASS_WEIGHTING = ("none", "balanced")
#: The trainer's splits and the role in the one split (models/splits.py) each one takes.
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
        del config["progress"]
        return config


@dataclass
class EpochStats:
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
    history: list[EpochStats]
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
    _seed_everything(config.seed)
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
            "by": "models/splits.py",
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
    card = write_model_card(
        checkpoint,
        meta,
        {
            "data": data,
            "trained_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "training_device": str(device),
            "seconds": {"encode": round(encode_seconds, 1), "train": round(train_seconds, 1)},
            "versions": {"torch": torch.__version__},
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
    are the train, validation and heldout roles of the one split (``models/splits.py``);
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
                f"the {name} split is empty: no page's site has the {role} role in models/splits.py "
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


def _seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


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
) -> tuple[list[EpochStats], int]:
    """Train ``trainable``; leave it holding the best epoch's weights."""
    train = splits["train"]
    loss_fn = nn.CrossEntropyLoss(weight=_class_weights(train.targets, num_classes, config).to(device))
    optimizer = torch.optim.Adam([p for p in trainable.parameters() if p.requires_grad], lr=config.lr)
    order = torch.Generator().manual_seed(config.seed)
    history: list[EpochStats] = []
    best_state: dict[str, torch.Tensor] = {}
    best_epoch = 0
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
            stats = EpochStats(epoch, total_loss / len(train.targets), val_loss, val_accuracy)
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
        best = history[best_epoch - 1] if best_epoch else None
        if best is None or (val_accuracy, -val_loss) > (best.val_accuracy, -best.val_loss):
            best_epoch = epoch
            best_state = {name: t.detach().clone() for name, t in trainable.state_dict().items()}
    trainable.load_state_dict(best_state)
    return history, best_epoch


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
