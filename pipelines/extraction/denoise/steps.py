"""The denoising steps in their order (:data:`STEPS`), and :func:`denoise`, which walks them.

Each step is a function of the page being denoised (:class:`~.state.DenoisingPage`) that
removes what it finds and says how many elements went; its module is named for the family
it belongs to, and its docstring's first line is its entry in the catalogue
(``docs/denoise-steps.md``, written from this list by ``python -m
pipelines.extraction.denoise.catalogue``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pipelines.extraction.denoise.boilerplate import (
    remove_chrome,
    remove_facet_panels,
    remove_noise_by_class,
    remove_product_surroundings,
)
from pipelines.extraction.denoise.copies import remove_duplicates, remove_quoted_copies, remove_twins
from pipelines.extraction.denoise.discussion import (
    remove_discussion,
    remove_post_chrome,
    remove_reply_subjects,
)
from pipelines.extraction.denoise.empty import remove_empty
from pipelines.extraction.denoise.hidden import remove_invisible, unwrap_noscript
from pipelines.extraction.denoise.labels import remove_control_labels, remove_photo_credits
from pipelines.extraction.denoise.options import DenoiseOptions
from pipelines.extraction.denoise.state import DenoisingPage
from pipelines.extraction.denoise.teasers import remove_teasers
from pipelines.extraction.denoise.vocabulary import NOISE_TABLES
from pipelines.extraction.denoise.widgets import remove_data, remove_forms, remove_sign_up_forms, remove_tags
from pipelines.extraction.dom import HtmlElement
from pipelines.extraction.page import ARTICLE, LIST


@dataclass(frozen=True)
class Step:
    """One removal step: ``name`` keys its count in :func:`denoise`'s result (two steps may
    share one, for different page types), ``page_types`` are the types it runs on, and
    ``function`` removes from the page and returns how many elements went.
    ``reads_declarations``: the step needs what the page declares (a product, a thread),
    which is then read before the first step edits the tree."""

    name: str
    page_types: tuple[str, ...]
    function: Callable[[DenoisingPage], int]
    reads_declarations: bool = False


_ALL = (ARTICLE, LIST)

#: The steps in the order :func:`denoise` runs them.
STEPS: tuple[Step, ...] = (
    Step("invisible", _ALL, remove_invisible),
    Step("noscript unwrapped", _ALL, unwrap_noscript),
    Step("tag", _ALL, remove_tags),
    Step("data", _ALL, remove_data),
    Step("form", (LIST,), remove_forms),
    Step("form", (ARTICLE,), remove_sign_up_forms),
    Step("chrome", _ALL, remove_chrome),
    Step("class", _ALL, remove_noise_by_class),
    Step("facets", (LIST,), remove_facet_panels),
    Step("product", (ARTICLE,), remove_product_surroundings, reads_declarations=True),
    Step("duplicate", _ALL, remove_duplicates),
    Step("twin", (ARTICLE,), remove_twins),
    Step("quoted", _ALL, remove_quoted_copies),
    Step("reply subject", (ARTICLE,), remove_reply_subjects),
    Step("post chrome", (ARTICLE,), remove_post_chrome),
    Step("discussion", (ARTICLE,), remove_discussion, reads_declarations=True),
    Step("teaser", (ARTICLE,), remove_teasers),
    Step("photo credit", (ARTICLE,), remove_photo_credits),
    Step("control label", (ARTICLE,), remove_control_labels),
    Step("empty", _ALL, remove_empty),
)


def denoise(
    root: HtmlElement,
    page_type: str,
    boxes: list[dict[str, Any]] | None = None,
    options: DenoiseOptions = DenoiseOptions(),
    discussion: list[HtmlElement] | None = None,
) -> Counter[str]:
    """Remove noise from the tree of ``root`` in place: the :data:`STEPS` that run on
    ``page_type``, in order, with the thresholds of ``options``. Returns the removals by
    step name (those that removed any); the reader discussion the discussion step removed
    is added to ``discussion`` when given (for ``include_comments``)."""
    table = NOISE_TABLES.get(page_type)
    if table is None:
        raise ValueError(f"no noise table for page type {page_type!r}; known: {', '.join(NOISE_TABLES)}")
    steps = [step for step in STEPS if page_type in step.page_types]
    page = DenoisingPage.read(root, table, options, boxes, any(step.reads_declarations for step in steps))
    removed: Counter[str] = Counter()
    for step in steps:
        removed[step.name] += step.function(page)
    if discussion is not None:
        discussion.extend(page.discussion)
    return +removed
