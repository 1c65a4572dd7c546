"""Main-content extraction: pure algorithms over HTML (no Scrapy imports).

Importing this package registers the built-in extractors: ``iawce``, ``iawce-paper``,
``boilernet``, ``dom-pagerank``, ``element-classifier``, ``vision-element`` and
``ensemble`` / ``ensemble-fast`` (ours) and the peers
``trafilatura``, ``readability`` and ``justext`` (optional packages, imported when one is
built).
"""

from pipelines.extraction import boilernet as _boilernet  # noqa: F401  (registers the extractors)
from pipelines.extraction import dompagerank as _dompagerank  # noqa: F401
from pipelines.extraction import element_classifier as _element_classifier  # noqa: F401
from pipelines.extraction import ensemble as _ensemble  # noqa: F401
from pipelines.extraction import iawce as _iawce  # noqa: F401
from pipelines.extraction import peers as _peers  # noqa: F401
from pipelines.extraction import vision_element as _vision_element  # noqa: F401
from pipelines.extraction.encoding import decode_html
from pipelines.extraction.page import ARTICLE, LIST, PAGE_TYPES, ExtractedItem, Extraction, Extractor, Page
from pipelines.extraction.registry import (
    ExtractorUnavailable,
    available_extractors,
    build_extractor,
    extractor_class,
    register,
)

__all__ = [
    "ARTICLE",
    "LIST",
    "PAGE_TYPES",
    "ExtractedItem",
    "Extraction",
    "Extractor",
    "ExtractorUnavailable",
    "Page",
    "available_extractors",
    "build_extractor",
    "decode_html",
    "extractor_class",
    "register",
]
