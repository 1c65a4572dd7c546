"""Accuracy, per-class precision/recall/F1, the confusion matrix and its renderings."""

from __future__ import annotations

import pytest

from models.common.metrics import classification_metrics
from models.common.report import format_metrics, save_confusion_png


def test_scores_from_a_known_confusion_matrix():
    # true article ×4 (3 right), true list ×2 (1 right), true other ×1 (never predicted)
    true = [0, 0, 0, 0, 1, 1, 2]
    predicted = [0, 0, 0, 1, 1, 0, 0]
    metrics = classification_metrics(true, predicted, ["article", "list", "other"])
    assert metrics.confusion == [[3, 1, 0], [1, 1, 0], [1, 0, 0]]
    assert metrics.accuracy == pytest.approx(4 / 7) and metrics.pages == 7
    article, listing, other = metrics.per_class
    assert (article.precision, article.recall, article.support) == (pytest.approx(3 / 5), 0.75, 4)
    assert article.f1 == pytest.approx(2 * 0.6 * 0.75 / 1.35)
    assert (listing.precision, listing.recall, listing.f1) == (0.5, 0.5, 0.5)
    assert (other.precision, other.recall, other.f1, other.support) == (0.0, 0.0, 0.0, 1)
    assert metrics.to_dict()["per_class"][1]["label"] == "list"


def test_empty_and_mismatched_inputs():
    assert classification_metrics([], [], ["a", "b"]).accuracy == 0.0
    with pytest.raises(ValueError, match="2 true classes but 1 predictions"):
        classification_metrics([0, 1], [0], ["a", "b"])


def test_text_report_and_confusion_png(tmp_path):
    metrics = classification_metrics([0, 1, 1], [0, 1, 0], ["article", "list"])
    text = format_metrics(metrics)
    assert text.splitlines()[0] == "accuracy 0.6667 on 3 pages"
    assert "list          1.0000  0.5000  0.6667        2" in text
    assert text.splitlines()[-1].split() == ["list", "1", "1"]
    path = save_confusion_png(metrics, tmp_path / "confusion.png", "LeNet-5")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
