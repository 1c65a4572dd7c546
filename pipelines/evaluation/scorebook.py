"""The accumulating evaluation of one system (our extractor or a peer) over a gold set,
and the report it builds: summary, per-site and per-page-type groups, confusion matrix,
failures, per-page rows and the worst pages."""

from __future__ import annotations

import heapq
import itertools
import threading
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from statistics import fmean
from typing import Any

from pipelines.evaluation.calibration import UnrelatedPairs
from pipelines.evaluation.fingerprint import FINGERPRINT_BITS
from pipelines.evaluation.gold import GoldPage, GoldSet
from pipelines.evaluation.metrics import (
    ShingleCounts,
    SnippetCounts,
    paper_precision_recall,
    pooled_shingle_prf,
    pooled_snippet_prf,
)
from pipelines.evaluation.scoring import (
    FAILURE_NO_TEXT,
    ScoringConfig,
    extracted_text,
    score_page,
)
from pipelines.urls import site_of

NO_PREDICTION = "(none)"
UNKNOWN_TYPE = "unknown"
#: What the report holds for each system when peers are compared.
SYSTEM_RESULT_KEYS = ("summary", "sites", "page_types", "hamming_histogram", "failures", "pages")
#: Per-page fields kept in the report's ``pages`` rows.
PAGE_ROW_FIELDS = (
    "gold_url",
    "site",
    "gold_type",
    "predicted_type",
    "type_correct",
    "gold_kind",
    "predicted_kind",
    "failure",
    "hamming_distance",
    "correct",
    "complete",
    "word_precision",
    "word_recall",
    "word_f1",
    "shingle_f1",
    "snippet_recall",
    "snippet_precision",
    "snippet_counts",
    "item_precision",
    "item_recall",
    "extract_ms",
    "extraction_quality",
)


@dataclass
class WorstPage:
    """A badly extracted page, kept with its texts for the report."""

    url: str
    site: str
    word_f1: float
    hamming_distance: int
    failure: str | None
    title: str | None
    extracted: str
    gold: str
    screenshot_uri: str | None


class Evaluation:
    """Scores of one system, accumulated page by page.

    ``score(record)`` matches a feed record to its gold, scores it and keeps the scores;
    ``report()`` counts gold pages that never came as failures and builds the report.
    A ``text_only`` system (a peer extractor) gets no type or item metrics. ``score``
    and ``add`` may be called from several threads (scoring runs outside the lock).
    """

    def __init__(
        self,
        gold: GoldSet,
        config: ScoringConfig,
        system: str = "pagesight",
        *,
        text_only: bool = False,
    ):
        self.gold = gold
        self.config = config
        self.system = system
        self.text_only = text_only
        self.unmatched_urls: list[str] = []
        self.duplicate_urls: list[str] = []
        self._scores: dict[str, dict[str, Any]] = {}
        self._worst: list[tuple[float, int, int, WorstPage]] = []
        self._order = itertools.count()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._scores)

    def score(self, record: Mapping[str, Any]) -> dict[str, Any] | None:
        """Score a feed record and keep the result; ``None`` when it has no gold."""
        gold = self.gold.match(record)
        if gold is None:
            with self._lock:
                self.unmatched_urls.append(str(record.get("url")))
            return None
        scores = score_page(record, gold, self.config, text_only=self.text_only)
        self.add(record, scores)
        return scores

    def add(self, record: Mapping[str, Any], scores: dict[str, Any]) -> None:
        """Keep the scores of a record (from :func:`score_page`); the first record of a
        gold page wins, later ones are counted as duplicates."""
        key = self._gold_page(scores).key
        with self._lock:
            if key in self._scores:
                self.duplicate_urls.append(str(record.get("url")))
                return
            self._scores[key] = scores
            scored = scores["failure"] in (None, FAILURE_NO_TEXT)
            perfect = scores["word_f1"] == 1.0 and scores["hamming_distance"] == 0
            if scores["gold_has_text"] and scored and not perfect:
                self._keep_if_worst(record, scores)

    def _gold_page(self, scores: Mapping[str, Any]) -> GoldPage:
        """The gold page scores were made against (KeyError for scores of other gold)."""
        page = self.gold.get(scores["gold_url"])
        if page is None:
            raise KeyError(f"scores of {scores['gold_url']} are not for this gold set")
        return page

    def _keep_if_worst(self, record: Mapping[str, Any], scores: dict[str, Any]) -> None:
        if self.config.worst_pages <= 0:
            return
        gold = self._gold_page(scores)
        page = WorstPage(
            url=str(record.get("url")),
            site=scores["site"],
            word_f1=scores["word_f1"],
            hamming_distance=scores["hamming_distance"],
            failure=scores["failure"],
            title=gold.title or record.get("title"),
            extracted=extracted_text(record),
            gold=gold.text,
            screenshot_uri=(record.get("screenshot") or {}).get("uri"),
        )
        # A max-heap on badness kept at worst_pages entries: the best page is evicted.
        entry = (-page.word_f1, page.hamming_distance, next(self._order), page)
        heapq.heappush(self._worst, entry)
        if len(self._worst) > self.config.worst_pages:
            heapq.heappop(self._worst)

    def rows(self) -> list[dict[str, Any]]:
        """Scores of every gold page, in gold order; pages never added count as missing.

        A missing page whose gold names no site joins the site the feed gave to the
        other pages of its host."""
        with self._lock:
            scored = dict(self._scores)
        site_by_host = {site_of(row["gold_url"]): row["site"] for row in scored.values()}
        rows = []
        for page in self.gold.pages:
            row = scored.get(page.key)
            if row is None:
                row = score_page(None, page, self.config, text_only=self.text_only)
                if page.site is None:
                    row["site"] = site_by_host.get(site_of(page.url), row["site"])
            rows.append(row)
        return rows

    def report(self, peers: Sequence[Evaluation] = ()) -> dict[str, Any]:
        """The full report (see ``report.json`` in docs/evaluation.md); ``peers`` are other
        systems scored on the same gold, tabulated beside this one under ``systems``."""
        rows = self.rows()
        report: dict[str, Any] = {
            "system": self.system,
            "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "config": {**asdict(self.config), "label_mapping": self.config.label_mapping.to_dict()},
            "gold": {
                "path": self.gold.path,
                "format": self.gold.format,
                "pages": len(self.gold),
                "skipped": [asdict(entry) for entry in self.gold.skipped],
            },
            "feed": {
                "matched": len(self._scores),
                "unmatched": len(self.unmatched_urls),
                "unmatched_urls": self.unmatched_urls,
                "duplicates": self.duplicate_urls,
            },
            **_system_results(rows, self.config),
            "confusion": confusion_matrix(rows),
            "page_kinds": kind_results(rows),
            "page_type_labels": page_type_labels(rows),
            "worst_pages": [asdict(entry[-1]) for entry in sorted(self._worst, reverse=True)],
        }
        if peers:
            report["systems"] = {self.system: {key: report[key] for key in SYSTEM_RESULT_KEYS}}
            for peer in peers:
                report["systems"][peer.system] = _system_results(peer.rows(), peer.config)
        return report


def _system_results(rows: Sequence[Mapping[str, Any]], config: ScoringConfig) -> dict[str, Any]:
    """One system's ``SYSTEM_RESULT_KEYS``: summary, groups, histogram, failures, pages."""
    unrelated = UnrelatedPairs.of(rows, config.calibration_pairs)
    by_site: dict[str, list[int]] = defaultdict(list)
    by_type: dict[str, list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        by_site[row["site"]].append(index)
        by_type[row["gold_type"] or UNKNOWN_TYPE].append(index)

    def group(indexes: Sequence[int]) -> dict[str, Any]:
        return summarize([rows[i] for i in indexes], unrelated.subset(indexes), config)

    return {
        "summary": summarize(rows, unrelated, config),
        "sites": {site: group(by_site[site]) for site in sorted(by_site)},
        "page_types": {name: group(by_type[name]) for name in sorted(by_type)},
        "hamming_histogram": {
            "pages": _histogram(row["hamming_distance"] for row in rows),
            "unrelated": _histogram(d for distances in unrelated.same_site for d in distances),
            "unrelated_any_site": _histogram(d for distances in unrelated.any_site for d in distances),
        },
        "failures": [
            {"url": row["gold_url"], "site": row["site"], "reason": row["failure"]}
            for row in rows
            if row["failure"]
        ],
        "pages": [{name: row[name] for name in PAGE_ROW_FIELDS} for row in rows],
    }


def summarize(
    rows: Sequence[Mapping[str, Any]], unrelated: UnrelatedPairs, config: ScoringConfig
) -> dict[str, Any]:
    """Aggregate metrics of a group of pages; ``None`` where a metric has no pages.

    Word and our snippet metrics are means over pages; shingle metrics and trafilatura's
    snippet metrics (``snippet_pooled_*``) pool the pages' counts; Hamming P and R are
    the paper's over pages with gold text.
    """
    text_rows = [row for row in rows if row["gold_has_text"]]
    distances = [row["hamming_distance"] for row in text_rows]
    precision, recall = paper_precision_recall(distances, config.correct_distance, config.complete_distance)
    shingle = pooled_shingle_prf(ShingleCounts(*row["shingle_counts"]) for row in text_rows)
    pairs = [d for distances_of_page in unrelated.same_site for d in distances_of_page]
    any_site_pairs = [d for distances_of_page in unrelated.any_site for d in distances_of_page]
    typed = [row["type_correct"] for row in rows if row["type_correct"] is not None]
    timings = [row["extract_ms"] for row in rows if row["extract_ms"] is not None]
    snippet_rows = [SnippetCounts(*row["snippet_counts"]) for row in rows]
    pooled = pooled_snippet_prf(snippet_rows)
    has_snippets = any(c.with_total or c.without_total for c in snippet_rows)
    return {
        "pages": len(rows),
        "failures": sum(1 for row in rows if row["failure"]),
        "pages_with_gold_text": len(text_rows),
        "word_precision": _mean(row["word_precision"] for row in text_rows),
        "word_recall": _mean(row["word_recall"] for row in text_rows),
        "word_f1": _mean(row["word_f1"] for row in text_rows),
        "shingle_precision": shingle.precision if text_rows else None,
        "shingle_recall": shingle.recall if text_rows else None,
        "shingle_f1": shingle.f1 if text_rows else None,
        "hamming_precision": precision,
        "hamming_recall": recall,
        "correct_pages": sum(1 for d in distances if d < config.correct_distance),
        "complete_pages": sum(1 for d in distances if d < config.complete_distance),
        "mean_hamming_distance": _mean(distances),
        "unrelated_pairs": len(pairs),
        "unrelated_correct_rate": _share(d < config.correct_distance for d in pairs),
        "unrelated_complete_rate": _share(d < config.complete_distance for d in pairs),
        "unrelated_any_site_pairs": len(any_site_pairs),
        "unrelated_any_site_correct_rate": _share(d < config.correct_distance for d in any_site_pairs),
        "unrelated_any_site_complete_rate": _share(d < config.complete_distance for d in any_site_pairs),
        "type_accuracy": _share(typed),
        "typed_pages": len(typed),
        "snippet_recall": _mean(row["snippet_recall"] for row in rows),
        "snippet_precision": _mean(row["snippet_precision"] for row in rows),
        "snippet_pooled_precision": pooled.precision if has_snippets else None,
        "snippet_pooled_recall": pooled.recall if has_snippets else None,
        "snippet_pooled_f1": pooled.f1 if has_snippets else None,
        "item_precision": _mean(row["item_precision"] for row in rows),
        "item_recall": _mean(row["item_recall"] for row in rows),
        "item_f1": _mean(row["item_f1"] for row in rows),
        "ms_per_page": _mean(timings),
    }


def page_type_labels(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each gold page type (the gold's own name, ``listing``) and the label it counts as
    (``list``): the page-type table groups by the first, the confusion matrix counts the
    second."""
    return {row["gold_type"]: row["gold_label"] for row in rows if row["gold_type"] and row["gold_label"]}


def confusion_matrix(
    rows: Sequence[Mapping[str, Any]],
    gold: str = "gold_label",
    predicted: str = "predicted_type",
    correct: str = "type_correct",
) -> dict[str, Any]:
    """Gold label (rows) × predicted label (columns) counts over pages with a gold type;
    the keys name the row fields compared (the page kinds': ``gold_kind``,
    ``predicted_kind``, ``kind_correct``)."""
    pairs = Counter(
        (row[gold], row[predicted] or NO_PREDICTION) for row in rows if row[gold] and row[correct] is not None
    )
    gold_labels = sorted({label for label, _ in pairs})
    columns = sorted({label for _, label in pairs} | set(gold_labels))
    if NO_PREDICTION in columns:
        columns.remove(NO_PREDICTION)
        columns.append(NO_PREDICTION)
    return {
        "gold": gold_labels,
        "predicted": columns,
        "matrix": [[pairs[(label, column)] for column in columns] for label in gold_labels],
    }


def kind_results(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The page kinds' accuracy, recall per gold kind and confusion matrix, over pages
    whose gold names a WCXB kind; None when the feed predicts no kind on any of them, or
    when the gold names no kind but ``article``, which is also an article/list gold's
    type (the demo web's)."""
    kinded = [row for row in rows if row["gold_kind"]]
    if not any(row["predicted_kind"] for row in kinded) or all(
        row["gold_kind"] == "article" for row in kinded
    ):
        return None
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for row in kinded:
        by_kind[row["gold_kind"]].append(bool(row["kind_correct"]))
    return {
        "pages": len(kinded),
        "accuracy": _share([bool(row["kind_correct"]) for row in kinded]),
        "recall": {kind: _share(hits) for kind, hits in sorted(by_kind.items())},
        "confusion": confusion_matrix(kinded, "gold_kind", "predicted_kind", "kind_correct"),
    }


def _histogram(distances: Any) -> list[int]:
    counts = [0] * (FINGERPRINT_BITS + 1)
    for distance in distances:
        if distance is not None:
            counts[distance] += 1
    return counts


def _mean(values: Any) -> float | None:
    present = [value for value in values if value is not None]
    return fmean(present) if present else None


def _share(flags: Any) -> float | None:
    flags = list(flags)
    return sum(flags) / len(flags) if flags else None
