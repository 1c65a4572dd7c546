"""Main-content extraction: pure algorithms over HTML (no Scrapy imports).

Importing this package registers the built-in extractors, ``iawce``, ``iawce-paper`` and
``element-classifier`` (the shipped checkpoint, loaded on first use)
(the peer extractors used for comparisons live in ``pipelines.evaluation.peers``).
"""

from pipelines.extraction import iawce as _iawce  # noqa: F401  (registers the extractors)
from pipelines.extraction.element_classifier import ElementClassifierExtractor
from pipelines.extraction.encoding import decode_html
from pipelines.extraction.page import ARTICLE, LIST, PAGE_TYPES, ExtractedItem, Extraction, Extractor, Page
from pipelines.extraction.registry import available_extractors, get_extractor, register

register(ElementClassifierExtractor.shipped())

__all__ = [
    "ARTICLE",
    "LIST",
    "PAGE_TYPES",
    "ExtractedItem",
    "Extraction",
    "Extractor",
    "Page",
    "available_extractors",
    "decode_html",
    "get_extractor",
    "register",
]
