"""Inference: a trained page-type model with its labels and its input transform."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import torch
from PIL import Image
from torch import nn

from models.layout import DEFAULT_STATISTICS_GROUPS, layout_raster, page_statistics
from models.transform import ScreenshotTransform, open_screenshot
from pipelines.config import SettingsLike

DEFAULT_BATCH_SIZE = 16


@dataclass(frozen=True)
class ClassifierConfig:
    """The page-type classifier's settings, read once."""

    checkpoint: str
    device: str
    threads: int

    @classmethod
    def from_settings(cls, settings: SettingsLike) -> Self:
        return cls(
            checkpoint=settings.get("PAGESIGHT_CLASSIFIER_CHECKPOINT"),
            device=settings.get("PAGESIGHT_CLASSIFIER_DEVICE"),
            threads=settings.getint("PAGESIGHT_CLASSIFIER_THREADS"),
        )


class PageTypeClassifier:
    """Classifies page screenshots; build one with :meth:`from_settings` or
    :func:`models.checkpoint.load_classifier`.

    Open PNG data with :meth:`open_page`, which decodes only the part of a tall
    screenshot the transform looks at (nothing but the header for a model that reads no
    pixels). Safe to call from worker threads.
    """

    def __init__(
        self,
        model: nn.Module,
        model_name: str,
        labels: Sequence[str],
        transform: ScreenshotTransform,
        device: torch.device,
        metadata: dict[str, Any],
        checkpoint: Path,
    ) -> None:
        self.model = model.to(device).eval()
        self.model_name = model_name
        self.labels = list(labels)
        self.transform = transform
        self.device = device
        self.metadata = metadata
        self.checkpoint = checkpoint

    @classmethod
    def from_settings(cls, settings: SettingsLike) -> PageTypeClassifier:
        """The checkpoint of PAGESIGHT_CLASSIFIER_CHECKPOINT on PAGESIGHT_CLASSIFIER_DEVICE,
        loaded once (torch limited to PAGESIGHT_CLASSIFIER_THREADS threads); the
        architecture is the one the checkpoint names. CheckpointError (one line) when the
        checkpoint is missing or broken."""
        from models.checkpoint import load_classifier  # it builds this class

        config = ClassifierConfig.from_settings(settings)
        torch.set_num_threads(config.threads)
        return load_classifier(config.checkpoint, device=config.device)

    @property
    def inputs(self) -> tuple[str, ...]:
        """What the model reads: PageNet's inputs; the screenshot for the others."""
        return tuple(getattr(self.model, "inputs", ("screenshot",)))

    @property
    def statistics_groups(self) -> tuple[str, ...]:
        """The page statistics' groups PageNet's statistics branch reads."""
        return tuple(getattr(self.model, "statistics_groups", DEFAULT_STATISTICS_GROUPS))

    @property
    def needs_boxes(self) -> bool:
        """True when the model also reads the page's element boxes (PageNet's layout)."""
        return bool({"layout", "statistics"} & set(self.inputs))

    @property
    def needs_pixels(self) -> bool:
        """True when the model reads the screenshot's pixels (else only its width)."""
        return "screenshot" in self.inputs

    def open_page(self, png: bytes) -> Image.Image:
        """A captured screenshot as the model needs it: its top square decoded
        (:func:`models.transform.open_screenshot`), or only its header when the model
        reads no pixels."""
        return open_screenshot(png) if self.needs_pixels else Image.open(io.BytesIO(png))

    def predict_proba(
        self,
        images: Sequence[Image.Image],
        batch_size: int = DEFAULT_BATCH_SIZE,
        boxes: Sequence[Sequence[dict[str, Any]]] | None = None,
        urls: Sequence[str] | None = None,
    ) -> torch.Tensor:
        """Class probabilities, shape ``(len(images), len(labels))``, on the CPU.

        ``boxes``: each page's element boxes, and ``urls`` each page's address (see
        :func:`pipelines.extraction.metadata.page_address`), required when
        :attr:`needs_boxes`."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        if self.needs_boxes and (boxes is None or urls is None or not len(boxes) == len(urls) == len(images)):
            raise ValueError(f"{self.model_name} reads element boxes and addresses: give one per image")
        batches = []
        with torch.inference_mode():
            for start in range(0, len(images), batch_size):
                chunk = images[start : start + batch_size]
                pixels = (
                    torch.stack([self.transform(image) for image in chunk]) if self.needs_pixels else None
                )
                inputs = [pixels.to(self.device) if pixels is not None else None]
                if self.needs_boxes and boxes is not None and urls is not None:
                    stop = start + batch_size
                    inputs += self._layout_inputs(chunk, boxes[start:stop], urls[start:stop])
                logits = self.model(*inputs)
                batches.append(torch.softmax(logits.float(), dim=1).cpu())
        if not batches:
            return torch.empty((0, len(self.labels)))
        return torch.cat(batches)

    def _layout_inputs(
        self,
        images: Sequence[Image.Image],
        boxes: Sequence[Sequence[dict[str, Any]]],
        urls: Sequence[str],
    ) -> list[torch.Tensor | None]:
        """The layout raster and page statistics of each page (width: the screenshot's),
        each None when the model does not read it."""
        pages = list(zip(images, boxes, urls, strict=True))
        rasters, statistics = None, None
        if "layout" in self.inputs:
            rasters = torch.stack([torch.from_numpy(layout_raster(b, image.width)) for image, b, _ in pages])
        if "statistics" in self.inputs:
            statistics = torch.stack(
                [
                    torch.from_numpy(page_statistics(b, image.width, url, self.statistics_groups))
                    for image, b, url in pages
                ]
            )
        return [t.to(self.device) if t is not None else None for t in (rasters, statistics)]

    def predict(
        self,
        images: Sequence[Image.Image],
        batch_size: int = DEFAULT_BATCH_SIZE,
        boxes: Sequence[Sequence[dict[str, Any]]] | None = None,
        urls: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(label, probability) of the most likely class for each image."""
        probabilities = self.predict_proba(images, batch_size, boxes, urls)
        scores, indices = probabilities.max(dim=1)
        return [(self.labels[int(i)], float(p)) for p, i in zip(scores, indices, strict=True)]

    def predict_page(self, png: bytes, boxes: Sequence[dict[str, Any]], url: str) -> tuple[str, float]:
        """The page type of one captured page (screenshot PNG + element boxes + the
        page's address) and its probability (calibrated for PageNet)."""
        (prediction,) = self.predict([self.open_page(png)], boxes=[boxes], urls=[url])
        return prediction
