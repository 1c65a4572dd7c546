"""ResNet-101 transfer learning as the I-AWCE paper configures it.

torchvision's ResNet-101 with every backbone weight frozen (``requires_grad`` off and
batch norm kept in eval mode, so its running statistics never move); global average
pooling kept; the final layer replaced by Dense 1024 → ReLU → Dense num_classes, the
only part that trains. Input: RGB, 224 × 224 by default; any size works (pooling is
global), e.g. the paper's better 1366 × 1366.

ImageNet weights come from a local file only, never from the network: a path given
explicitly, or torchvision's cache folder (``$TORCH_HOME/hub/checkpoints``) when it
holds ``resnet101-*.pth``.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import torch
from torch import nn
from torchvision.models import ResNet101_Weights, resnet101

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
