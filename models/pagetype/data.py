"""Screenshot datasets: the manifest format and each page's role in the one split.

A dataset is a folder holding ``manifest.jsonl``, one JSON object per screenshot::

    {"image": "png/0001.png", "label": "listing", "site": "example.com",
     "url": "https://example.com/news/", "source": "wcxb-dev"}

``image`` is relative to the folder; ``label`` is a dataset label that a
:class:`~models.pagetype.labels.LabelMapping` maps to a class; ``site`` is the domain the page
belongs to (compared as ``pipelines.urls.normalize_site`` writes it); ``url`` and
``source`` are kept for reports. Optional: ``boxes`` (the visit's element boxes JSON,
relative to the folder), ``html`` (its rendered HTML) and ``role`` (train, validation or
heldout, for pages outside WCXB dev's split, such as generated sites split by theme).

A page's role (train, validation or heldout) is its site's in the one domain-disjoint
split (``models/common/splits.py``), or the manifest's ``role``; pages with neither are left out.

Data prep for PageNet: captured pages → the tensors its branches read, computed once.

For every manifest record (screenshot + boxes): the top square through the frozen
EfficientNet-Lite0 trunk (fp16 activations, so that training only runs the small trained
tail), the layout raster (uint8 masks), the DOM statistics, the grayscale top square for
the LeNet-5 baseline (uint8), the class, and the split role: the one WCXB dev split
(:mod:`models.common.splits`) by site, or the manifest's own ``role`` (generated sites, split by
theme). Pages of sites the split does not know and without a role are left out.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from PIL import Image
from tqdm import tqdm

from models.common.efficientnet import Trunk
from models.common.splits import ROLES, UnknownDomain, load_split
from models.common.transform import INPUT_SIZE, SCREENSHOT_TRANSFORM, ScreenshotTransform, open_screenshot
from models.pagetype.labels import LabelMapping
from models.pagetype.layout import DEFAULT_STATISTICS_GROUPS, layout_raster, page_statistics
from pipelines.artifacts import read_local_artifact
from pipelines.extraction.metadata import page_address
from pipelines.urls import normalize_site

MANIFEST_NAME = "manifest.jsonl"


class ManifestError(ValueError):
    """A dataset folder or manifest line that cannot be used."""


@dataclass(frozen=True)
class ManifestRecord:
    """One labelled screenshot."""

    image: Path
    label: str
    site: str
    url: str = ""
    source: str = ""
    #: The element boxes of the same visit (``boxes`` in the manifest), when captured.
    boxes: Path | None = None
    #: The rendered HTML of the same visit (``html`` in the manifest, gzip or plain).
    html: Path | None = None
    #: Split role (train/validation/heldout) for pages outside WCXB dev's split, e.g.
    #: generated sites split by theme; None: the role of the site in the one split.
    role: str | None = None


def read_manifest(directory: str | Path) -> list[ManifestRecord]:
    """Read ``DIR/manifest.jsonl``; image paths come back absolute and checked to exist."""
    directory = Path(directory).resolve()
    manifest = directory / MANIFEST_NAME if directory.is_dir() else directory
    if not manifest.is_file():
        raise ManifestError(f"no dataset manifest at {manifest}")
    root = manifest.parent
    records = []
    with manifest.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if line.strip():
                records.append(_parse_line(line, root, f"{manifest}:{number}"))
    if not records:
        raise ManifestError(f"{manifest} lists no screenshots")
    return records


def _parse_line(line: str, root: Path, where: str) -> ManifestRecord:
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ManifestError(f"{where}: not JSON: {exc}") from exc
    if not isinstance(entry, dict):
        raise ManifestError(f"{where}: expected a JSON object")
    missing = [
        key for key in ("image", "label", "site") if not isinstance(entry.get(key), str) or not entry[key]
    ]
    if missing:
        raise ManifestError(f"{where}: missing or empty {', '.join(missing)}")
    image = (root / entry["image"]).resolve()
    if not image.is_file():
        raise ManifestError(f"{where}: image not found: {image}")
    boxes, html = ((root / entry[name]).resolve() if entry.get(name) else None for name in ("boxes", "html"))
    for name, path in (("boxes", boxes), ("html", html)):
        if path is not None and not path.is_file():
            raise ManifestError(f"{where}: {name} not found: {path}")
    return ManifestRecord(
        image=image,
        label=entry["label"],
        site=normalize_site(entry["site"]),
        url=str(entry.get("url") or ""),
        source=str(entry.get("source") or ""),
        boxes=boxes,
        html=html,
        role=entry.get("role") or None,
    )


def read_manifests(directories: Iterable[str | Path]) -> list[ManifestRecord]:
    """Read and concatenate several dataset folders."""
    records: list[ManifestRecord] = []
    for directory in directories:
        records.extend(read_manifest(directory))
    if not records:
        raise ManifestError("no dataset folders given")
    return records


def record_roles(records: Sequence[ManifestRecord]) -> list[str | None]:
    """Each record's split role (None: unknown site without a role of its own)."""
    split = load_split()
    roles: list[str | None] = []
    for record in records:
        if record.role is not None:
            if record.role not in ROLES:
                raise ManifestError(f"{record.image}: role must be one of {ROLES}, got {record.role!r}")
            roles.append(record.role)
            continue
        try:
            roles.append(split.role(record.site))
        except UnknownDomain:
            roles.append(None)
    return roles


def summarize(records: Sequence[ManifestRecord], classes: Sequence[str]) -> dict[str, Any]:
    """Counts of pages, sites, classes and sources, for reports and model cards."""
    return {
        "pages": len(records),
        "sites": len({record.site for record in records}),
        "classes": dict(sorted(Counter(classes).items())),
        "sources": dict(sorted(Counter(record.source for record in records).items())),
    }


logger = logging.getLogger(__name__)

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
    ``statistics``: the page statistics' groups (:func:`models.pagetype.layout.page_statistics`)."""
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
    html = record_html(record)
    page["statistics"] = torch.from_numpy(
        page_statistics(boxes, width, record_address(record, html), statistics, html)
    )
    return page


def record_html(record: ManifestRecord) -> str:
    """The page's captured HTML ("" when the manifest names none)."""
    if record.html is None:
        return ""
    try:
        return read_local_artifact(record.html).decode("utf-8", errors="replace")
    except OSError as exc:
        raise ManifestError(f"{record.html}: unreadable HTML: {exc}") from exc


def record_address(record: ManifestRecord, html: str) -> str:
    """The page's own address (canonical link or ``og:url`` in its captured ``html``),
    else the URL it was captured from."""
    return page_address(html, record.url) if html else record.url


def _gray_uint8(screenshot: Image.Image) -> torch.Tensor:
    """LeNet-5's input, kept small: the normalized grayscale square back in 0..255."""
    normalized = GRAY_TRANSFORM(screenshot)
    return ((normalized * 0.5 + 0.5) * 255).round().clamp(0, 255).to(torch.uint8)


def gray_float(gray: torch.Tensor) -> torch.Tensor:
    """uint8 grayscale squares → LeNet-5's normalized input (values in [-1, 1])."""
    return gray.float() / 127.5 - 1.0
