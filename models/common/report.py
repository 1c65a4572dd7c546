"""Human-readable training reports: metrics as text and the confusion matrix as PNG."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure

from models.common.metrics import ClassificationMetrics


def format_metrics(metrics: ClassificationMetrics) -> str:
    """Accuracy, a per-class precision/recall/F1 table and the confusion matrix."""
    width = max(9, *(len(label) for label in metrics.labels))
    lines = [
        f"accuracy {metrics.accuracy:.4f} on {metrics.pages} pages",
        f"{'class':<{width}}  precision  recall      f1  support",
    ]
    for scores in metrics.per_class:
        lines.append(
            f"{scores.label:<{width}}  {scores.precision:9.4f}  {scores.recall:6.4f}  "
            f"{scores.f1:6.4f}  {scores.support:7d}"
        )
    lines.append("confusion matrix (rows: true class, columns: predicted)")
    lines.append(" " * width + "".join(f"  {label:>{width}}" for label in metrics.labels))
    for label, row in zip(metrics.labels, metrics.confusion, strict=False):
        lines.append(f"{label:<{width}}" + "".join(f"  {count:>{width}d}" for count in row))
    return "\n".join(lines)


def save_confusion_png(metrics: ClassificationMetrics, path: str | Path, title: str) -> Path:
    """Draw the confusion matrix (counts, rows = true class) to a PNG file."""
    path = Path(path)
    size = len(metrics.labels)
    # A bare Figure renders with Agg and leaves pyplot's global state alone.
    figure = Figure(figsize=(1.6 + 1.1 * size, 1.2 + 1.0 * size), dpi=120)
    axes = figure.subplots()
    axes.imshow(metrics.confusion, cmap="Blues")
    peak = max((max(row) for row in metrics.confusion), default=0)
    for i, row in enumerate(metrics.confusion):
        for j, count in enumerate(row):
            color = "white" if peak and count > peak / 2 else "black"
            axes.text(j, i, str(count), ha="center", va="center", color=color)
    axes.set_xticks(range(size), metrics.labels, rotation=45 if size > 3 else 0)
    axes.set_yticks(range(size), metrics.labels)
    axes.set_xlabel("predicted")
    axes.set_ylabel("true")
    axes.set_title(f"{title}\naccuracy {metrics.accuracy:.3f} on {metrics.pages} pages", fontsize=9)
    figure.tight_layout()
    figure.savefig(path)
    return path
