"""Classification metrics: accuracy, per-class precision/recall/F1, confusion matrix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class ClassScores:
    """Precision, recall and F1 of one class; ``support`` = its true pages."""

    label: str
    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class ClassificationMetrics:
    """Scores of predictions against true classes; ``confusion[true][predicted]``."""

    labels: list[str]
    pages: int
    accuracy: float
    per_class: list[ClassScores]
    confusion: list[list[int]]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for checkpoints and model cards."""
        return asdict(self)


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


def classification_metrics(
    true: Sequence[int], predicted: Sequence[int], labels: Sequence[str]
) -> ClassificationMetrics:
    """Score class indices ``predicted`` against ``true``."""
    if len(true) != len(predicted):
        raise ValueError(f"{len(true)} true classes but {len(predicted)} predictions")
    size = len(labels)
    confusion = [[0] * size for _ in range(size)]
    for actual, guess in zip(true, predicted, strict=False):
        confusion[actual][guess] += 1
    per_class = []
    for k, label in enumerate(labels):
        hits = confusion[k][k]
        precision = _ratio(hits, sum(row[k] for row in confusion))
        recall = _ratio(hits, sum(confusion[k]))
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class.append(ClassScores(label, precision, recall, f1, sum(confusion[k])))
    correct = sum(confusion[k][k] for k in range(size))
    return ClassificationMetrics(list(labels), len(true), _ratio(correct, len(true)), per_class, confusion)
