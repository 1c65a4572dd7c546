"""The ``element-classifier`` extractor (seed 002, constractor): every rendered element
under body gets a feature vector (:mod:`pipelines.extraction.element_features`), a
gradient-boosted tree ensemble gives each the probability of being the page's main
element, and the most probable one's text is the extraction.

Needs the capture's element boxes (the geometry comes from the render); a page without
boxes, body or candidates yields None with a logged reason.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np

from models.element_classifier import CheckpointError, TreeEnsemble
from models.shipped import shipped_file
from pipelines.config import SettingsLike
from pipelines.extraction.denoise import invisible_elements
from pipelines.extraction.dom import HtmlElement, base_url, parse_html
from pipelines.extraction.element_features import ALL_FEATURES, feature_matrix
from pipelines.extraction.metadata import extract_metadata
from pipelines.extraction.page import ARTICLE, Extraction, Page
from pipelines.extraction.registry import configured_options, register
from pipelines.extraction.textformat import Block, render_blocks, to_markdown, to_text

logger = logging.getLogger(__name__)

#: The checkpoint shipped with the repository (what the registered instance loads).
SHIPPED_CHECKPOINT = shipped_file("models", "checkpoints/element-classifier.npz")
KNOWN_FEATURES = ALL_FEATURES


@dataclass(frozen=True)
class ElementChoice:
    """The element a model picks on a page, with its box and probability (for a model of
    each element's word F1: its estimate)."""

    element: HtmlElement
    root: HtmlElement
    path: str
    box: dict[str, Any]
    probability: float


@register
class ElementClassifierExtractor:
    """Extracts the text of the element the classifier ranks first."""

    name: ClassVar[str] = "element-classifier"

    @dataclass(frozen=True)
    class Options:
        """``checkpoint``: the model (.npz written by ``scrapy train-element-classifier``)."""

        checkpoint: Path

    def __init__(self, options: Options, model: TreeEnsemble | None = None):
        self.options = options
        if model is not None:
            self.__dict__["model"] = model

    @classmethod
    def from_settings(cls, settings: SettingsLike | None = None) -> Self:
        """Load PAGESIGHT_ELEMENT_CLASSIFIER_CHECKPOINT (empty: the shipped one) once;
        CheckpointError (one line) when it is unusable."""
        configured = settings.get("PAGESIGHT_ELEMENT_CLASSIFIER_CHECKPOINT") if settings is not None else None
        options = configured_options(
            cls.name, cls.Options(checkpoint=Path(configured) if configured else SHIPPED_CHECKPOINT), settings
        )
        return cls(options, TreeEnsemble.load(Path(options.checkpoint), KNOWN_FEATURES))

    @cached_property
    def model(self) -> TreeEnsemble:
        return TreeEnsemble.load(self.options.checkpoint, KNOWN_FEATURES)

    def choose(self, page: Page) -> ElementChoice | None:
        """The most probable main element of ``page``, or None with a logged reason."""
        where = page.url or "<page>"
        if not page.boxes:
            logger.info("%s: no element boxes for %s (it needs a rendered capture)", self.name, where)
            return None
        root = parse_html(page.html)
        if root is None or root.find("body") is None:
            logger.info("%s: %s has no body", self.name, where)
            return None
        try:
            model = self.model
        except CheckpointError as error:
            logger.warning("%s: %s", self.name, error)
            return None
        viewport_height = int(model.meta["viewport_height"])
        found, rows = feature_matrix(root, page.boxes, model.features, viewport_height)
        if not found:
            logger.info("%s: no boxed element with text on %s", self.name, where)
            return None
        scores = model.raw_scores(np.asarray(rows))
        best = int(np.argmax(scores))
        chosen = found[best]
        return ElementChoice(
            chosen.element, root, chosen.path, chosen.box, float(model.confidence(scores[best]))
        )

    def extract(self, page: Page) -> Extraction | None:
        choice = self.choose(page)
        if choice is None:
            return None
        base = base_url(choice.root, page.url)
        blocks = shown_blocks(choice.root, choice.element, page.boxes or [], base)
        if not blocks:
            logger.info("%s: the chosen element %s of %s shows no text", self.name, choice.path, page.url)
            return None
        metadata = extract_metadata(choice.root, base)
        return Extraction(
            extractor=self.name,
            page_type=page.page_type or ARTICLE,
            title=metadata.title,
            text=to_text(blocks),
            markdown=to_markdown(blocks),
            author=metadata.author,
            published=metadata.published,
            language=metadata.language,
            canonical_url=metadata.canonical_url,
        )


def shown_blocks(
    root: HtmlElement, element: HtmlElement, boxes: list[dict[str, Any]], base: str
) -> list[Block]:
    """The blocks of ``element`` without its elements the render did not show."""
    inside = subtree_boxes(boxes, root.getroottree().getpath(element))
    hidden = set(invisible_elements(root, inside))
    return render_blocks(element, base, skip=hidden.__contains__)


def subtree_boxes(boxes: list[dict[str, Any]], path: str) -> list[dict[str, Any]]:
    """The boxes of the element at ``path`` and its descendants: all that decides which of
    its elements the render hid (the rest of the page's boxes would only be resolved and
    dropped, ~20 ms on a long page)."""
    inside = path + "/"
    return [box for box in boxes if box.get("path") == path or str(box.get("path", "")).startswith(inside)]


def element_text(html: str, boxes: list[dict[str, Any]], path: str, url: str = "") -> str | None:
    """The shown text of the element at ``path`` of a captured page; None when the page
    has no element there."""
    root = parse_html(html)
    if root is None:
        return None
    try:
        matches = root.getroottree().xpath(path)
    except Exception:  # lxml's XPath errors: a malformed path names no element
        return None
    if not isinstance(matches, list) or len(matches) != 1 or not isinstance(matches[0], HtmlElement):
        return None
    return to_text(shown_blocks(root, matches[0], boxes, base_url(root, url)))
