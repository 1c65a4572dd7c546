"""Scoring one feed record against its gold page."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from models.pagetype.kinds import page_kinds
from models.pagetype.labels import LabelMapping, LabelMappingError, load_label_mapping
from pipelines.config import SettingsLike
from pipelines.evaluation.fingerprint import FINGERPRINT_BITS, hamming_distance, simhash_fingerprint
from pipelines.evaluation.gold import GoldPage, items_text
from pipelines.evaluation.metrics import (
    PRF,
    ShingleCounts,
    item_prf,
    shingle_counts,
    snippet_counts,
    snippet_scores,
    word_prf,
)
from pipelines.evaluation.text import normalize_text, tokens
from pipelines.extraction.page import ARTICLE, LIST
from pipelines.urls import site_of

FAILURE_MISSING = "missing from feed"
FAILURE_NO_TEXT = "no text extracted"


@dataclass(frozen=True)
class ScoringConfig:
    """Thresholds and the page-type label mapping of an evaluation (from the
    ``PAGESIGHT_EVAL_*`` and ``PAGESIGHT_TYPE_LABEL_MAPPING`` settings)."""

    correct_distance: int
    complete_distance: int
    label_mapping: LabelMapping
    item_match_f1: float
    calibration_pairs: int
    worst_pages: int

    def __post_init__(self) -> None:
        if not 0 < self.complete_distance <= self.correct_distance <= FINGERPRINT_BITS:
            raise ValueError(
                "Hamming thresholds must satisfy 0 < complete <= correct <= "
                f"{FINGERPRINT_BITS}; got complete={self.complete_distance}, "
                f"correct={self.correct_distance}"
            )
        if not 0 < self.item_match_f1 <= 1:
            raise ValueError(f"item_match_f1 must be in (0, 1]; got {self.item_match_f1}")
        if self.calibration_pairs < 0 or self.worst_pages < 0:
            raise ValueError("calibration_pairs and worst_pages cannot be negative")

    @classmethod
    def from_settings(cls, settings: SettingsLike, **overrides: Any) -> ScoringConfig:
        """Read the settings; ``overrides`` that are not None win over them."""
        values: dict[str, Any] = {
            "correct_distance": settings.getint("PAGESIGHT_EVAL_CORRECT_DISTANCE"),
            "complete_distance": settings.getint("PAGESIGHT_EVAL_COMPLETE_DISTANCE"),
            "label_mapping": page_type_mapping(settings),
            "item_match_f1": settings.getfloat("PAGESIGHT_EVAL_ITEM_MATCH_F1"),
            "calibration_pairs": settings.getint("PAGESIGHT_EVAL_CALIBRATION_PAIRS"),
            "worst_pages": settings.getint("PAGESIGHT_EVAL_WORST_PAGES"),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def label(self, page_type: str | None) -> str | None:
        """The label of a gold or predicted page type through the mapping; None for no
        type or one the mapping does not cover (not type-scored)."""
        return page_type_label(self.label_mapping, page_type)


def page_type_mapping(settings: SettingsLike) -> LabelMapping:
    """The label mapping ``PAGESIGHT_TYPE_LABEL_MAPPING`` names (a shipped mapping in
    ``models/label_maps/`` or a JSON file): the one place that says which page types
    are lists, for scoring and for the extraction pipeline alike."""
    return load_label_mapping(settings.get("PAGESIGHT_TYPE_LABEL_MAPPING"))


def page_type_label(mapping: LabelMapping, page_type: str | None) -> str | None:
    """``page_type`` (any case) through ``mapping``; None when absent or not covered."""
    if not page_type:
        return None
    try:
        return mapping.label_of(page_type.lower())
    except LabelMappingError:
        return None


def extraction_page_type(mapping: LabelMapping, page_type: str | None) -> str:
    """The page type an extractor is given (article or list) for a page labelled
    ``page_type``: list where ``mapping`` makes it one, article otherwise."""
    return LIST if page_type_label(mapping, page_type) == LIST else ARTICLE


def text_fingerprint(text: str | None) -> int:
    """Simhash fingerprint of the normalized text."""
    return simhash_fingerprint(normalize_text(text))


@lru_cache(maxsize=65536)
def gold_fingerprint(text: str) -> int | None:
    """Fingerprint of a gold text (``None`` when it has no words), computed once however
    many systems and pages use it."""
    return text_fingerprint(text) if tokens(text) else None


def extracted_text(record: Mapping[str, Any]) -> str:
    """The record's text; a list page without one falls back to its items."""
    return record.get("text") or items_text(record.get("items") or [])


def failure_reason(record: Mapping[str, Any] | None) -> str | None:
    """Why the feed did not deliver a page (missing, error, skipped), or ``None``."""
    if record is None:
        return FAILURE_MISSING
    status = record.get("status") or "ok"
    if status != "ok":
        return f"{status}: {record.get('error') or 'no reason given'}"
    return None


def score_page(
    record: Mapping[str, Any] | None,
    gold: GoldPage,
    config: ScoringConfig,
    *,
    text_only: bool = False,
) -> dict[str, Any]:
    """Per-page scores of a feed record (``None``: missing from the feed) against its
    gold; JSON-serializable, meant for the item's ``scores`` field.

    A missing, errored or skipped page scores 0 on everything (distance 64), and so
    does an empty extraction (failure "no text extracted"); text metrics are ``None``
    when the gold has no text, snippet/item/type metrics are ``None`` when the gold has
    no snippets/items/type. ``text_only`` (a peer extractor that neither classifies nor
    splits items) leaves type and item metrics ``None``.
    """
    failure = failure_reason(record)
    delivered: Mapping[str, Any] | None = record if failure is None else None
    text = extracted_text(delivered) if delivered is not None else ""
    extracted_tokens = tokens(text)
    if delivered is not None and not extracted_tokens:
        failure = FAILURE_NO_TEXT
    gold_label = None if text_only else config.label(gold.page_type)
    predicted_label = (
        config.label(delivered.get("page_type")) if delivered is not None and not text_only else None
    )
    gold_kind = gold.page_type if not text_only and gold.page_type in page_kinds() else None
    predicted_kind = delivered.get("page_kind") if delivered is not None and gold_kind else None
    snippet_recall, snippet_precision = snippet_scores(
        extracted_tokens, gold.with_snippets, gold.without_snippets
    )
    snippets = snippet_counts(extracted_tokens, gold.with_snippets, gold.without_snippets)
    item = None
    if gold.items and not text_only:
        predicted_items = (delivered.get("items") or []) if delivered is not None else []
        item = item_prf(predicted_items, gold.items, config.item_match_f1)
    return {
        "gold_url": gold.url,
        "site": gold.site or (record or {}).get("site") or site_of(gold.url),
        "gold_type": gold.page_type,
        "gold_label": gold_label,
        "predicted_type": predicted_label,
        "type_correct": predicted_label == gold_label if gold_label else None,
        "gold_kind": gold_kind,
        "predicted_kind": predicted_kind,
        "kind_correct": predicted_kind == gold_kind if gold_kind else None,
        "failure": failure,
        "extract_ms": _extract_ms(delivered) if delivered is not None else None,
        "extraction_quality": delivered.get("extraction_quality") if delivered is not None else None,
        **_text_scores(text, extracted_tokens, gold, config),
        "snippet_recall": snippet_recall,
        "snippet_precision": snippet_precision,
        "snippet_counts": [
            snippets.with_found,
            snippets.with_total,
            snippets.without_found,
            snippets.without_total,
        ],
        "item_precision": item.precision if item else None,
        "item_recall": item.recall if item else None,
        "item_f1": item.f1 if item else None,
    }


def _text_scores(
    text: str, extracted_tokens: list[str], gold: GoldPage, config: ScoringConfig
) -> dict[str, Any]:
    gold_print = gold_fingerprint(gold.text)
    if gold_print is None:
        return {
            "gold_has_text": False,
            "hamming_distance": None,
            "correct": None,
            "complete": None,
            "word_precision": None,
            "word_recall": None,
            "word_f1": None,
            "shingle_precision": None,
            "shingle_recall": None,
            "shingle_f1": None,
            "shingle_counts": None,
            "extracted_simhash": None,
            "gold_simhash": None,
        }
    if extracted_tokens:
        extracted_print = text_fingerprint(text)
        distance = hamming_distance(extracted_print, gold_print)
        gold_tokens = tokens(gold.text)
        words = word_prf(extracted_tokens, gold_tokens)
        counts = shingle_counts(extracted_tokens, gold_tokens)
    else:  # nothing extracted: every gold shingle is a false negative
        extracted_print, distance = None, FINGERPRINT_BITS
        words, counts = PRF(0.0, 0.0, 0.0), ShingleCounts(0.0, 0.0, 1.0)
    shingle = counts.prf()
    return {
        "gold_has_text": True,
        "hamming_distance": distance,
        "correct": distance < config.correct_distance,
        "complete": distance < config.complete_distance,
        "word_precision": words.precision,
        "word_recall": words.recall,
        "word_f1": words.f1,
        "shingle_precision": shingle.precision,
        "shingle_recall": shingle.recall,
        "shingle_f1": shingle.f1,
        "shingle_counts": [counts.tp, counts.fp, counts.fn],
        "extracted_simhash": f"{extracted_print:016x}" if extracted_print is not None else None,
        "gold_simhash": f"{gold_print:016x}",
    }


def _extract_ms(record: Mapping[str, Any]) -> float | None:
    value = (record.get("timings_ms") or {}).get("extract")
    return float(value) if isinstance(value, (int, float)) else None
