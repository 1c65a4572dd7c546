"""LeNet-5 as the I-AWCE paper configures it for page screenshots.

Input: one grayscale channel, 224 × 224 by default.

    Conv2D 6 filters 3×3, stride 1 → MaxPool 2×2 → ReLU
    Conv2D 16 filters 3×3, stride 1 → MaxPool 2×2 → ReLU
    Flatten (16 × 54 × 54 = 46,656 features at 224 px)
    → Dense 120 → ReLU → Dense 84 → ReLU → Dense num_classes

Choices the paper leaves open: convolutions without padding and with bias, ReLU between
the dense layers, no dropout, PyTorch's default initialisation. The last layer returns
logits; softmax is applied by the loss and by the classifier at inference.
"""

from __future__ import annotations

import torch
from torch import nn


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
