"""The ``element-classifier`` extractor (seed 002, constractor): every rendered element
under body gets a feature vector (:mod:`pipelines.extraction.element_features`), a
gradient-boosted tree ensemble gives each the probability of being the page's main
element (or its estimated word F1), and the best one's shown text, without what the
denoiser drops inside it, is the extraction (:func:`chosen_extraction`, shared with the
``vision-element`` extractor). A page without a candidate, or whose best one scores below
``fallback_below``, gets its cleaned body instead, with a logged reason.

Needs the capture's element boxes (the geometry comes from the render); a page without
boxes or body yields None with a logged reason.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar, Self

import numpy as np

from models.common.checkpoint import CheckpointError
from models.common.shipped import shipped_file
from models.element.model import TreeEnsemble
from pipelines.config import SettingsLike
from pipelines.extraction.denoise import trusted_hidden
from pipelines.extraction.dom import HtmlElement, base_url, body_of, parse_html
from pipelines.extraction.element_features import (
    ALL_FEATURES,
    CLEANING_FEATURES,
    DenoisedCopy,
    feature_matrix,
)
from pipelines.extraction.page import ARTICLE, Extraction, Page
from pipelines.extraction.parsed import ParsedPage
from pipelines.extraction.registry import configured_options, register
from pipelines.extraction.result import extraction_with
from pipelines.extraction.textformat import Block, render_blocks, to_text

logger = logging.getLogger(__name__)

#: The checkpoint shipped with the repository (what the registered instance loads).
SHIPPED_CHECKPOINT = shipped_file("models", "checkpoints/element-classifier.npz")
KNOWN_FEATURES = ALL_FEATURES
#: Defaults of both element extractors' ``clean_element`` and ``fallback_below`` (the
#: pick's score, an estimated word F1 or a probability, under which the page's cleaned
#: body is the extraction), chosen on WCXB dev's validation captures (README).
CLEAN_ELEMENT = True
FALLBACK_BELOW = 0.3


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
        """``checkpoint``: the model (.npz written by ``scrapy train-element-classifier``);
        ``clean_element``, ``fallback_below``: how its pick is rendered
        (:func:`chosen_extraction`)."""

        checkpoint: Path
        clean_element: bool = CLEAN_ELEMENT
        fallback_below: float = FALLBACK_BELOW

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
        ranked = self._rank(page, clean=False)
        return ranked[1] if ranked is not None else None

    def _rank(
        self, page: Page, clean: bool
    ) -> tuple[ParsedPage, ElementChoice | None, DenoisedCopy | None] | None:
        """The parsed page, its most probable main element (None: no candidate) and the
        page's denoised copy (made once, when the model's features or a ``clean``
        rendering need it), or None with a logged reason when the page or the model
        cannot be used."""
        where = page.url or "<page>"
        if not page.boxes:
            logger.info("%s: no element boxes for %s (it needs a rendered capture)", self.name, where)
            return None
        parsed = page.parsed
        if parsed is None or parsed.root.find("body") is None:
            logger.info("%s: %s has no body", self.name, where)
            return None
        root = parsed.root
        try:
            model = self.model
        except CheckpointError as error:
            logger.warning("%s: %s", self.name, error)
            return None
        needs_copy = clean or any(name in CLEANING_FEATURES for name in model.features)
        denoised = DenoisedCopy.of(root, page.page_type or ARTICLE) if needs_copy else None
        viewport_height = int(model.meta["viewport_height"])
        found, rows = feature_matrix(
            root, page.boxes, model.features, viewport_height, page.page_type or ARTICLE, denoised
        )
        if not found:
            logger.info("%s: no boxed element with text on %s", self.name, where)
            return parsed, None, denoised
        scores = model.raw_scores(np.asarray(rows))
        best = int(np.argmax(scores))
        chosen = found[best]
        choice = ElementChoice(
            chosen.element, root, chosen.path, chosen.box, float(model.confidence(scores[best]))
        )
        return parsed, choice, denoised

    def extract(self, page: Page) -> Extraction | None:
        ranked = self._rank(page, clean=self.options.clean_element)
        if ranked is None:
            return None
        parsed, choice, denoised = ranked
        return chosen_extraction(
            self.name,
            page,
            parsed,
            (choice.element, choice.probability) if choice is not None else None,
            self.options.clean_element,
            self.options.fallback_below,
            denoised,
        )


def chosen_extraction(
    extractor: str,
    page: Page,
    parsed: ParsedPage,
    pick: tuple[HtmlElement, float] | None,
    clean: bool,
    fallback_below: float,
    denoised: DenoisedCopy | None = None,
) -> Extraction | None:
    """The extraction of an element extractor's ``pick`` (the element and its score) on
    ``page`` (``parsed``, its one parse): the element's shown blocks, ``clean`` of what the denoiser
    removes (:func:`element_blocks`; ``denoised``, the page's denoised copy for its type,
    when the caller made one). When there is no pick, its score is below
    ``fallback_below`` or it shows no text, the page's cleaned body instead, with a
    logged reason; None when that shows no text either."""
    page_type = page.page_type or ARTICLE
    root, base = parsed.root, parsed.base
    boxes = page.boxes or []
    blocks: list[Block] = []
    if pick is None:
        reason = "no candidate"
    elif pick[1] < fallback_below:
        reason = f"the pick scores {pick[1]:.3f} < {fallback_below:g}"
    else:
        if clean and denoised is None:
            denoised = DenoisedCopy.of(root, page_type)
        blocks = element_blocks(root, pick[0], boxes, base, page_type if clean else None, denoised)
        reason = "the pick shows no text"
    if not blocks:
        logger.info("%s: %s on %s; the cleaned body instead", extractor, reason, page.url or "<page>")
        blocks = element_blocks(root, body_of(root), boxes, base, page_type, denoised)
    if not blocks:
        logger.info("%s: the body of %s shows no text", extractor, page.url or "<page>")
        return None
    return extraction_with(extractor, page_type, parsed.metadata, blocks)


def shown_blocks(
    root: HtmlElement, element: HtmlElement, boxes: list[dict[str, Any]], base: str
) -> list[Block]:
    """The blocks of ``element`` without its elements the render did not show (all of
    them stay when those hold more than a share of its text: :func:`trusted_hidden`)."""
    inside = subtree_boxes(boxes, root.getroottree().getpath(element))
    hidden = set(trusted_hidden(root, inside, element))
    return render_blocks(element, base, skip=hidden.__contains__)


def element_blocks(
    root: HtmlElement,
    element: HtmlElement,
    boxes: list[dict[str, Any]],
    base: str,
    clean_for: str | None,
    denoised: DenoisedCopy | None = None,
) -> list[Block]:
    """The shown blocks of the element an extractor chose; with a page type ``clean_for``,
    without what :func:`denoise` for that type removes from the page (share bars, comment
    threads, related lists, menus inside the element). The page is denoised as a copy
    (``denoised``, made for ``clean_for`` when not given; the copy's element is found by
    position: a path of an odd tag, ``fb:like``, is no valid XPath); when the denoiser
    drops the element itself, or all of it, its shown blocks stand."""
    if clean_for is None:
        return shown_blocks(root, element, boxes, base)
    denoised = denoised or DenoisedCopy.of(root, clean_for)
    twin = denoised.kept(element)
    if twin is None:
        return shown_blocks(root, element, boxes, base)
    path = root.getroottree().getpath(element)
    hidden = {denoised.twins[el] for el in trusted_hidden(root, subtree_boxes(boxes, path), element)}
    return render_blocks(twin, base, skip=hidden.__contains__) or shown_blocks(root, element, boxes, base)


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
