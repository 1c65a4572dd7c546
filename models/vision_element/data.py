"""Data prep for the vision element model: captured WCXB pages → per page, computed once,
the frozen trunk's map of the screenshot's top square (fp16; taken from the page-type
model's feature cache when it holds the page, ``--trunk-cache``), every candidate box,
which one is the main element (the page's ``main_path`` when known, e.g. from the element
classifier's rows cache, else the auto-annotation of the gold text,
:func:`models.common.annotation.annotate`), every candidate's graded target: its word F1
against the gold from the same annotation's token counts (:func:`candidate_f1s`), and its
element-classifier features (all of :data:`~pipelines.extraction.element_features.ALL_FEATURES`,
the page cleaned for its type, so a head can read any of them).

Each page is one ``torch.save`` file ``CACHE/pages/FILE_ID.pt`` (written atomically, so
an interrupted run resumes where it stopped). Candidates are stored before the size
filter (the element classifier's :func:`pipelines.extraction.element_features.candidates`),
so the filter can be measured and changed without encoding again.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from PIL import Image

from models.common.annotation import Annotation, annotate
from models.common.efficientnet import Trunk
from models.common.transform import SCREENSHOT_TRANSFORM, open_screenshot
from models.element.data import TrainingPage, cleaning_type
from models.vision_element.model import MAP_CELLS, SCREEN_HEIGHT
from pipelines.artifacts import read_artifact
from pipelines.extraction.dom import parse_html
from pipelines.extraction.element_features import ALL_FEATURES, feature_matrix

logger = logging.getLogger(__name__)


@dataclass
class VisionPage:
    """One encoded page: its place in the split, feature maps and candidates."""

    file_id: str
    url: str
    domain: str
    page_type: str
    role: str
    fold: int | None
    main_path: str | None
    paths: list[str]
    boxes: torch.Tensor  # (N, 4) x, y, w, h in page px
    text_lens: torch.Tensor  # (N,) float
    f1s: torch.Tensor  # (N,) float: each candidate's word F1 against the gold (candidate_f1s)
    hidden: torch.Tensor  # (1152, 7, 7) fp16 trunk map of the top square
    cell_px: float
    cut: float
    page_width: float
    #: (N, len(element_features)) each candidate's element-classifier features; None in a
    #: cache encoded before they were kept.
    element_rows: torch.Tensor | None = None
    element_features: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.boxes = self.boxes.reshape(-1, 4)  # a page without candidates: (0, 4)

    def element_columns(self, names: Sequence[str]) -> torch.Tensor:
        """(N, len(names)) the candidates' element features ``names``; ValueError when the
        cache does not hold them."""
        missing = [name for name in names if name not in self.element_features]
        if self.element_rows is None or missing:
            raise ValueError(
                f"page {self.file_id} was encoded without the element features {missing or list(names)}: "
                "encode the pages into a new --cache"
            )
        columns = [self.element_features.index(name) for name in names]
        return self.element_rows.reshape(len(self.paths), len(self.element_features))[:, columns]

    @property
    def positive(self) -> int | None:
        """Index of the main element among the candidates (None: not a candidate)."""
        return self.paths.index(self.main_path) if self.main_path in self.paths else None


def candidate_f1s(annotation: Annotation, paths: list[str]) -> torch.Tensor:
    """(N,) each path's word F1 against the gold from the annotation's token counts:
    2·matched / (tokens + gold tokens); 0 for a path the annotation has no text for."""
    stats = {e.path: e for e in annotation.elements}
    gold = annotation.gold_tokens
    f1s = []
    for path in paths:
        element = stats.get(path)
        total = element.tokens + gold if element is not None else 0
        f1s.append(2 * element.matched / total if element is not None and total else 0.0)
    return torch.tensor(f1s, dtype=torch.float32)


def encode_page(page: TrainingPage, trunk: Trunk, trunk_cache: Path | None = None) -> dict[str, Any] | None:
    """One page's record (see :class:`VisionPage`), or None with a logged reason. The
    trunk map comes from ``trunk_cache`` (PageNet's cache, files named after the stored
    screenshot) when it has the page."""
    capture = page.capture
    if not capture.screenshot:
        logger.warning("Left out %s: no screenshot", capture.url)
        return None
    try:
        html, boxes = capture.read()
        image = decode_screenshot(read_artifact(capture.screenshot["uri"]))
    except (OSError, ValueError) as exc:
        logger.warning("Left out %s: capture unreadable (%s)", capture.url, exc)
        return None
    root = parse_html(html)
    if root is None or root.find("body") is None:
        logger.warning("Left out %s: no body", capture.url)
        return None
    found, element_rows = feature_matrix(
        root, boxes, ALL_FEATURES, int(SCREEN_HEIGHT), cleaning_type(page.page_type)
    )
    paths = [c.path for c in found]
    annotation = annotate(root, page.gold_text)
    pixels, cell_px, cut = screenshot_input(image)
    cached = trunk_cache / f"{Path(capture.screenshot['uri']).stem}.pt" if trunk_cache else None
    if cached is not None and cached.is_file():
        hidden = torch.load(cached, weights_only=True)["hidden"]
    else:
        with torch.no_grad():
            hidden = trunk(pixels)[0].half()
    return {
        "file_id": page.file_id,
        "url": capture.url,
        "domain": page.domain,
        "page_type": page.page_type,
        "role": page.role,
        "fold": page.fold,
        "main_path": page.main_path or annotation.main_path,
        "paths": paths,
        "boxes": torch.tensor([[c.box[k] for k in ("x", "y", "w", "h")] for c in found], dtype=torch.float32),
        "text_lens": torch.tensor([float(c.box.get("text_len", 0)) for c in found]),
        "f1s": candidate_f1s(annotation, paths),
        "hidden": hidden,
        "cell_px": cell_px,
        "cut": cut,
        "page_width": float(image.width),
        "element_rows": torch.from_numpy(element_rows).float(),
        "element_features": list(ALL_FEATURES),
    }


def prepare_pages(
    pages: list[TrainingPage],
    trunk: Trunk,
    cache: Path,
    progress: Callable[[Iterable[TrainingPage]], Iterable[TrainingPage]] = iter,
    limit: int | None = None,
    trunk_cache: Path | None = None,
) -> int:
    """Encode the pages not yet in ``cache`` (at most ``limit``); the number encoded."""
    folder = cache / "pages"
    folder.mkdir(parents=True, exist_ok=True)
    todo = [p for p in pages if not (folder / f"{p.file_id}.pt").is_file()][:limit]
    done = 0
    for page in progress(todo):
        record = encode_page(page, trunk, trunk_cache)
        if record is None:
            continue
        target = folder / f"{page.file_id}.pt"
        partial = target.with_suffix(".tmp")
        torch.save(record, partial)
        os.replace(partial, target)
        done += 1
    return done


def load_pages(cache: Path, file_ids: Iterable[str] | None = None) -> list[VisionPage]:
    """The encoded pages in ``cache`` (only ``file_ids`` when given), by file id."""
    folder = cache / "pages"
    wanted = set(file_ids) if file_ids is not None else None
    pages = []
    for path in sorted(folder.glob("*.pt")):
        if wanted is not None and path.stem not in wanted:
            continue
        record = torch.load(path, weights_only=True)
        if "f1s" not in record:
            raise ValueError(
                f"{path} was encoded without graded targets: encode the pages into a new --cache"
            )
        record.pop("visible", None)  # kept by caches encoded before session 20; the features have it
        pages.append(VisionPage(**record))
    return pages


def decode_screenshot(png: bytes) -> Image.Image:
    """The top square of the screenshot in RGB (the rest of the PNG is not decoded)."""
    image = open_screenshot(png)
    return image if image.mode == "RGB" else image.convert("RGB")


def screenshot_input(image: Image.Image) -> tuple[torch.Tensor, float, float]:
    """A decoded screenshot → the trunk's input (1, 3, 224, 224) in channels-last format
    (:func:`load_backbone`'s), the page px per map cell and the cut: how many page px from
    the top the input shows."""
    pixels = SCREENSHOT_TRANSFORM(image)[None].contiguous(memory_format=torch.channels_last)
    return pixels, image.width / MAP_CELLS, float(min(image.height, image.width))


def seed_pixels(image: Image.Image, size: int) -> torch.Tensor:
    """The seed's RGB channels, uint8 (3, ``size``, ``size``): the screenshot resized
    (bilinear, as skimage's resize); the same for every candidate of the page."""
    resized = torch.frombuffer(
        bytearray(image.resize((size, size), Image.Resampling.BILINEAR).tobytes()), dtype=torch.uint8
    )
    return resized.view(size, size, 3).permute(2, 0, 1)
