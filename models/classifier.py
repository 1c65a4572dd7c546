"""Inference: a trained page-type model with its labels and its input transform."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from PIL import Image
from torch import nn

from models.transform import ScreenshotTransform

DEFAULT_BATCH_SIZE = 16


class PageTypeClassifier:
    """Classifies page screenshots; build one with :func:`models.checkpoint.load_classifier`.

    Open PNG data with :func:`models.transform.open_screenshot`, which decodes only the
    part of a tall screenshot the transform looks at. Safe to call from worker threads.
    """

    def __init__(
        self,
        model: nn.Module,
        model_name: str,
        labels: Sequence[str],
        transform: ScreenshotTransform,
        device: torch.device,
        metadata: dict[str, Any],
    ) -> None:
        self.model = model.to(device).eval()
        self.model_name = model_name
        self.labels = list(labels)
        self.transform = transform
        self.device = device
        self.metadata = metadata

    def predict_proba(
        self, images: Sequence[Image.Image], batch_size: int = DEFAULT_BATCH_SIZE
    ) -> torch.Tensor:
        """Class probabilities, shape ``(len(images), len(labels))``, on the CPU."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        batches = []
        with torch.inference_mode():
            for start in range(0, len(images), batch_size):
                inputs = torch.stack([self.transform(image) for image in images[start : start + batch_size]])
                logits = self.model(inputs.to(self.device))
                batches.append(torch.softmax(logits.float(), dim=1).cpu())
        if not batches:
            return torch.empty((0, len(self.labels)))
        return torch.cat(batches)

    def predict(
        self, images: Sequence[Image.Image], batch_size: int = DEFAULT_BATCH_SIZE
    ) -> list[tuple[str, float]]:
        """(label, probability) of the most likely class for each image."""
        probabilities = self.predict_proba(images, batch_size)
        scores, indices = probabilities.max(dim=1)
        return [(self.labels[int(i)], float(p)) for p, i in zip(scores, indices)]
