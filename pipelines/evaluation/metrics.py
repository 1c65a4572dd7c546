"""Pure extraction metrics: bag-of-words and shingle precision/recall/F1, gold snippets,
list-page items, and the I-AWCE paper's Hamming-distance precision and recall.

Convention everywhere: an empty side scores 0, unless both sides are empty (then 1).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pipelines.evaluation.text import shingles, tokens
from pipelines.urls import url_key


@dataclass(frozen=True)
class PRF:
    """Precision, recall and their harmonic mean."""

    precision: float
    recall: float
    f1: float

    @classmethod
    def from_counts(cls, matched: float, predicted: float, expected: float) -> PRF:
        """From the matched amount and the predicted and expected totals."""
        if predicted == 0 and expected == 0:
            return cls(1.0, 1.0, 1.0)
        precision = matched / predicted if predicted else 0.0
        recall = matched / expected if expected else 0.0
        total = precision + recall
        return cls(precision, recall, 2 * precision * recall / total if total else 0.0)


@dataclass(frozen=True)
class ShingleCounts:
    """One page's shingle true/false positives and false negatives, scaled to sum to 1
    so that long pages do not weigh more (ScrapingHub's method); all 0 when both texts
    are empty."""

    tp: float
    fp: float
    fn: float

    def prf(self) -> PRF:
        return PRF.from_counts(self.tp, self.tp + self.fp, self.tp + self.fn)


def word_prf(predicted: Sequence[str], expected: Sequence[str]) -> PRF:
    """Bag-of-words precision/recall/F1 of one page's tokens (see ``text.tokens``)."""
    matched = _overlap(Counter(predicted), Counter(expected))
    return PRF.from_counts(matched, len(predicted), len(expected))


def shingle_counts(predicted: Sequence[str], expected: Sequence[str]) -> ShingleCounts:
    """4-token shingle counts of one page's tokens, normalized to sum to 1."""
    predicted_shingles, expected_shingles = (
        Counter(shingles(predicted)),
        Counter(shingles(expected)),
    )
    tp = _overlap(predicted_shingles, expected_shingles)
    fp = predicted_shingles.total() - tp
    fn = expected_shingles.total() - tp
    total = tp + fp + fn
    if total == 0:
        return ShingleCounts(0.0, 0.0, 0.0)
    return ShingleCounts(tp / total, fp / total, fn / total)


def _overlap(first: Counter[Any], second: Counter[Any]) -> int:
    """Size of the multiset intersection."""
    if len(first) > len(second):
        first, second = second, first
    return sum(min(count, second[key]) for key, count in first.items() if key in second)


def pooled_shingle_prf(pages: Iterable[ShingleCounts]) -> PRF:
    """Precision/recall/F1 over pages from the sums of their normalized counts."""
    tp = fp = fn = 0.0
    for counts in pages:
        tp, fp, fn = tp + counts.tp, fp + counts.fp, fn + counts.fn
    return PRF.from_counts(tp, tp + fp, tp + fn)


@dataclass(frozen=True)
class SnippetCounts:
    """One page's gold snippets: how many ``with`` (body) snippets there are and how many
    the extraction holds, and the same for ``without`` (boilerplate) snippets."""

    with_found: int
    with_total: int
    without_found: int
    without_total: int


def snippet_counts(
    text_tokens: Sequence[str], with_snippets: Sequence[str], without_snippets: Sequence[str]
) -> SnippetCounts:
    """Which gold snippets one page's extraction holds. Matching compares token
    sequences (whole tokens), so punctuation and spacing do not matter."""
    text = f" {' '.join(text_tokens)} " if text_tokens else ""
    wanted = [f" {' '.join(words)} " for s in with_snippets if (words := tokens(s))]
    unwanted = [f" {' '.join(words)} " for s in without_snippets if (words := tokens(s))]
    return SnippetCounts(
        sum(snippet in text for snippet in wanted),
        len(wanted),
        sum(snippet in text for snippet in unwanted),
        len(unwanted),
    )


def snippet_scores(
    text_tokens: Sequence[str], with_snippets: Sequence[str], without_snippets: Sequence[str]
) -> tuple[float | None, float | None]:
    """Ours, per page: ``(recall, precision)``, the share of ``with`` snippets found in
    the extraction and the share of ``without`` (boilerplate) snippets kept out of it (0
    for an empty extraction); ``None`` where the gold has no such snippets."""
    counts = snippet_counts(text_tokens, with_snippets, without_snippets)
    recall = precision = None
    if counts.with_total:
        recall = counts.with_found / counts.with_total
    if counts.without_total:
        kept_out = counts.without_total - counts.without_found if text_tokens else 0
        precision = kept_out / counts.without_total
    return recall, precision


def pooled_snippet_prf(pages: Iterable[SnippetCounts]) -> PRF:
    """trafilatura's evaluation definition, pooled over pages: true positives are body
    snippets found, false negatives body snippets missed, false positives boilerplate
    snippets found; precision = TP / (TP + FP), recall = TP / (TP + FN)."""
    found = missed = boilerplate = 0
    for counts in pages:
        found += counts.with_found
        missed += counts.with_total - counts.with_found
        boilerplate += counts.without_found
    return PRF.from_counts(found, found + boilerplate, found + missed)


def match_items(
    predicted: Sequence[dict[str, Any]], gold: Sequence[dict[str, Any]], min_text_f1: float
) -> int:
    """How many gold list items the predicted items match, one to one: first by URL key,
    then, for the rest, by the best word F1 of their titles (their text when untitled)
    of at least ``min_text_f1``."""
    unmatched = list(range(len(predicted)))
    by_url: dict[str, list[int]] = {}
    for index in unmatched:
        if url := predicted[index].get("url"):
            by_url.setdefault(url_key(url), []).append(index)
    matched = 0
    remaining_gold = []
    for item in gold:
        candidates = by_url.get(url_key(item["url"])) if item.get("url") else None
        if candidates:
            unmatched.remove(candidates.pop(0))
            matched += 1
        else:
            remaining_gold.append(item)
    labels = {index: tokens(_item_label(predicted[index])) for index in unmatched}
    for item in remaining_gold:
        gold_label = tokens(_item_label(item))
        best, best_f1 = None, min_text_f1
        for index in unmatched:
            f1 = word_prf(labels[index], gold_label).f1
            if f1 >= best_f1:
                best, best_f1 = index, f1
        if best is not None:
            unmatched.remove(best)
            matched += 1
    return matched


def _item_label(item: dict[str, Any]) -> str:
    return item.get("title") or item.get("text") or ""


def item_prf(predicted: Sequence[dict[str, Any]], gold: Sequence[dict[str, Any]], min_text_f1: float) -> PRF:
    """Item-level precision/recall/F1 of a list page."""
    matched = match_items(predicted, gold, min_text_f1)
    return PRF.from_counts(matched, len(predicted), len(gold))


def paper_precision_recall(
    distances: Sequence[int], correct_below: int, complete_below: int
) -> tuple[float | None, float | None]:
    """The I-AWCE paper's ``P = C2/C1`` and ``R = C3/C2``: C1 all pages, C2 pages with
    distance below ``correct_below`` (correctly extracted), C3 below ``complete_below``
    (completely extracted). ``None`` where a denominator is 0."""
    all_pages = len(distances)
    correct = sum(d < correct_below for d in distances)
    complete = sum(d < complete_below for d in distances)
    precision = correct / all_pages if all_pages else None
    recall = complete / correct if correct else None
    return precision, recall
