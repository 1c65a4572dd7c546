"""Features of one extraction candidate for the learned quality estimate (issue 14).

Each candidate (one extractor's text on one page) is described by its own shape
(length, lines, how much of it is link text), by the page (its text length, its share
of link text, its page type) and by how well it agrees with the other candidates on the
same page (word F1 between candidate texts: extractors of different natures that agree
are likely right). Pure functions over text; the page statistics come from the parsed
page once per page (:func:`page_stats`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from statistics import median

from lxml import etree

from pipelines.evaluation.metrics import PRF
from pipelines.evaluation.text import tokens
from pipelines.extraction.dom import HtmlElement, body_of

#: Elements whose text is never shown (left out of the page's text).
_HIDDEN_TAGS = ("script", "style", "noscript", "template")


@dataclass(frozen=True)
class PageStats:
    """What the features need to know about the page: its visible text's word count and
    the share of those words inside links."""

    words: int
    link_words: int
    link_bag: dict[str, int]

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def page_stats(root: HtmlElement | None) -> PageStats:
    """Word counts of the parsed page's body text and of its link text (the link words as
    a bag, to measure how much of a candidate is link text); the tree is not changed."""
    if root is None:
        return PageStats(0, 0, {})
    body = body_of(root)
    words = len(tokens(" ".join(_shown_text(body))))
    links: Counter[str] = Counter()
    for anchor in body.iter("a"):
        links.update(tokens(" ".join(_shown_text(anchor))))
    return PageStats(words, sum(links.values()), dict(links))


def _shown_text(element: HtmlElement) -> Iterator[str]:
    """``element.itertext()`` (same walk, same pieces) without the text of hidden tags."""
    for event, node in etree.iterwalk(element, events=("start", "end")):
        if event == "start":
            if node.tag not in _HIDDEN_TAGS and node.text:
                yield node.text
        elif node is not element and node.tail:
            yield node.tail


def _overlap_f1(first: Counter[str], first_total: int, second: Counter[str], second_total: int) -> float:
    matched = sum((first & second).values())
    return PRF.from_counts(matched, first_total, second_total).f1


#: The columns that never name a candidate (:func:`agnostic_features`), first in every row.
AGNOSTIC_FEATURES = (
    "empty",
    "log_words",
    "page_share",
    "median_ratio",
    "link_share",
    "log_lines",
    "words_per_line",
    "short_line_share",
    "agreement_mean",
    "agreement_max",
    "page_agreement",
    "majority_precision",
    "majority_recall",
    "page_log_words",
    "page_link_share",
    "is_list",
)


def feature_names(candidates: Sequence[str]) -> list[str]:
    """The feature names for a candidate set (its order fixes the one-hot and the
    per-candidate agreement columns)."""
    return [
        *AGNOSTIC_FEATURES,
        *(f"agrees_{name}" for name in candidates),
        *(f"is_{name}" for name in candidates),
    ]


def candidate_features(
    texts: Sequence[str | None], candidates: Sequence[str], page: PageStats, page_type: str
) -> list[list[float]]:
    """One feature row per candidate (``texts[i]`` is candidate ``candidates[i]``'s text,
    None when it found nothing), in :func:`feature_names` order: the
    :func:`agnostic_features`, then the word F1 with each candidate and the one-hot."""
    rows, agreement = agnostic_features(texts, page, page_type)
    return [
        [*row, *agreement[i], *(float(i == j) for j in range(len(candidates)))] for i, row in enumerate(rows)
    ]


def agnostic_features(
    texts: Sequence[str | None], page: PageStats, page_type: str
) -> tuple[list[list[float]], list[list[float]]]:
    """One row of :data:`AGNOSTIC_FEATURES` per text (None: found nothing), none of them
    naming whose text it is, and the texts' pairwise word F1 (1 on the diagonal)."""
    words = [tokens(text) for text in texts]
    bags = [Counter(w) for w in words]
    counts = [len(w) for w in words]
    found = [c for c in counts if c]
    typical = median(found) if found else 0
    link_bag = Counter(page.link_bag)
    agreement = [
        [1.0 if i == j else _overlap_f1(bags[i], counts[i], bags[j], counts[j]) for j in range(len(texts))]
        for i in range(len(texts))
    ]
    pairs = [agreement[i][j] for i in range(len(texts)) for j in range(i + 1, len(texts))]
    page_agreement = sum(pairs) / len(pairs) if pairs else 0.0
    rows = []
    for i, text in enumerate(texts):
        others = [agreement[i][j] for j in range(len(texts)) if j != i]
        majority = majority_bag(bags[:i] + bags[i + 1 :])
        majority_total = sum(majority.values())
        matched = sum((bags[i] & majority).values())
        lines = [line for line in (text or "").splitlines() if line.strip()]
        line_words = [len(tokens(line)) for line in lines]
        rows.append(
            [
                float(counts[i] == 0),
                math.log1p(counts[i]),
                counts[i] / page.words if page.words else 0.0,
                counts[i] / typical if typical else 0.0,
                sum((bags[i] & link_bag).values()) / counts[i] if counts[i] else 0.0,
                math.log1p(len(lines)),
                counts[i] / len(lines) if lines else 0.0,
                sum(1 for n in line_words if n <= 5) / len(lines) if lines else 0.0,
                sum(others) / len(others) if others else 0.0,
                max(others, default=0.0),
                page_agreement,
                PRF.from_counts(matched, counts[i], majority_total).precision,
                PRF.from_counts(matched, counts[i], majority_total).recall,
                math.log1p(page.words),
                page.link_words / page.words if page.words else 0.0,
                float(page_type == "list"),
            ]
        )
    return rows, agreement


def majority_bag(bags: Sequence[Counter[str]]) -> Counter[str]:
    """Words (with the median count) that at least half of ``bags`` contain."""
    if not bags:
        return Counter()
    present: Counter[str] = Counter()
    for bag in bags:
        present.update(bag.keys())
    need = len(bags) / 2
    return Counter(
        {word: int(median(bag[word] for bag in bags)) for word, seen in present.items() if seen >= need}
    )
