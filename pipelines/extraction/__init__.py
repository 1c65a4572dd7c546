"""Main-content extraction: pure algorithms over HTML (no Scrapy imports).

Importing this package registers the built-in extractors, ``iawce``, ``iawce-paper``,
``boilernet`` and ``dom-pagerank`` (the peer extractors used for comparisons live in
``pipelines.evaluation.peers``).
"""

from pipelines.extraction import iawce as _iawce  # noqa: F401  (registers the extractors)
from pipelines.extraction.boilernet import BoilerNetExtractor
from pipelines.extraction.dompagerank import DomPageRankExtractor
from pipelines.extraction.encoding import decode_html
from pipelines.extraction.page import ARTICLE, LIST, PAGE_TYPES, ExtractedItem, Extraction, Extractor, Page
from pipelines.extraction.registry import available_extractors, get_extractor, register

register(BoilerNetExtractor())
register(DomPageRankExtractor())

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
