"""An :class:`Extraction` from rendered blocks and the page's own metadata: the last step
of every extractor that picks content from the DOM (BoilerNet, DOM PageRank, ...)."""

from __future__ import annotations

from collections.abc import Sequence

from pipelines.extraction.dom import HtmlElement
from pipelines.extraction.metadata import Metadata, extract_metadata
from pipelines.extraction.page import ExtractedItem, Extraction
from pipelines.extraction.textformat import Block, to_markdown, to_text


def extraction_of(
    extractor: str, page_type: str, root: HtmlElement, base: str, blocks: list[Block]
) -> Extraction:
    """The extraction of ``blocks``, with title, author, date, language and canonical URL
    read from the document ``root`` (relative URLs resolved against ``base``)."""
    return extraction_with(extractor, page_type, extract_metadata(root, base), blocks)


def extraction_with(
    extractor: str,
    page_type: str,
    metadata: Metadata,
    blocks: list[Block],
    items: Sequence[ExtractedItem] = (),
) -> Extraction:
    """The extraction of ``blocks`` (and a list page's ``items``) with the page's
    ``metadata`` (already read)."""
    return Extraction(
        extractor=extractor,
        page_type=page_type,
        title=metadata.title,
        text=to_text(blocks),
        markdown=to_markdown(blocks),
        items=list(items),
        author=metadata.author,
        published=metadata.published,
        language=metadata.language,
        canonical_url=metadata.canonical_url,
    )
