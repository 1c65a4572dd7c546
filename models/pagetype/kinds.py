"""Page kinds: WCXB's seven (article, listing, collection, forum, product, documentation,
service) and the page type each one is.

The kind classifier is a page-type checkpoint whose labels are the seven kinds
(``scrapy train-classifier --labels wcxb-7``). The feed's ``page_kind`` is never at odds
with its ``page_type``: it is the most probable kind of that page type, whoever decided
the type (the page-type classifier, or the extractor's HTML fallback when the classifier
was unsure), and ``page_kind_score`` is that kind's probability.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from models.pagetype.labels import LabelMapping, default_label_mapping, load_label_mapping

#: WCXB's seven page kinds, in the shipped kind model's output order.
KINDS_MAPPING = "wcxb-7"
#: The page type of each kind: the default mapping (collection and listing are lists).
TYPE_OF_KIND: LabelMapping = default_label_mapping()


class KindLabelsError(ValueError):
    """A kind checkpoint whose labels are not page kinds."""


@lru_cache(maxsize=1)
def page_kinds() -> tuple[str, ...]:
    """WCXB's seven kinds (:data:`KINDS_MAPPING`), read once."""
    return load_label_mapping(KINDS_MAPPING).labels


def check_kind_labels(labels: Sequence[str], where: str) -> None:
    """KindLabelsError unless every label is a WCXB kind and every page type has one."""
    strays = [label for label in labels if label not in page_kinds()]
    if strays:
        raise KindLabelsError(f"{where}: labels {strays} are not page kinds (one of {list(page_kinds())})")
    uncovered = set(TYPE_OF_KIND.labels) - {TYPE_OF_KIND.label_of(label) for label in labels}
    if uncovered:
        raise KindLabelsError(f"{where}: no kind of page type {sorted(uncovered)} among {list(labels)}")


def kind_of_type(probabilities: Mapping[str, float], page_type: str | None) -> tuple[str, float]:
    """The most probable kind whose page type is ``page_type`` (any kind when None, or a
    type that is neither article nor list) and its probability; ``probabilities`` holds
    every kind's. A page type that is itself a kind but not a page type (a seven-kind
    page-type model's ``product``) is the kind."""
    known = page_type in TYPE_OF_KIND.labels
    if not known and page_type is not None and page_type in probabilities:
        return page_type, probabilities[page_type]
    eligible = {
        kind: p for kind, p in probabilities.items() if not known or TYPE_OF_KIND.label_of(kind) == page_type
    }
    if not eligible:
        raise KindLabelsError(f"no kind of page type {page_type!r} among {sorted(probabilities)}")
    kind = max(eligible, key=lambda name: eligible[name])
    return kind, eligible[kind]
