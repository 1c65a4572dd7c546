"""Line-level merge of extraction candidates (issue 14: "choose the best, or merge at the
block level where candidates agree; measure both").

Every line of every candidate becomes a unit (a later candidate's line only when the
earlier ones lack it: fewer than half of its word n-grams already seen), described by which
candidates contain it, where it sits, how long it is, how much of it is link text, how
its neighbours voted, and the page's candidate features (:mod:`models.quality_features`).
A classifier says whether the line belongs to the gold main content; the merged text is
the first candidate's lines that the classifier does not rule out, plus the other
candidates' lines it is sure of. Pure functions over text.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from models.quality_features import PageStats
from pipelines.evaluation.text import tokens

#: Longest word n-gram used to tell whether a line is contained in a text (shorter lines
#: use n-grams of their own length).
NGRAM = 3
#: Share of a line's n-grams another text must contain for it to "keep" the line.
CONTAINED = 0.5
#: Lines on each side whose votes describe a line's neighbourhood.
WINDOW = 3
#: How many of each candidate's page-level features (leading columns of
#: :func:`models.quality_features.candidate_features`, those that do not depend on the
#: candidate set) a line carries: the first candidate's and its source's.
PAGE_FEATURES = 16


@dataclass(frozen=True)
class Line:
    """One unit: its text, words, the candidate it comes from and its features."""

    text: str
    words: list[str]
    source: int
    features: list[float]


def merge_feature_names(candidates: Sequence[str]) -> list[str]:
    """The feature names of a line for a candidate set (order fixes the columns)."""
    return [
        *(f"in_{name}" for name in candidates),
        "votes",
        "source",
        "log_words",
        "link_share",
        "position",
        "previous_votes",
        "next_votes",
        "window_votes",
        "window_votes_by_words",
        "share_of_source",
        "source_lines",
        *(f"first_{i}" for i in range(PAGE_FEATURES)),
        *(f"source_{i}" for i in range(PAGE_FEATURES)),
    ]


def ngrams(words: Sequence[str], size: int) -> set[tuple[str, ...]]:
    """The ``size``-word n-grams of ``words`` (the whole of a shorter text as one)."""
    return {tuple(words[i : i + size]) for i in range(max(1, len(words) - size + 1))}


class Grams:
    """A text's n-grams of every length up to :data:`NGRAM`."""

    def __init__(self, words: Sequence[str] = ()):
        self.sets = {size: ngrams(words, size) if words else set() for size in range(1, NGRAM + 1)}

    def update(self, other: Grams) -> None:
        for size, grams in other.sets.items():
            self.sets[size] |= grams

    def contains(self, words: Sequence[str]) -> float:
        """Share of the line's n-grams (of its own length when shorter) in this text."""
        size = min(NGRAM, len(words))
        if not size:
            return 0.0
        line = ngrams(words, size)
        return len(line & self.sets[size]) / len(line)


def candidate_lines(
    texts: Sequence[str | None], page: PageStats, page_rows: Sequence[Sequence[float]]
) -> list[Line]:
    """The units of one page: ``texts[i]`` is candidate ``i``'s text (None: nothing
    found), ``page_rows[i]`` its :func:`candidate_features` row."""
    lines = [[(line, tokens(line)) for line in (text or "").splitlines()] for text in texts]
    lines = [[(line, words) for line, words in found if words] for found in lines]
    grams = [Grams([w for _, words in found for w in words]) for found in lines]
    link_bag = Counter(page.link_bag)
    seen = Grams()
    units: list[Line] = []
    for source, found in enumerate(lines):
        kept = [(line, words) for line, words in found if source == 0 or seen.contains(words) < CONTAINED]
        contained = [[g.contains(words) for g in grams] for _, words in kept]
        votes = [float(sum(share >= CONTAINED for share in row)) for row in contained]
        sizes = [len(words) for _, words in kept]
        for i, ((line, words), row) in enumerate(zip(kept, contained, strict=True)):
            window = slice(max(0, i - WINDOW), i + WINDOW + 1)
            features = [
                *row,
                votes[i],
                float(source),
                math.log1p(len(words)),
                sum((Counter(words) & link_bag).values()) / len(words),
                i / len(kept),
                votes[i - 1] if i else -1.0,
                votes[i + 1] if i + 1 < len(kept) else -1.0,
                sum(votes[window]) / len(votes[window]),
                sum(v * n for v, n in zip(votes[window], sizes[window], strict=True)) / sum(sizes[window]),
                len(words) / sum(sizes),
                float(len(kept)),
                *page_rows[0][:PAGE_FEATURES],
                *page_rows[source][:PAGE_FEATURES],
            ]
            units.append(Line(line, words, source, features))
        seen.update(grams[source])
    return units


def in_gold(line: Line, gold: Grams) -> bool:
    """Whether the line belongs to the gold (at least :data:`CONTAINED` of its n-grams)."""
    return gold.contains(line.words) >= CONTAINED


def merged_text(
    lines: Sequence[Line], probabilities: Sequence[float], drop_below: float, add_from: float
) -> str:
    """The first candidate's lines whose probability is at least ``drop_below``, then the
    other candidates' lines whose probability is at least ``add_from``."""
    first = [
        line.text
        for line, p in zip(lines, probabilities, strict=True)
        if line.source == 0 and p >= drop_below
    ]
    added = [line.text for line, p in zip(lines, probabilities, strict=True) if line.source and p >= add_from]
    return "\n".join(first + added)
