"""The ``vision-element`` extractor (seed 000): the screenshot decides which element is the
main content. Candidates are the element classifier's (boxed elements under body with
text, :func:`pipelines.extraction.element_features.candidates`) at least ``min_side`` px
wide and high (the size its checkpoint was trained with, unless the option sets another;
shown or not: :func:`models.vision_element.model.size_mask`); one pass of the frozen trunk over
the screenshot's top square, each candidate's box pooled over its feature map plus the box
geometry (and, for a head that takes them, the box's relations to its parent and children
and the element classifier's features of the same element), a small head scores them
(:mod:`models.vision_element.model`), and the best one's shown text is the extraction
(:func:`~pipelines.extraction.element_classifier.chosen_extraction`: cleaned of what the
denoiser drops inside it; the page's cleaned body when no candidate passes the size filter
or the best scores below ``fallback_below``).

A candidate below the top square (the cut) has no pixels: it is scored from its geometry
alone (its pooled features are zero, ``below_cut`` is 1).

Needs the capture's screenshot and element boxes: a page without either (a bare HTML
file, a failed capture) yields None with a logged reason.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Self

from models.common.shipped import shipped_file
from pipelines.config import SettingsLike
from pipelines.extraction.dom import HtmlElement
from pipelines.extraction.element_classifier import CLEAN_ELEMENT, FALLBACK_BELOW, chosen_extraction
from pipelines.extraction.element_features import DenoisedCopy, candidates, feature_matrix
from pipelines.extraction.page import ARTICLE, Extraction, Page
from pipelines.extraction.parsed import ParsedPage
from pipelines.extraction.registry import configured_options, register

if TYPE_CHECKING:
    from models.common.efficientnet import Trunk
    from models.vision_element.model import BoxHead

# torch and the model code are imported where the model is loaded or run: registering
# this extractor (every import of pipelines.extraction) must not cost torch's 3 s import.

logger = logging.getLogger(__name__)

SHIPPED_CHECKPOINT = shipped_file("models", "checkpoints/vision-element.pt")
#: Shortest side (px) of a candidate box: keeps the main element of 98.4 % of WCXB dev's
#: annotated pages (97.7 % at 100 px; README, Vision element model). The trainer's default;
#: a checkpoint records the size it was trained with, and the extractor filters with that.
MIN_SIDE = 50


@dataclass(frozen=True)
class VisionModel:
    """A loaded checkpoint: the head, the frozen trunk and the candidate size filter (px)
    the head was trained with."""

    head: BoxHead
    trunk: Trunk
    min_side: float

    @classmethod
    def load(cls, path: Path) -> VisionModel:
        """The checkpoint at ``path``; CheckpointError (one line) when it is unusable."""
        from models.vision_element.checkpoint import load_checkpoint

        head, trunk, meta = load_checkpoint(path)
        return cls(head, trunk, float(meta.get("config", {}).get("min_side", MIN_SIDE)))


@dataclass(frozen=True)
class VisionChoice:
    """The candidate the model ranks first, with its score (a probability)."""

    element: HtmlElement
    root: HtmlElement
    path: str
    score: float
    below_cut: bool


@register
class VisionElementExtractor:
    """Extracts the shown text of the candidate the vision model ranks first."""

    name: ClassVar[str] = "vision-element"

    @dataclass(frozen=True)
    class Options:
        """``checkpoint``: the head (``scrapy train-vision-element``); ``min_side``: the
        candidate size filter (px; None: the one the checkpoint was trained with);
        ``clean_element``, ``fallback_below``: how its pick is rendered
        (:func:`~pipelines.extraction.element_classifier.chosen_extraction`)."""

        checkpoint: Path = SHIPPED_CHECKPOINT
        min_side: float | None = None
        clean_element: bool = CLEAN_ELEMENT
        fallback_below: float = FALLBACK_BELOW

    def __init__(self, options: Options, model: VisionModel | None = None):
        self.options = options
        if model is not None:
            self.__dict__["model"] = model

    @classmethod
    def from_settings(cls, settings: SettingsLike | None = None) -> Self:
        """Load PAGESIGHT_VISION_ELEMENT_CHECKPOINT (empty: the shipped one) once;
        CheckpointError (one line) when it is unusable."""
        configured = settings.get("PAGESIGHT_VISION_ELEMENT_CHECKPOINT") if settings is not None else None
        options = configured_options(
            cls.name, cls.Options(checkpoint=Path(configured) if configured else SHIPPED_CHECKPOINT), settings
        )
        return cls(options, VisionModel.load(options.checkpoint))

    @cached_property
    def model(self) -> VisionModel:
        return VisionModel.load(self.options.checkpoint)

    def choose(self, page: Page) -> VisionChoice | None:
        """The best-scored candidate of ``page``, or None with a logged reason."""
        ranked = self._rank(page)
        return ranked[1] if ranked is not None else None

    def _rank(self, page: Page) -> tuple[ParsedPage, VisionChoice | None, DenoisedCopy | None] | None:
        """The parsed page, its best-scored candidate (None: no candidate passes the size
        filter) and the page's denoised copy when the head's features made one, or None
        with a logged reason when the page, its screenshot or the model cannot be used."""
        import torch

        from models.common.checkpoint import CheckpointError
        from models.vision_element.data import decode_screenshot, screenshot_input
        from models.vision_element.model import (
            SCREEN_HEIGHT,
            box_relations,
            head_inputs,
            kept_parents,
            size_mask,
            text_context,
        )

        where = page.url or "<page>"
        if not page.boxes:
            logger.info("%s: no element boxes for %s (it needs a rendered capture)", self.name, where)
            return None
        if page.screenshot is None:
            logger.info("%s: no screenshot for %s (it needs a rendered capture)", self.name, where)
            return None
        parsed = page.parsed
        if parsed is None or parsed.root.find("body") is None:
            logger.info("%s: %s has no body", self.name, where)
            return None
        root = parsed.root
        try:
            png = page.screenshot_png
            assert png is not None
            image = decode_screenshot(png)
        except OSError as error:
            logger.info("%s: unreadable screenshot for %s (%s)", self.name, where, error)
            return None
        try:
            model = self.model
        except CheckpointError as error:
            logger.warning("%s: %s", self.name, error)
            return None
        head, trunk = model.head, model.trunk
        min_side = self.options.min_side if self.options.min_side is not None else model.min_side
        denoised, elements = None, None
        if head.element_features:
            page_type = page.page_type or ARTICLE
            denoised = DenoisedCopy.of(root, page_type)
            every, rows = feature_matrix(
                root, page.boxes, head.element_features, int(SCREEN_HEIGHT), page_type, denoised
            )
            elements = torch.from_numpy(rows).float()
        else:
            every = candidates(root, page.boxes)
        boxes = torch.tensor([[c.box[k] for k in ("x", "y", "w", "h")] for c in every], dtype=torch.float32)
        keep = torch.nonzero(size_mask(boxes.reshape(-1, 4), min_side)).flatten().tolist()
        if not keep:
            logger.info("%s: no candidate of %g px on %s", self.name, min_side, where)
            return parsed, None, denoised
        pixels, cell_px, cut = screenshot_input(image)
        text_lens = torch.tensor([float(c.box.get("text_len", 0)) for c in every])
        paths = [c.path for c in every]
        context = text_context(paths, text_lens)[keep]
        relations = box_relations(paths, boxes, text_lens)[keep] if head.relations else None
        with torch.inference_mode():
            inputs = head_inputs(
                trunk(pixels)[0] if head.pixels else None,
                boxes[keep],
                text_lens[keep],
                context,
                cell_px,
                cut,
                float(image.width),
                head.text,
                relations,
                elements[keep] if elements is not None else None,
            )
            scores = torch.sigmoid(head(inputs, kept_parents(paths, keep) if head.neighbours else None))
        best = int(torch.argmax(scores))
        chosen = every[keep[best]]
        choice = VisionChoice(chosen.element, root, chosen.path, float(scores[best]), chosen.box["y"] >= cut)
        return parsed, choice, denoised

    def extract(self, page: Page) -> Extraction | None:
        ranked = self._rank(page)
        if ranked is None:
            return None
        parsed, choice, denoised = ranked
        return chosen_extraction(
            self.name,
            page,
            parsed,
            (choice.element, choice.score) if choice is not None else None,
            self.options.clean_element,
            self.options.fallback_below,
            denoised,
        )
