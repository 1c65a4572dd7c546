"""Line-level merge of extraction candidates (issue 14: "choose the best, or merge at the
block level where candidates agree; measure both").

Every line of every candidate becomes a unit (a later candidate's line only when the
earlier ones lack it: fewer than half of its word n-grams already seen), described by which
candidates contain it, where it sits, how long it is, how much of it is link text, how
its neighbours voted, and the page's candidate features (:mod:`models.quality.features`).
A classifier says whether the line belongs to the gold main content; the merged text is
the first candidate's lines that the classifier does not rule out, plus the other
candidates' lines it is sure of (:class:`MergeModel`, stored in the ensemble's
checkpoint). The merged Markdown is the same lines' Markdown, each taken from its
candidate's own Markdown (:func:`markdown_spans`). Pure functions over text.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from models.common.trees import BoostedTrees
from models.quality.features import AGNOSTIC_FEATURES, PageStats
from models.quality.lexicon import Lexicon
from pipelines.evaluation.text import tokens

#: Longest word n-gram used to tell whether a line is contained in a text (shorter lines
#: use n-grams of their own length).
NGRAM = 3
#: Share of a line's n-grams another text must contain for it to "keep" the line.
CONTAINED = 0.5
#: Lines on each side whose votes describe a line's neighbourhood.
WINDOW = 3
#: How many of each candidate's page-level features (the leading columns of
#: :func:`models.quality.features.candidate_features`, those that do not depend on the
#: candidate set) a line carries: the first candidate's and its source's.
PAGE_FEATURES = len(AGNOSTIC_FEATURES)


@dataclass(frozen=True)
class Line:
    """One unit: its text, words, the candidate it comes from, its line number in that
    candidate's text, and its features."""

    text: str
    words: list[str]
    source: int
    number: int
    features: list[float]


#: The columns a :class:`MergeModel` adds to a line's features from its lexicon
#: (:func:`lexical_columns`); all zero on a page in a language the lexicon does not know.
LEXICAL_FEATURES = ("lexical", "lexical_window", "lexicon_known")


def merge_feature_names(candidates: Sequence[str]) -> list[str]:
    """The feature names of a line for a candidate set (order fixes the columns), before
    the :data:`LEXICAL_FEATURES`."""
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
    if len(words) < size:
        return {tuple(words)}
    return set(zip(*(words[i:] for i in range(size)), strict=False))  # the shifted copies end early


class Grams:
    """A text's n-grams of every length up to :data:`NGRAM`."""

    def __init__(self, words: Sequence[str] = ()):
        self.sets = {size: ngrams(words, size) if words else set() for size in range(1, NGRAM + 1)}

    def update(self, other: Grams) -> None:
        for size, grams in other.sets.items():
            self.sets[size] |= grams

    def contains(self, words: Sequence[str]) -> float:
        """Share of the line's n-grams (of its own length when shorter) in this text."""
        return self.share(line_grams(words))

    def share(self, line: tuple[int, set[tuple[str, ...]]]) -> float:
        """:meth:`contains` for a line's :func:`line_grams`, computed once for many texts."""
        size, grams = line
        return len(grams & self.sets[size]) / len(grams) if grams else 0.0


def line_grams(words: Sequence[str]) -> tuple[int, set[tuple[str, ...]]]:
    """A line's n-gram length (``NGRAM``, or its own length when shorter) and n-grams."""
    size = min(NGRAM, len(words))
    return size, ngrams(words, size) if size else set()


def candidate_lines(
    texts: Sequence[str | None], page: PageStats, page_rows: Sequence[Sequence[float]]
) -> list[Line]:
    """The units of one page: ``texts[i]`` is candidate ``i``'s text (None: nothing
    found), ``page_rows[i]`` its :func:`candidate_features` row."""
    numbered = [enumerate((text or "").splitlines()) for text in texts]
    lines = [[(n, line, words) for n, line in found if (words := tokens(line))] for found in numbered]
    grams = [Grams([w for _, _, words in found for w in words]) for found in lines]
    link_bag = Counter(page.link_bag)
    seen = Grams()
    units: list[Line] = []
    for source, found in enumerate(lines):
        shapes = [line_grams(words) for _, _, words in found]
        kept_at = [i for i, shape in enumerate(shapes) if source == 0 or seen.share(shape) < CONTAINED]
        kept = [found[i] for i in kept_at]
        contained = [[g.share(shapes[i]) for g in grams] for i in kept_at]
        votes = [float(sum(share >= CONTAINED for share in row)) for row in contained]
        sizes = [len(words) for _, _, words in kept]
        for i, ((number, line, words), row) in enumerate(zip(kept, contained, strict=True)):
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
            units.append(Line(line, words, source, number, features))
        seen.update(grams[source])
    return units


def lexical_columns(
    lines: Sequence[Line], evidence: Sequence[float] | np.ndarray, known_words: Sequence[int] | np.ndarray
) -> np.ndarray:
    """The :data:`LEXICAL_FEATURES` of a page's lines, given each line's lexicon evidence
    (:meth:`models.quality.lexicon.Lexicon.evidence`) and how many of its words the
    lexicon knows: the evidence, the mean evidence of its candidate's lines within
    :data:`WINDOW` of it (the heading "Customer reviews" lowers the lines under it), and
    the share of the page's line words the lexicon knows (how far to trust the first two)."""
    columns = np.zeros((len(lines), len(LEXICAL_FEATURES)))
    by_source: dict[int, list[int]] = {}
    for i, line in enumerate(lines):
        by_source.setdefault(line.source, []).append(i)
    values = np.asarray(evidence, dtype=np.float64)
    for members in by_source.values():
        for at, i in enumerate(members):
            window = members[max(0, at - WINDOW) : at + WINDOW + 1]
            columns[i, :2] = values[i], values[window].mean()
    words = sum(len(line.words) for line in lines)
    columns[:, 2] = float(np.sum(known_words)) / words if words else 0.0
    return columns


def in_gold(line: Line, gold: Grams) -> bool:
    """Whether the line belongs to the gold (at least :data:`CONTAINED` of its n-grams)."""
    return gold.contains(line.words) >= CONTAINED


def kept_lines(
    lines: Sequence[Line], probabilities: Sequence[float], drop_below: float, add_from: float
) -> list[Line]:
    """The first candidate's lines whose probability is at least ``drop_below``, then the
    other candidates' lines whose probability is at least ``add_from``."""
    return kept_with_confidence(lines, probabilities, drop_below, add_from)[0]


def kept_with_confidence(
    lines: Sequence[Line], probabilities: Sequence[float], drop_below: float, add_from: float
) -> tuple[list[Line], float]:
    """:func:`kept_lines` and their word-weighted mean probability (0 when none is kept):
    how sure the classifier is that the merged text is all gold."""
    pairs = list(zip(lines, probabilities, strict=True))
    kept = [(line, p) for line, p in pairs if line.source == 0 and p >= drop_below]
    kept += [(line, p) for line, p in pairs if line.source and p >= add_from]
    words = sum(len(line.words) for line, _ in kept)
    confidence = sum(len(line.words) * p for line, p in kept) / words if words else 0.0
    return [line for line, _ in kept], confidence


def merged_quality(pick_estimate: float, confidence: float) -> float:
    """The merged text's quality estimate (the feed's ``extraction_quality``): the mean of
    the stage's estimate for the candidate it picks and the kept lines' confidence
    (:func:`kept_with_confidence`). Chosen on the validation domains over either alone
    (README "Ensemble", session 15)."""
    return (pick_estimate + confidence) / 2


def merged_text(lines: Sequence[Line]) -> str:
    """The kept ``lines`` as plain text: lines next to each other in their candidate's
    text stay one paragraph, others are separated by a blank line."""
    parts: list[str] = []
    previous: Line | None = None
    for line in lines:
        if previous is not None:
            adjacent = line.source == previous.source and line.number == previous.number + 1
            parts.append("\n" if adjacent else "\n\n")
        parts.append(line.text)
        previous = line
    return "".join(parts)


_FENCE = re.compile(r"^\s*```")


def markdown_spans(text: str, markdown: str) -> dict[int, tuple[int, int]]:
    """Where each line of a candidate's ``text`` (by line number) sits in its
    ``markdown``: a ``[start, end)`` range of Markdown lines. Text and Markdown are
    rendered from the same blocks, so their worded lines come in the same order; a
    Markdown line holding at least :data:`CONTAINED` of a text line's words (searched a
    few lines ahead) is its line. Lines without words (a table's separator, a code
    fence's close) join the line before; a code fence's opening joins the line after.
    Lines not found are left out (they are rendered as their text)."""
    rows = markdown.splitlines()
    row_words: dict[int, Counter[str]] = {}
    spans: dict[int, tuple[int, int]] = {}
    cursor, in_code = 0, False
    previous: int | None = None
    for number, line in enumerate(text.splitlines()):
        words = Counter(tokens(line))
        if not words:
            continue
        for at in range(cursor, min(len(rows), cursor + 2 * WINDOW + 1)):
            if at not in row_words:
                row_words[at] = Counter(tokens(rows[at]))
            if sum((words & row_words[at]).values()) >= CONTAINED * sum(words.values()):
                break
        else:
            continue
        start = at
        for between in range(cursor, at):
            if _FENCE.match(rows[between]):
                in_code = not in_code
                if in_code:  # an opening fence: this line's
                    start = min(start, between)
                    continue
            if previous is not None and rows[between].strip() and not tokens(rows[between]):
                spans[previous] = (spans[previous][0], between + 1)
        spans[number] = (start, at + 1)
        previous, cursor = number, at + 1
    if previous is not None and cursor < len(rows) and _FENCE.match(rows[cursor]) and in_code:
        spans[previous] = (spans[previous][0], cursor + 1)
    return spans


def merged_markdown(
    lines: Sequence[Line], texts: Sequence[str | None], markdowns: Sequence[str | None]
) -> str:
    """The kept ``lines`` as Markdown: each line's own Markdown from its candidate
    (``markdowns[source]``, aligned with ``texts[source]`` by :func:`markdown_spans`),
    lines next to each other in that Markdown kept together, others separated by a blank
    line; a line without a Markdown span is its text. A code block left open is closed."""
    used = {line.source for line in lines}
    spans = {
        source: markdown_spans(text or "", markdown or "") if source in used else {}
        for source, (text, markdown) in enumerate(zip(texts, markdowns, strict=True))
    }
    rows = [(markdown or "").splitlines() for markdown in markdowns]
    parts: list[str] = []
    previous: tuple[int, int] | None = None  # (source, end of its span)
    for line in lines:
        span = spans[line.source].get(line.number)
        if parts:
            adjacent = span is not None and previous == (line.source, span[0])
            parts.append("\n" if adjacent else "\n\n")
        parts.append("\n".join(rows[line.source][span[0] : span[1]]) if span else line.text)
        previous = (line.source, span[1]) if span else None
    merged = "".join(parts)
    fences = sum(1 for row in merged.splitlines() if _FENCE.match(row))
    return merged + "\n```" if fences % 2 else merged


@dataclass
class MergeModel:
    """A stage's line merge: its candidates (the first is the one whose lines are kept
    unless ruled out), the line classifier's trees (log-odds of "in the gold"), the two
    thresholds of :func:`kept_lines` (chosen on cross-fitted probabilities) and the
    lexicon whose scores are the trees' last columns."""

    candidates: list[str]
    trees: BoostedTrees
    drop_below: float
    add_from: float
    lexicon: Lexicon

    def features(self, lines: Sequence[Line]) -> np.ndarray:
        """The trees' input: each line's features and its :func:`lexical_columns`."""
        evidence = [self.lexicon.evidence(line.words) for line in lines]
        known = [self.lexicon.known_words(line.words) for line in lines]
        columns = lexical_columns(lines, evidence, known)
        return np.column_stack([np.array([line.features for line in lines]), columns])

    def kept(self, lines: Sequence[Line]) -> tuple[list[Line], float]:
        """The lines the merge keeps and their confidence (:func:`kept_with_confidence`)."""
        if not lines:
            return [], 0.0
        probabilities = self.trees.probabilities(self.features(lines)).tolist()
        return kept_with_confidence(lines, probabilities, self.drop_below, self.add_from)
