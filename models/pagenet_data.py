"""Data prep for PageNet: captured pages → the tensors its branches read, computed once.

For every manifest record (screenshot + boxes): the top square through the frozen
EfficientNet-Lite0 trunk (fp16 activations, so that training only runs the small trained
tail), the layout raster (uint8 masks), the DOM statistics, the grayscale top square for
the LeNet-5 baseline (uint8), the class, and the split role: the one WCXB dev split
(:mod:`models.splits`) by site, or the manifest's own ``role`` (generated sites, split by
theme). Pages of sites the split does not know and without a role are left out.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from PIL import Image
from tqdm import tqdm

from models.data import ManifestError, ManifestRecord, record_roles
from models.labels import LabelMapping
from models.layout import DEFAULT_STATISTICS_GROUPS, layout_raster, page_statistics
from models.pagenet import Trunk
from models.transform import ScreenshotTransform, open_screenshot
from pipelines.artifacts import read_local_artifact
from pipelines.extraction.metadata import page_address

logger = logging.getLogger(__name__)

INPUT_SIZE = 224
SCREENSHOT_TRANSFORM = ScreenshotTransform(INPUT_SIZE, grayscale=False, rgb="efficientnet-lite")
GRAY_TRANSFORM = ScreenshotTransform(INPUT_SIZE, grayscale=True)


@dataclass
class PageTensors:
    """Everything the trainers need, one row per page."""

    records: list[ManifestRecord]
    roles: list[str]
    targets: torch.Tensor  # (N,) class indices
    hidden: torch.Tensor  # (N, 1152, 7, 7) fp16 trunk activations
    layout: torch.Tensor  # (N, C, H, W) uint8 masks
    statistics: torch.Tensor  # (N, S) float32
    gray: torch.Tensor  # (N, 1, 224, 224) uint8 grayscale top squares

    def subset(self, role: str) -> torch.Tensor:
        """Indices of the pages in one split role."""
        return torch.tensor([i for i, r in enumerate(self.roles) if r == role], dtype=torch.long)


def read_boxes(path: Path | None) -> list[dict[str, Any]]:
    """A capture's element boxes (a JSON list); ManifestError when absent or malformed."""
    if path is None:
        raise ManifestError("the manifest names no boxes for a page: capture it again with capture-dataset")
    try:
        boxes = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ManifestError(f"{path}: unreadable boxes: {exc}") from exc
    if not isinstance(boxes, list):
        raise ManifestError(f"{path}: boxes must be a JSON list")
    return boxes


def prepare_pages(
    records: Sequence[ManifestRecord],
    mapping: LabelMapping,
    trunk: Trunk,
    cache: Path | None = None,
    progress: bool = True,
    statistics: Sequence[str] = DEFAULT_STATISTICS_GROUPS,
) -> PageTensors:
    """Decode, transform and encode every page once (see the module docstring).

    ``cache``: a folder keeping each page's tensors (named after its screenshot file, which
    the store names by content), so that a later run encodes only new pages;
    ``statistics``: the page statistics' groups (:func:`models.layout.page_statistics`)."""
    roles = record_roles(records)
    kept = [(r, role) for r, role in zip(records, roles, strict=True) if role is not None]
    if len(kept) < len(records):
        logger.warning("Left out %d pages of sites outside the split", len(records) - len(kept))
    mapping.check_covers(record.label for record, _ in kept)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    encoded = [
        encode_page(record, trunk, cache, statistics)
        for record, _ in tqdm(kept, desc="encode pages", unit="page", disable=not progress)
    ]
    return PageTensors(
        records=[record for record, _ in kept],
        roles=[role for _, role in kept],
        targets=torch.tensor([mapping.index_of(record.label) for record, _ in kept]),
        hidden=torch.stack([page["hidden"] for page in encoded]),
        layout=torch.stack([page["layout"] for page in encoded]),
        statistics=torch.stack([page["statistics"] for page in encoded]),
        gray=torch.stack([page["gray"] for page in encoded]),
    )


def encode_page(
    record: ManifestRecord,
    trunk: Trunk,
    cache: Path | None,
    statistics: Sequence[str] = DEFAULT_STATISTICS_GROUPS,
) -> dict[str, torch.Tensor]:
    """One page's tensors, the pixel ones from the cache when it has them (the page
    statistics are cheap and always computed afresh, so that they follow the code)."""
    boxes = read_boxes(record.boxes)
    cached = cache / f"{record.image.stem}.pt" if cache is not None else None
    if cached is not None and cached.is_file():
        page: dict[str, torch.Tensor] = torch.load(cached, weights_only=True)
        with Image.open(record.image) as header:  # reads the PNG header only
            width = header.width
    else:
        try:
            screenshot = open_screenshot(record.image)
        except OSError as exc:
            raise ManifestError(f"{record.image}: not a readable screenshot: {exc}") from exc
        width = screenshot.width
        with torch.no_grad():
            hidden = trunk(SCREENSHOT_TRANSFORM(screenshot)[None])[0].half()
        page = {
            "hidden": hidden,
            "layout": torch.from_numpy(layout_raster(boxes, width)).to(torch.uint8),
            "gray": _gray_uint8(screenshot),
        }
        if cached is not None:
            torch.save(page, cached)
    page["statistics"] = torch.from_numpy(page_statistics(boxes, width, record_address(record), statistics))
    return page


def record_address(record: ManifestRecord) -> str:
    """The page's own address (canonical link or ``og:url`` in its captured HTML), else
    the URL it was captured from."""
    if record.html is None:
        return record.url
    try:
        html = read_local_artifact(record.html).decode("utf-8", errors="replace")
    except OSError as exc:
        raise ManifestError(f"{record.html}: unreadable HTML: {exc}") from exc
    return page_address(html, record.url)


def _gray_uint8(screenshot: Image.Image) -> torch.Tensor:
    """LeNet-5's input, kept small: the normalized grayscale square back in 0..255."""
    normalized = GRAY_TRANSFORM(screenshot)
    return ((normalized * 0.5 + 0.5) * 255).round().clamp(0, 255).to(torch.uint8)


def gray_float(gray: torch.Tensor) -> torch.Tensor:
    """uint8 grayscale squares → LeNet-5's normalized input (values in [-1, 1])."""
    return gray.float() / 127.5 - 1.0
