"""Report rendering: ``report.json`` (everything), ``report.md`` (tables, plots beside
it) and a self-contained ``report.html`` (plots and screenshot thumbnails embedded as
base64; every value from the feed or gold HTML-escaped)."""

from __future__ import annotations

import base64
import difflib
import html
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

from PIL import Image, UnidentifiedImageError

from pipelines.evaluation.plots import confusion_png, hamming_histogram_png, quality_png, word_f1_per_site_png
from pipelines.evaluation.text import normalize_text

logger = logging.getLogger(__name__)

THUMBNAIL_WIDTH = 360
#: Tallest part of a full-page screenshot shown, as a multiple of its width.
THUMBNAIL_ASPECT = 1.5
TEXT_SHOWN_CHARS = 4000
DIFF_SHOWN_LINES = 200

#: (key, heading, kind) of the summary table; kind "rate" or "number" or "count".
SUMMARY_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("pages", "pages", "count"),
    ("failures", "failures", "count"),
    ("word_precision", "word P", "rate"),
    ("word_recall", "word R", "rate"),
    ("word_f1", "word F1", "rate"),
    ("shingle_f1", "shingle F1", "rate"),
    ("hamming_precision", "paper P", "rate"),
    ("hamming_recall", "paper R", "rate"),
    ("type_accuracy", "type acc.", "rate"),
    ("snippet_recall", "snippet R", "rate"),
    ("snippet_precision", "snippet P", "rate"),
    ("snippet_pooled_precision", "snippet P (pooled)", "rate"),
    ("snippet_pooled_recall", "snippet R (pooled)", "rate"),
    ("snippet_pooled_f1", "snippet F (pooled)", "rate"),
    ("item_precision", "item P", "rate"),
    ("item_recall", "item R", "rate"),
    ("ms_per_page", "ms/page", "number"),
)
#: What each summary column means (the report prints it under the table).
SUMMARY_LEGEND: dict[str, str] = {
    "pages": "gold pages scored",
    "failures": "gold pages with no usable line (error, skipped, missing or no text)",
    "word_precision": "share of the extracted words that are in the gold text (bag of words; "
    "Chinese, Japanese and Thai by character), mean over pages with gold text",
    "word_recall": "share of the gold text's words that were extracted, mean over pages",
    "word_f1": "harmonic mean of word P and word R, per page, then the mean",
    "shingle_f1": "F1 of overlapping 4-word shingles, counts pooled over pages (order matters)",
    "hamming_precision": "the I-AWCE paper's P: share of pages whose simhash is within the correct "
    "threshold of the gold's",
    "hamming_recall": "the paper's R: share of those correct pages that are also within the "
    "complete threshold",
    "type_accuracy": "share of pages with a gold type whose predicted label (article or list) is the gold's",
    "snippet_recall": "share of the gold's body snippets found in the text, mean over pages",
    "snippet_precision": "share of the gold's boilerplate snippets kept out of the text, mean over pages",
    "snippet_pooled_precision": "trafilatura's evaluation: body snippets found / (found + "
    "boilerplate snippets found), counts pooled over pages",
    "snippet_pooled_recall": "trafilatura's evaluation: body snippets found / all body snippets, pooled",
    "snippet_pooled_f1": "harmonic mean of the pooled snippet P and R",
    "item_precision": "list pages: share of extracted items that match a gold item, mean over pages",
    "item_recall": "list pages: share of gold items extracted, mean over pages",
    "ms_per_page": "extraction time per page, mean (milliseconds)",
}
#: How snippets match, said once under the legend.
SNIPPET_MATCHING = (
    "Snippets match as whole words: both sides are tokenized as the word metrics are, and a "
    "snippet counts when its words appear in a row in the text, punctuation and spacing "
    "aside. A snippet cut in the middle of a word never matches."
)
CALIBRATION_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("unrelated_pairs", "same-site pairs", "count"),
    ("unrelated_correct_rate", "same-site < correct", "rate"),
    ("unrelated_complete_rate", "same-site < complete", "rate"),
    ("unrelated_any_site_pairs", "any-site pairs", "count"),
    ("unrelated_any_site_correct_rate", "any-site < correct", "rate"),
    ("unrelated_any_site_complete_rate", "any-site < complete", "rate"),
)
GROUP_COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("pages", "pages", "count"),
    ("hamming_precision", "paper P", "rate"),
    ("hamming_recall", "paper R", "rate"),
    ("word_f1", "word F1", "rate"),
    ("type_accuracy", "type acc.", "rate"),
    ("unrelated_correct_rate", "unrelated < correct", "rate"),
    ("failures", "failures", "count"),
)

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d1d1f;max-width:1400px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ddd;padding:3px 8px}
th{background:#f3f4f6;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}
.note{color:#555}.page{border:1px solid #ddd;padding:12px;margin:16px 0}
.cols{display:flex;gap:12px;align-items:flex-start}.cols>div{flex:1;min-width:0}
pre{white-space:pre-wrap;word-break:break-word;background:#fafafa;padding:8px;
max-height:420px;overflow:auto;font-size:12px}.add{color:#116611}.del{color:#aa1111}
img.shot{width:360px;border:1px solid #ccc}
dl.legend{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;color:#555}
dl.legend dt{font-weight:600}dl.legend dd{margin:0}
"""


@dataclass
class ReportPaths:
    """Files a report was written to."""

    json: Path
    markdown: Path
    html: Path
    plots: dict[str, Path]


def write_report(report: Mapping[str, Any], out_dir: str | Path) -> ReportPaths:
    """Write ``report.json``, ``report.md``, ``report.html`` and ``plots/*.png``."""
    out = Path(out_dir)
    (out / "plots").mkdir(parents=True, exist_ok=True)
    plots = render_plots(report)
    plot_paths = {}
    for name, png in plots.items():
        plot_paths[name] = out / "plots" / f"{name}.png"
        plot_paths[name].write_bytes(png)
    paths = ReportPaths(out / "report.json", out / "report.md", out / "report.html", plot_paths)
    paths.json.write_text(json.dumps(report, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    paths.markdown.write_text(render_markdown(report, plot_paths, out), encoding="utf-8")
    paths.html.write_text(render_html(report, plots), encoding="utf-8")
    return paths


def render_plots(report: Mapping[str, Any]) -> dict[str, bytes]:
    """The report's plots as PNG bytes, by name."""
    config = report["config"]
    histogram = report["hamming_histogram"]
    systems = _systems(report)
    plots = {
        "hamming-distance": hamming_histogram_png(
            histogram["pages"],
            histogram["unrelated"],
            histogram["unrelated_any_site"],
            config["correct_distance"],
            config["complete_distance"],
        )
    }
    if report["sites"]:
        f1_by_site = {
            site: {name: view["sites"].get(site, {}).get("word_f1") for name, view in systems.items()}
            for site in report["sites"]
        }
        pages_by_site = {site: group["pages"] for site, group in report["sites"].items()}
        plots["word-f1-per-site"] = word_f1_per_site_png(f1_by_site, pages_by_site)
    if report["confusion"]["gold"]:
        plots["page-type-confusion"] = confusion_png(report["confusion"])
    if report.get("page_kinds"):
        plots["page-kind-confusion"] = confusion_png(report["page_kinds"]["confusion"])
    rated = [
        (page["extraction_quality"], page["word_f1"])
        for page in report["pages"]
        if page.get("extraction_quality") is not None and page["word_f1"] is not None
    ]
    if rated:
        plots["predicted-vs-true-quality"] = quality_png([q for q, _ in rated], [f for _, f in rated])
    return plots


def format_value(value: Any, kind: str) -> str:
    """A table cell: rates with 3 decimals, ms with 1, ``–`` for no value."""
    if value is None:
        return "–"
    if kind == "rate":
        return f"{value:.3f}"
    if kind == "number":
        return f"{value:.1f}"
    return str(value)


def _metric_texts(metrics: Mapping[str, Any], columns: Sequence[tuple[str, str, str]]) -> list[str]:
    return [format_value(metrics[key], kind) for key, _, kind in columns]


def _systems(report: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return report.get("systems") or {report["system"]: report}


def _group_rows(report: Mapping[str, Any], group: str) -> list[tuple[str, str, Mapping[str, Any]]]:
    """(group name, system, metrics) rows: each group, each system under it."""
    systems = _systems(report)
    return [
        (name, system, view[group][name])
        for name in report[group]
        for system, view in systems.items()
        if name in view[group]
    ]


# --- Markdown ---------------------------------------------------------------------------


def _md_table(headings: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def escape(cell: str) -> str:
        return cell.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(headings) + " |", "|" + "---|" * len(headings)]
    lines += ["| " + " | ".join(escape(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def render_markdown(report: Mapping[str, Any], plot_paths: Mapping[str, Path], out: Path) -> str:
    """The report as Markdown; plots are linked from ``plots/``."""
    config = report["config"]
    systems = _systems(report)
    parts = [
        f"# Extraction evaluation: {report['system']}",
        _intro(report),
        "## Summary",
        _md_table(
            ["system", *(heading for _, heading, _ in SUMMARY_COLUMNS)],
            [[name, *_metric_texts(view["summary"], SUMMARY_COLUMNS)] for name, view in systems.items()],
        ),
        "\n".join(f"- **{heading}**: {SUMMARY_LEGEND[key]}" for key, heading, _ in SUMMARY_COLUMNS),
        SNIPPET_MATCHING,
        "## Calibration",
        _calibration_note(report),
        _md_table(
            ["system", *(heading for _, heading, _ in CALIBRATION_COLUMNS)],
            [[name, *_metric_texts(view["summary"], CALIBRATION_COLUMNS)] for name, view in systems.items()],
        ),
    ]
    for group, title, heading in GROUPS:
        parts += [
            f"## {title}",
            *([PAGE_TYPES_NOTE] if group == "page_types" else []),
            _md_table(
                [heading, "system", *(heading for _, heading, _ in GROUP_COLUMNS)],
                [
                    [_group_name(report, group, name), system, *_metric_texts(metrics, GROUP_COLUMNS)]
                    for name, system, metrics in _group_rows(report, group)
                ],
            ),
        ]
    if report.get("page_kinds"):
        parts += ["## Page kinds", page_kinds_markdown(report["page_kinds"])]
    parts.append("## Plots")
    parts += [f"![{name}]({path.relative_to(out).as_posix()})" for name, path in plot_paths.items()]
    parts += ["## Failures", _failures_md(report)]
    parts += [
        "## Worst pages",
        _md_table(
            ["url", "site", "word F1", "distance", "failure"],
            [
                [
                    page["url"],
                    page["site"],
                    format_value(page["word_f1"], "rate"),
                    str(page["hamming_distance"]),
                    page["failure"] or "",
                ]
                for page in report["worst_pages"]
            ],
        ),
        f"Thresholds: correct < {config['correct_distance']}, complete < {config['complete_distance']} bits.",
    ]
    return "\n\n".join(parts) + "\n"


#: The grouped tables: (report key, title, first column's heading).
GROUPS = (("sites", "Sites", "site"), ("page_types", "Page types", "gold page type (label)"))
PAGE_TYPES_NOTE = (
    "Grouped by the page type the gold names (WCXB's listing, product…); in brackets, the "
    "label it counts as (PAGESIGHT_TYPE_LABEL_MAPPING: article or list), which the "
    "classifier predicts and the confusion matrix counts."
)


def _group_name(report: Mapping[str, Any], group: str, name: str) -> str:
    """A group's row name: a site, or a gold page type with its label."""
    label = report.get("page_type_labels", {}).get(name) if group == "page_types" else None
    return name if label is None or label == name else f"{name} ({label})"


def page_kinds_markdown(kinds: Mapping[str, Any]) -> str:
    """The feed's page_kind against the gold's kind (WCXB's seven): accuracy, and the
    confusion matrix with each gold kind's recall."""
    confusion = kinds["confusion"]
    table = _md_table(
        ["gold kind", *confusion["predicted"], "recall"],
        [
            [gold, *(str(count) for count in counts), format_value(kinds["recall"].get(gold), "rate")]
            for gold, counts in zip(confusion["gold"], confusion["matrix"], strict=True)
        ],
    )
    return (
        f"Kind accuracy {format_value(kinds['accuracy'], 'rate')} over {kinds['pages']} pages whose "
        "gold names a kind (predicted kinds in the columns, `(none)`: no kind on the line).\n\n" + table
    )


def _failures_md(report: Mapping[str, Any]) -> str:
    lines = []
    if report["failures"]:
        lines.append(
            _md_table(
                ["url", "site", "reason"],
                [[f["url"], f["site"], f["reason"]] for f in report["failures"]],
            )
        )
    else:
        lines.append("No failed or missing pages.")
    if report["gold"]["skipped"]:
        lines.append("Gold entries that cannot be matched:")
        lines += [f"- {s['source']}: {s['reason']}" for s in report["gold"]["skipped"]]
    return "\n\n".join(lines)


def _intro(report: Mapping[str, Any]) -> str:
    gold, feed = report["gold"], report["feed"]
    return (
        f"Generated {report['generated_at']} against {gold['pages']} gold pages "
        f"({gold['format']}: {gold['path']}). {feed['matched']} feed lines matched gold, "
        f"{feed['unmatched']} had none, {len(feed['duplicates'])} repeated a page already "
        f"scored; {len(report['failures'])} gold pages failed or are missing."
    )


def _calibration_note(report: Mapping[str, Any]) -> str:
    summary, config = report["summary"], report["config"]
    correct, complete = config["correct_distance"], config["complete_distance"]
    note = (
        f"A page counts as correctly extracted below {correct} bits and completely below "
        f"{complete}. Unrelated pairs (an extraction against another page's gold) show "
        "what those thresholds are worth: the share of them that would pass should be "
        "near 0."
    )
    if not summary["unrelated_pairs"]:
        note += " No site has two scored pages, so there are no same-site pairs here."
    rate = summary["unrelated_any_site_correct_rate"]
    if rate is not None:
        note += (
            f" Of {summary['unrelated_any_site_pairs']} pairs across sites, "
            f"{format_value(rate, 'rate')} pass the correct threshold."
        )
    return note


# --- HTML -------------------------------------------------------------------------------


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _html_table(headings: Sequence[str], rows: Sequence[Sequence[tuple[str, bool]]]) -> str:
    """Rows of (already escaped cell HTML, is numeric)."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headings)
    body = "".join(
        "<tr>" + "".join(_html_cell(cell, numeric) for cell, numeric in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _html_cell(cell: str, numeric: bool) -> str:
    return f'<td class="n">{cell}</td>' if numeric else f"<td>{cell}</td>"


def _metric_cells(
    metrics: Mapping[str, Any], columns: Sequence[tuple[str, str, str]]
) -> list[tuple[str, bool]]:
    return [(_e(text), True) for text in _metric_texts(metrics, columns)]


def _link(url: str) -> str:
    """A link for http(s) URLs; any other scheme is shown as text only."""
    if urlsplit(url).scheme in ("http", "https"):
        return f'<a href="{_e(url)}">{_e(url)}</a>'
    return _e(url)


def render_html(report: Mapping[str, Any], plots: Mapping[str, bytes]) -> str:
    """The self-contained HTML report."""
    systems = _systems(report)
    sections = [
        f"<h1>Extraction evaluation: {_e(report['system'])}</h1>",
        f'<p class="note">{_e(_intro(report))}</p>',
        "<h2>Summary</h2>",
        _html_table(
            ["system", *(h for _, h, _ in SUMMARY_COLUMNS)],
            [
                [(_e(name), False), *_metric_cells(view["summary"], SUMMARY_COLUMNS)]
                for name, view in systems.items()
            ],
        ),
        '<dl class="legend">'
        + "".join(f"<dt>{_e(h)}</dt><dd>{_e(SUMMARY_LEGEND[key])}</dd>" for key, h, _ in SUMMARY_COLUMNS)
        + "</dl>",
        f'<p class="note">{_e(SNIPPET_MATCHING)}</p>',
        "<h2>Calibration</h2>",
        f"<p>{_e(_calibration_note(report))}</p>",
        _html_table(
            ["system", *(h for _, h, _ in CALIBRATION_COLUMNS)],
            [
                [(_e(name), False), *_metric_cells(view["summary"], CALIBRATION_COLUMNS)]
                for name, view in systems.items()
            ],
        ),
    ]
    for group, title, heading in GROUPS:
        sections += [
            f"<h2>{title}</h2>",
            *([f'<p class="note">{_e(PAGE_TYPES_NOTE)}</p>'] if group == "page_types" else []),
            _html_table(
                [heading, "system", *(h for _, h, _ in GROUP_COLUMNS)],
                [
                    [
                        (_e(_group_name(report, group, name)), False),
                        (_e(system), False),
                        *_metric_cells(metrics, GROUP_COLUMNS),
                    ]
                    for name, system, metrics in _group_rows(report, group)
                ],
            ),
        ]
    sections.append("<h2>Plots</h2>")
    sections += [
        f'<p><img alt="{_e(name)}" src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}"></p>'
        for name, png in plots.items()
    ]
    sections += ["<h2>Worst pages</h2>", *(_worst_page_html(p) for p in report["worst_pages"])]
    sections += ["<h2>Failures</h2>", _failures_html(report)]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>PageSight evaluation: {_e(report['system'])}</title>"
        f"<style>{_STYLE}</style></head><body>\n" + "\n".join(sections) + "\n</body></html>\n"
    )


def _failures_html(report: Mapping[str, Any]) -> str:
    parts = []
    if report["failures"]:
        parts.append(
            _html_table(
                ["url", "site", "reason"],
                [
                    [(_link(f["url"]), False), (_e(f["site"]), False), (_e(f["reason"]), False)]
                    for f in report["failures"]
                ],
            )
        )
    else:
        parts.append("<p>No failed or missing pages.</p>")
    if report["gold"]["skipped"]:
        items = "".join(f"<li>{_e(s['source'])}: {_e(s['reason'])}</li>" for s in report["gold"]["skipped"])
        parts.append(f"<p>Gold entries that cannot be matched:</p><ul>{items}</ul>")
    if report["feed"]["unmatched"]:
        parts.append(f"<p>{report['feed']['unmatched']} feed lines have no gold page (not scored).</p>")
    return "\n".join(parts)


def _worst_page_html(page: Mapping[str, Any]) -> str:
    thumbnail = screenshot_thumbnail(page.get("screenshot_uri"))
    image = (
        f'<img class="shot" alt="screenshot" src="data:image/jpeg;base64,{thumbnail}">'
        if thumbnail
        else '<p class="note">no local screenshot</p>'
    )
    failure = f" · {_e(page['failure'])}" if page.get("failure") else ""
    title = f"<b>{_e(page['title'])}</b><br>" if page.get("title") else ""
    return (
        '<div class="page">'
        f"<p>{title}{_link(page['url'])}<br>site {_e(page['site'])} · word F1 "
        f"{_e(format_value(page['word_f1'], 'rate'))} · distance "
        f"{_e(page['hamming_distance'])}{failure}</p>"
        f'<div class="cols"><div>{image}</div>'
        f"<div><b>extracted</b><pre>{_e(_shown(page['extracted']))}</pre></div>"
        f"<div><b>gold</b><pre>{_e(_shown(page['gold']))}</pre></div></div>"
        f"<b>diff (gold → extracted)</b><pre>{_diff_html(page['gold'], page['extracted'])}</pre>"
        "</div>"
    )


def _shown(text: str) -> str:
    if len(text) <= TEXT_SHOWN_CHARS:
        return text
    return f"{text[:TEXT_SHOWN_CHARS]}\n… ({len(text) - TEXT_SHOWN_CHARS} more characters)"


def _diff_html(gold: str, extracted: str) -> str:
    lines = list(
        difflib.unified_diff(
            normalize_text(gold).split("\n"),
            normalize_text(extracted).split("\n"),
            "gold",
            "extracted",
            n=1,
            lineterm="",
        )
    )
    shown = []
    for line in lines[:DIFF_SHOWN_LINES]:
        css = "add" if line.startswith("+") else "del" if line.startswith("-") else ""
        shown.append(f'<span class="{css}">{_e(line)}</span>' if css else _e(line))
    if len(lines) > DIFF_SHOWN_LINES:
        shown.append(_e(f"… ({len(lines) - DIFF_SHOWN_LINES} more diff lines)"))
    return "\n".join(shown) or "(identical after normalization)"


def screenshot_thumbnail(uri: str | None) -> str | None:
    """Base64 JPEG of the top of a local screenshot, scaled to ``THUMBNAIL_WIDTH``;
    ``None`` when the screenshot is not a readable local file."""
    if not uri:
        return None
    parts = urlsplit(uri)
    if parts.scheme not in ("file", ""):
        return None
    path = Path(url2pathname(parts.path) if parts.scheme else uri)
    try:
        with Image.open(path) as opened:
            image = opened.convert("RGB")
    except (OSError, UnidentifiedImageError) as exc:
        logger.warning("Screenshot %s not shown: %s", uri, exc)
        return None
    image = image.crop((0, 0, image.width, min(image.height, int(image.width * THUMBNAIL_ASPECT))))
    image.thumbnail((THUMBNAIL_WIDTH, int(THUMBNAIL_WIDTH * THUMBNAIL_ASPECT)))
    buffer = BytesIO()
    image.save(buffer, format="JPEG", quality=75)
    return base64.b64encode(buffer.getvalue()).decode("ascii")
