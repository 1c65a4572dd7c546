"""What an extraction writes on a feed line, wherever the line is made: the crawl's
extraction pipeline (:mod:`pipelines.extract`), ``scrapy extract`` and the Python API
(:mod:`pipelines.extraction.standalone`). Free of Scrapy, so the command and the API
import no crawl machinery."""

from __future__ import annotations

from typing import Any

from crawler.items import PageItem
from models.pagetype.kinds import kind_of_type
from pipelines.extraction.page import Extraction, Extractor
from pipelines.version import PAGESIGHT_VERSION


def apply_extraction(item: PageItem, extraction: Extraction) -> None:
    """Copy an extraction's fields onto the feed item."""
    item.title = extraction.title
    item.text = extraction.text
    item.markdown = extraction.markdown
    item.items = [vars(entry) for entry in extraction.items] or None
    item.author = extraction.author
    item.published = extraction.published
    item.language = extraction.language
    item.canonical_url = extraction.canonical_url
    item.extraction_quality = None if extraction.quality is None else round(extraction.quality, 4)
    if item.page_type is None:
        item.page_type = extraction.page_type
        settle_page_kind(item)


def settle_page_kind(item: PageItem) -> None:
    """``page_kind`` and ``page_kind_score``: the most probable kind of the line's page type
    (:func:`models.pagetype.kinds.kind_of_type`), none without the kind classifier's
    probabilities."""
    if item.page_kind_probabilities is None:
        item.page_kind, item.page_kind_score = None, None
        return
    kind, score = kind_of_type(item.page_kind_probabilities, item.page_type)
    item.page_kind, item.page_kind_score = kind, round(score, 4)


def add_extractor_provenance(provenance: dict[str, Any], extractor: Extractor) -> None:
    """Name ``extractor`` in a line's ``provenance``: its name and version (a peer's is its
    package's, ours PageSight's), and the short hashes of its checkpoints beside any the
    line has already (the classifier's)."""
    provenance["extractor"] = {
        "name": extractor.name,
        "version": getattr(extractor, "version", None) or PAGESIGHT_VERSION,
    }
    checkpoints = dict(getattr(extractor, "checkpoint_hashes", {}))
    if checkpoints:
        provenance.setdefault("checkpoints", {}).update(checkpoints)
