"""The ``boilernet`` extractor (seed 001): a BiLSTM (or a seed ensemble of them, their
probabilities averaged) labels every text leaf of the page as content or boilerplate; the
content leaves are rendered in place (headings, paragraphs,
lists and tables keep their shape; text under the tags that hold no leaf, such as
buttons and selects, is not rendered). Leaves inside a ``<form>`` are dropped by rule (the
seed's porter saw forms kept) when the checkpoint says so (the rule is calibrated on
validation with the threshold: some forums wrap their posts in a form). A ``<noscript>``
holding most of the page's text (a script-built page's server-rendered fallback) is
unwrapped first, as iawce's denoiser and the trainer do. The network and
its calibration come from a checkpoint trained by ``scrapy train-boilernet``
(:mod:`models.boilernet.train`).

torch is imported when the checkpoint is loaded, not when this module is.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Self

from models.common.shipped import shipped_file
from pipelines.config import SettingsLike
from pipelines.extraction.denoise import unwrap_script_fallback
from pipelines.extraction.dom import HtmlElement, base_url, body_of, parse_html
from pipelines.extraction.leaves import IGNORED_TAGS, TextLeaf, text_leaves
from pipelines.extraction.page import Extraction, Page
from pipelines.extraction.pagetype import guess_page_type
from pipelines.extraction.registry import configured_options, register
from pipelines.extraction.result import extraction_of
from pipelines.extraction.textformat import render_blocks

if TYPE_CHECKING:
    from models.boilernet.checkpoint import LoadedBoilerNet

logger = logging.getLogger(__name__)

#: The checkpoint shipped with the package (PAGESIGHT_BOILERNET_CHECKPOINT's default), a
#: real path also from a zipped Scrapyd egg.
SHIPPED_CHECKPOINT = shipped_file("models", "checkpoints/boilernet.pt")


@register
class BoilerNetExtractor:
    """Keep the text leaves the network scores at or above the threshold."""

    name: ClassVar[str] = "boilernet"

    @dataclass(frozen=True)
    class Options:
        checkpoint: str = str(SHIPPED_CHECKPOINT)
        #: P(content) a leaf needs; None: the threshold calibrated on validation (checkpoint).
        threshold: float | None = None
        #: Drop the leaves inside a <form>; None: the checkpoint's calibrated choice.
        drop_forms: bool | None = None

    def __init__(self, options: Options | None = None, network: LoadedBoilerNet | None = None) -> None:
        self.options = options or self.Options()
        self._network = network
        self._lock = threading.Lock()
        self._failure: str | None = None

    @classmethod
    def from_settings(cls, settings: SettingsLike | None = None) -> Self:
        """Load the checkpoint once; CheckpointError (one line) when it is
        missing or broken."""
        from models.boilernet.checkpoint import load_boilernet

        options = cls.Options()
        if settings is not None:
            threshold = settings.get("PAGESIGHT_BOILERNET_THRESHOLD")
            options = cls.Options(
                checkpoint=settings.get("PAGESIGHT_BOILERNET_CHECKPOINT") or str(SHIPPED_CHECKPOINT),
                threshold=float(threshold) if threshold not in (None, "") else None,
            )
        options = configured_options(cls.name, options, settings)
        return cls(options, load_boilernet(options.checkpoint))

    def network(self) -> LoadedBoilerNet | None:
        """The loaded network; an instance built without one loads it on first use (and
        logs why, once, when it cannot)."""
        with self._lock:
            if self._network is None and self._failure is None:
                from models.boilernet.checkpoint import load_boilernet
                from models.common.checkpoint import CheckpointError

                try:
                    self._network = load_boilernet(self.options.checkpoint)
                except CheckpointError as error:
                    self._failure = str(error)
                    logger.error("boilernet is unusable: %s", error)
            return self._network

    def extract(self, page: Page) -> Extraction | None:
        network = self.network()
        if network is None:
            logger.info("boilernet skipped %s: %s", page.url or "<page>", self._failure)
            return None
        root = parse_html(page.html)
        if root is None:
            logger.info("boilernet found nothing on %s: the document has no markup", page.url or "<page>")
            return None
        body = body_of(root)
        unwrap_script_fallback(body)  # a script-built page's server-rendered text, as the trainer sees it
        page_type = page.page_type or guess_page_type(body)
        leaves = text_leaves(body)
        if not leaves:
            logger.info("boilernet found no text on %s", page.url or "<page>")
            return None
        probabilities = leaf_probabilities(network, leaves, root, page_type)
        threshold = network.threshold if self.options.threshold is None else self.options.threshold
        drop_forms = network.drop_forms if self.options.drop_forms is None else self.options.drop_forms
        kept = 0
        for leaf, probability in zip(leaves, probabilities, strict=True):
            in_form = drop_forms and any(e.tag == "form" for e in leaf.ancestors())
            if probability >= threshold and not in_form:
                kept += 1
            else:
                leaf.clear()
        if not kept:
            logger.info("boilernet kept no text leaf of %s", page.url or "<page>")
            return None
        base = base_url(root, page.url)
        # Text under the tags that hold no leaf (buttons, selects, ...) was never labelled: skip it.
        blocks = render_blocks(body, base, skip=lambda element: element.tag in IGNORED_TAGS)
        return extraction_of(self.name, page_type, root, base, blocks)


def leaf_probabilities(
    network: LoadedBoilerNet, leaves: list[TextLeaf], root: HtmlElement, page_type: str
) -> list[float]:
    """P(content) of each leaf (the text leaves of ``root``'s body, in order) of a page of
    ``page_type``: the checkpoint's networks' mean (the leaf inputs are computed once)."""
    from models.boilernet.data import (
        IawceMarks,
        ancestor_tags,
        attribute_words,
        feature_rows,
        iawce_marks,
        leaf_flags,
    )

    pairs = [(leaf.tokens, ancestor_tags(leaf)) for leaf in leaves]
    features = feature_rows(network.features, leaves, pairs) if network.config.features else None
    attributes = attribute_words(leaves) if network.vocabulary.attributes else None
    flags = None
    if network.flags:
        marks = (
            iawce_marks(root, page_type)
            if set(network.flags) - {"list_page"}
            else IawceMarks.none(len(leaves))
        )
        flags = leaf_flags(network.flags, page_type, marks)
    encoded = network.encoder.encode(pairs, features, attributes, flags)
    return network.probabilities([encoded])[0].tolist()
