"""Report plots as PNG bytes (matplotlib's Agg canvas; no pyplot, no global state)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from io import BytesIO
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

MAX_SITES_PLOTTED = 40


def _png(figure: Figure) -> bytes:
    FigureCanvasAgg(figure)
    buffer = BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return buffer.getvalue()


def hamming_histogram_png(
    pages: Sequence[int],
    unrelated_same_site: Sequence[int],
    unrelated_any_site: Sequence[int],
    correct: int,
    complete: int,
) -> bytes:
    """Share of pages at each extraction-to-gold distance (bars), share of unrelated
    pairs at each distance (lines: same site, any site), and the two thresholds."""
    figure = Figure(figsize=(8, 3.6))
    axes = figure.add_subplot()
    distances = range(len(pages))
    page_total = sum(pages) or 1
    axes.bar(
        distances,
        [n / page_total for n in pages],
        width=0.9,
        color="#4878a8",
        label=f"extraction vs its gold ({sum(pages)} pages)",
    )
    curves = (
        (unrelated_same_site, "same site", "#d0703a"),
        (unrelated_any_site, "any site", "#7a5195"),
    )
    for counts, name, color in curves:
        if pair_total := sum(counts):
            axes.step(
                distances,
                [n / pair_total for n in counts],
                where="mid",
                color=color,
                label=f"extraction vs other pages' gold, {name} ({pair_total} pairs)",
            )
    for threshold, name, style in ((correct, "correct", "--"), (complete, "complete", ":")):
        axes.axvline(threshold - 0.5, color="#333333", linestyle=style, label=f"{name}: < {threshold}")
    axes.set_xlim(-1, len(pages))
    axes.set_xlabel("simhash Hamming distance (bits)")
    axes.set_ylabel("share")
    axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _png(figure)


def word_f1_per_site_png(
    f1_by_site: Mapping[str, Mapping[str, float | None]], pages_by_site: Mapping[str, int]
) -> bytes:
    """Horizontal bars of word F1 per site, one bar per system. With more than
    ``MAX_SITES_PLOTTED`` sites, those with the most pages are shown, ties broken by the
    first system's lowest F1 (the sites most worth a look)."""
    systems = list(dict.fromkeys(name for by_system in f1_by_site.values() for name in by_system))
    first = systems[0] if systems else None
    sites = sorted(
        f1_by_site,
        key=lambda site: (-pages_by_site[site], f1_by_site[site].get(first or "") or 0.0, site),
    )
    shown = sites[:MAX_SITES_PLOTTED]
    figure = Figure(figsize=(8, 1.0 + 0.25 * len(shown) * max(1, len(systems)) ** 0.5))
    axes = figure.add_subplot()
    height = 0.8 / max(1, len(systems))
    for offset, system in enumerate(systems):
        values = [f1_by_site[site].get(system) or 0.0 for site in shown]
        positions = [i - 0.4 + (offset + 0.5) * height for i in range(len(shown))]
        axes.barh(positions, values, height=height, label=system)
    axes.set_yticks(range(len(shown)), shown, fontsize=8)
    axes.set_ylim(len(shown) - 0.5, -0.5)
    axes.set_xlim(0, 1)
    axes.set_xlabel("word F1 (mean over pages)")
    if len(shown) < len(sites):
        axes.set_title(f"{len(shown)} of {len(sites)} sites: most pages, then lowest F1", fontsize=9)
    if len(systems) > 1:
        axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _png(figure)


def confusion_png(confusion: Mapping[str, Any]) -> bytes:
    """The page-type confusion matrix (gold rows, predicted columns) with counts."""
    gold, predicted, matrix = confusion["gold"], confusion["predicted"], confusion["matrix"]
    figure = Figure(figsize=(1.6 + 1.1 * len(predicted), 1.2 + 0.8 * len(gold)))
    axes = figure.add_subplot()
    axes.imshow(matrix or [[0]], cmap="Blues", aspect="auto")
    peak = max((max(row) for row in matrix if row), default=0)
    for i, row in enumerate(matrix):
        for j, count in enumerate(row):
            color = "white" if count > peak / 2 else "black"
            axes.text(j, i, str(count), ha="center", va="center", color=color)
    axes.set_xticks(range(len(predicted)), predicted)
    axes.set_yticks(range(len(gold)), gold)
    axes.set_xlabel("predicted label")
    axes.set_ylabel("gold label")
    return _png(figure)


def quality_png(predicted: Sequence[float], true: Sequence[float]) -> bytes:
    """Predicted quality (the feed's ``extraction_quality``) against the true word F1,
    one dot per page, with the diagonal, Spearman's rho and the true F1 of the
    predicted top and bottom quartiles in the title."""
    from scipy.stats import spearmanr

    figure = Figure(figsize=(5, 5))
    axes = figure.add_subplot()
    axes.scatter(predicted, true, s=10, alpha=0.6)
    axes.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle="--")
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1.02)
    axes.set_xlabel("predicted quality (extraction_quality)")
    axes.set_ylabel("true word F1")
    pairs = sorted(zip(predicted, true, strict=True))
    quarter = max(1, len(pairs) // 4)
    title = f"{len(pairs)} pages"
    if len(pairs) >= 4 and len(set(predicted)) > 1 and len(set(true)) > 1:
        rho = float(spearmanr(predicted, true).statistic)
        top = sum(t for _, t in pairs[-quarter:]) / quarter
        bottom = sum(t for _, t in pairs[:quarter]) / quarter
        title += f", Spearman {rho:.2f}, true F1 top quartile {top:.2f} vs bottom {bottom:.2f}"
    axes.set_title(title, fontsize=9)
    return _png(figure)
