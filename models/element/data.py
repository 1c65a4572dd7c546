"""Data for the element classifier: captured pages (rendered HTML + element boxes from a
crawl feed and its store), their main element (a person's mark, else the
auto-annotation of the gold text), and one feature row per candidate element.

Labels: one positive per page, the main element; every other candidate is a negative.
Graded targets beside them: each candidate's word F1 against the page's gold text, from
the annotation's aligned token counts (2·matched / (tokens + gold tokens)); a page marked
by a person without a text gets 1 for the marked element and 0 elsewhere. A person's mark (a gold JSONL line with ``path``) outranks the auto-annotation of the
same page. A page whose main element is not among its candidates (no box, no text, or a
mark whose path no longer exists) is left out with a logged reason.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from models.common.annotation import Annotation, annotate
from models.common.splits import TRAIN, load_split
from models.pagetype.labels import default_label_mapping
from pipelines.artifacts import read_artifact
from pipelines.evaluation.feed import read_feed
from pipelines.evaluation.gold import GoldSet
from pipelines.evaluation.scoring import extraction_page_type
from pipelines.evaluation.wcxb import read_wcxb
from pipelines.extraction.denoise import denoiser_fingerprint
from pipelines.extraction.dom import parse_html
from pipelines.extraction.element_features import feature_matrix
from pipelines.urls import url_key

#: The version of the element features the classifier reads
#: (:func:`pipelines.extraction.element_features.feature_matrix`, whose cleaning features
#: also go through the denoiser, :mod:`models.common.versions`); a card records the one its
#: checkpoint was trained with. tests/models/element/test_element_classifier.py pins their output on fixed
#: pages: when it changes, bump this and re-measure (or retrain) the shipped classifier.
FEATURES_VERSION = 1

logger = logging.getLogger(__name__)

PERSON, AUTO = "person", "auto"


@dataclass(frozen=True)
class CapturedPage:
    """One feed line of a crawl whose capture was stored: its URL and the feed's
    references to the stored rendered HTML and element boxes."""

    url: str
    html: dict[str, Any]
    boxes: dict[str, Any]
    screenshot: dict[str, Any] | None = None
    page_type: str | None = None

    def read(self) -> tuple[str, list[dict[str, Any]]]:
        """The rendered HTML and the element boxes (OSError, ValueError when unreadable)."""
        html = read_artifact(self.html.get("uri", "")).decode("utf-8")
        return html, json.loads(read_artifact(self.boxes.get("uri", "")))


@dataclass
class TrainingPage:
    """A captured page with its main element and where it sits in the split."""

    capture: CapturedPage
    main_path: str | None
    source: str
    gold_text: str = ""
    page_type: str = "article"
    domain: str = ""
    role: str = TRAIN
    fold: int | None = None
    file_id: str = ""


@dataclass
class PageRows:
    """The candidates of one page: their paths, feature rows, which one is the main and
    each one's word F1 against the gold (``targets``)."""

    page: TrainingPage
    paths: list[str]
    rows: np.ndarray
    positive: int
    targets: np.ndarray


def read_capture_feed(feed: str | Path) -> list[CapturedPage]:
    """The ``ok`` lines of a crawl feed that have stored HTML and boxes."""
    return [
        CapturedPage(
            record["url"], record["html"], record["boxes"], record.get("screenshot"), record.get("page_type")
        )
        for record in read_feed(feed)
        if record.get("status") == "ok" and record.get("html") and record.get("boxes")
    ]


def read_marks(path: str | Path) -> dict[str, dict[str, Any]]:
    """A person's marks: gold JSONL lines with a ``path``, by URL key (the last line wins)."""
    marks: dict[str, dict[str, Any]] = {}
    path = Path(path)
    if not path.is_file():
        return marks
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not valid JSON ({exc.msg})") from None
            if isinstance(entry, dict) and entry.get("url") and entry.get("path"):
                marks[url_key(entry["url"])] = entry
    return marks


def wcxb_pages(captures: Iterable[CapturedPage], wcxb_root: str | Path) -> list[TrainingPage]:
    """WCXB captures (URL ``.../NNNN.html``) joined with their gold and the one split;
    their main element comes from the auto-annotation (:func:`page_rows`)."""
    records = {record.file_id: record for record in read_wcxb(wcxb_root)}
    split = load_split()
    pages = []
    for capture in captures:
        file_id = PurePosixPath(urlsplit(capture.url).path).stem
        record = records.get(file_id)
        if record is None or not record.gold_text.strip():
            continue
        pages.append(
            TrainingPage(
                capture=capture,
                main_path=None,
                source=AUTO,
                gold_text=record.gold_text,
                page_type=record.known_page_type,
                domain=record.domain,
                role=split.role(record.domain),
                fold=split.fold(record.domain),
                file_id=file_id,
            )
        )
    return pages


def labeled_pages(
    captures: Iterable[CapturedPage], marks: dict[str, dict[str, Any]], gold: GoldSet | None = None
) -> list[TrainingPage]:
    """Captures a person marked, and those with a gold text (auto-annotated) among the
    rest, as training pages (role train)."""
    pages = []
    for capture in captures:
        mark = marks.get(url_key(capture.url))
        known = gold.get(capture.url) if gold is not None else None
        if mark is not None:
            page = TrainingPage(
                capture, mark["path"], PERSON, mark.get("text") or "", mark.get("page_type") or "article"
            )
        elif known is not None and known.text.strip():
            page = TrainingPage(capture, None, AUTO, known.text, known.page_type or "article")
        else:
            continue
        pages.append(page)
    return pages


def apply_marks(pages: list[TrainingPage], marks: dict[str, dict[str, Any]]) -> list[TrainingPage]:
    """A person's mark replaces the auto-annotation of the same page: its element is the
    main one, and the graded targets are measured against its text, not the page's gold."""
    for page in pages:
        mark = marks.get(url_key(page.capture.url))
        if mark is not None:
            page.main_path, page.source = mark["path"], PERSON
            page.gold_text = mark.get("text") or ""
    return pages


def page_rows(page: TrainingPage, features: list[str], viewport_height: int) -> PageRows | None:
    """Feature rows of a page's candidates and the index of its main element; None (with a
    logged reason) when the page cannot be read or its main element is not a candidate."""
    try:
        html, boxes = page.capture.read()
    except (OSError, ValueError) as exc:
        logger.warning("Left out %s: capture unreadable (%s)", page.capture.url, exc)
        return None
    root = parse_html(html)
    if root is None or root.find("body") is None:
        logger.warning("Left out %s: no body", page.capture.url)
        return None
    annotation = annotate(root, page.gold_text) if page.gold_text.strip() else None
    if page.main_path is None and annotation is not None:
        page.main_path = annotation.main_path
    main_path = page.main_path
    found, rows = feature_matrix(root, boxes, features, viewport_height, cleaning_type(page.page_type))
    paths = [candidate.path for candidate in found]
    if main_path not in paths:
        logger.warning(
            "Left out %s: its main element %s (%s) is not a boxed element with text",
            page.capture.url,
            main_path,
            page.source,
        )
        return None
    positive = paths.index(main_path)
    if annotation is None:
        targets = np.zeros(len(paths), dtype=np.float32)
        targets[positive] = 1.0
    else:
        targets = element_f1(annotation, paths)
    return PageRows(page, paths, np.asarray(rows, dtype=np.float32), positive, targets)


def cleaning_type(page_type: str) -> str:
    """The extractors' page type (what the denoiser cleans for) of a training page's type
    (WCXB's listing and collection pages are lists, as ``benchmarks/extract_captures.py``
    runs them)."""
    return extraction_page_type(default_label_mapping(), page_type)


def element_f1(annotation: Annotation, paths: list[str]) -> np.ndarray:
    """Word F1 against the gold of the elements at ``paths`` (0 where the annotation saw
    no text), from its aligned token counts."""
    stats = {element.path: element for element in annotation.elements}
    gold = annotation.gold_tokens
    return np.array(
        [
            2 * stats[path].matched / max(stats[path].tokens + gold, 1) if path in stats else 0.0
            for path in paths
        ],
        dtype=np.float32,
    )


def collect_rows(
    pages: list[TrainingPage],
    features: list[str],
    viewport_height: int,
    progress: Callable[[Iterable[TrainingPage]], Iterable[TrainingPage]] = iter,
) -> list[PageRows]:
    """:func:`page_rows` of every page that has them."""
    collected = (page_rows(page, features, viewport_height) for page in progress(pages))
    return [rows for rows in collected if rows is not None]


def save_rows(path: str | Path, collected: list[PageRows], features: list[str], viewport_height: int) -> None:
    """Cache computed rows (features of every candidate) as one .npz, no pickle."""
    pages = [{**asdict(rows.page), "paths": rows.paths, "positive": rows.positive} for rows in collected]
    meta = {
        "features": features,
        "viewport_height": viewport_height,
        "denoiser": denoiser_fingerprint(),
        "pages": pages,
    }
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with Path(path).open("wb") as out:
        np.savez_compressed(
            out,
            meta=np.array(json.dumps(meta, default=str, ensure_ascii=False)),
            rows=np.concatenate([rows.rows for rows in collected])
            if collected
            else np.zeros((0, len(features))),
            targets=np.concatenate([rows.targets for rows in collected]) if collected else np.zeros(0),
        )


def load_rows(path: str | Path, features: list[str], viewport_height: int) -> list[PageRows] | None:
    """Rows cached by :func:`save_rows`; None when the cache was computed differently: other
    features or viewport, another denoiser (the kept share and the cleaning read it), or
    before graded targets."""
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        matrix = data["rows"]
        targets = data.get("targets")
    computed = (meta["features"], meta["viewport_height"], meta.get("denoiser"))
    if computed != (features, viewport_height, denoiser_fingerprint()) or targets is None:
        logger.info(
            "Row cache %s was computed differently (features, viewport or denoiser): not reused", path
        )
        return None
    collected, start = [], 0
    for entry in meta["pages"]:
        capture = entry.pop("capture")
        paths, positive = entry.pop("paths"), entry.pop("positive")
        page = TrainingPage(capture=CapturedPage(**capture), **entry)
        end = start + len(paths)
        collected.append(PageRows(page, paths, matrix[start:end], positive, targets[start:end]))
        start += len(paths)
    return collected
