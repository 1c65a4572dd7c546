"""Which denoiser a model's features were computed with, as a model card records it.

BoilerNet's leaf flags, the element classifier's and the vision model's element features
are computed through the live denoiser (:func:`pipelines.extraction.denoise.denoise`), so
a checkpoint trained with one denoiser and served with another silently sees other
inputs. :func:`denoiser_version` is a hash of the denoiser's output, through its public
function only, on fixed pages (``tests/fixtures/denoiser/``: one list page and one article
of each demo-web site, and ``tests/fixtures/extraction/``), each denoised as an article
and as a list: any change of what it removes from those pages changes the version. A
test (``tests/models/common/test_versions.py``) fails when a shipped checkpoint's card records
another version than the code's: re-measure its validation metrics with the current code
and re-stamp the card when they hold within noise (``python -m models.<family>.restamp``:
BoilerNet's, the element classifier's and the vision element model's), or retrain it.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

#: The fixed pages the version is measured on (in the project's checkout).
FIXTURE_FOLDERS = tuple(
    Path(__file__).resolve().parents[2] / "tests" / "fixtures" / name for name in ("denoiser", "extraction")
)


def fixture_pages() -> list[Path]:
    """The HTML pages :func:`denoiser_version` denoises, in a fixed order;
    FileNotFoundError outside a checkout (an installed wheel carries no fixtures)."""
    pages = sorted(page for folder in FIXTURE_FOLDERS for page in folder.glob("*.html"))
    if not pages:
        raise FileNotFoundError(f"no fixture pages in {', '.join(map(str, FIXTURE_FOLDERS))}")
    return pages


@cache
def denoiser_version() -> str:
    """16 hex digits of the SHA-256 of what the denoiser leaves of the fixture pages
    (the serialized tree) and why it removed the rest (the removal counts), per page and
    page type."""
    from lxml import etree

    from pipelines.extraction.denoise import denoise
    from pipelines.extraction.dom import parse_html
    from pipelines.extraction.page import PAGE_TYPES

    digest = hashlib.sha256()
    for page in fixture_pages():
        html = page.read_text(encoding="utf-8")
        for page_type in PAGE_TYPES:
            root = parse_html(html)
            if root is None:
                raise ValueError(f"{page} holds no markup")
            removed = denoise(root, page_type)
            digest.update(f"{page.name}\0{page_type}\0{sorted(removed.items())}\0".encode())
            digest.update(etree.tostring(root, encoding="unicode").encode())
    return digest.hexdigest()[:16]
