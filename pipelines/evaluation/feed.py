"""Offline evaluation of a finished feed (``scrapy evaluate``): read the feed JSONL,
score every line with gold, optionally run any registered extractors on the same stored
captures (rendered HTML, element boxes, screenshot; the page type from the feed)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from models.pagetype.labels import LabelMapping
from pipelines.artifacts import ArtifactError, UnsupportedStoreError, read_artifact
from pipelines.evaluation.gold import GoldSet
from pipelines.evaluation.scorebook import Evaluation
from pipelines.evaluation.scoring import ScoringConfig, page_type_label
from pipelines.extraction.encoding import decode_html
from pipelines.extraction.page import PAGE_TYPES, Extractor, Page

logger = logging.getLogger(__name__)

PROGRESS_EVERY = 500


class FeedFormatError(ValueError):
    """A feed that cannot be read; the message names the file and line."""


#: Reads a stored artifact's bytes by URI (gzip undone).
ReadArtifact = Callable[[str], bytes]


def read_feed(path: str | Path) -> Iterator[dict[str, Any]]:
    """Feed records, one per non-blank JSONL line."""
    path = Path(path)
    if not path.is_file():
        raise FeedFormatError(f"{path}: no such feed file")
    with path.open("rb") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line.decode("utf-8"))
            except UnicodeDecodeError:
                raise FeedFormatError(f"{path} line {number}: not UTF-8") from None
            except json.JSONDecodeError as exc:
                raise FeedFormatError(f"{path} line {number}: not valid JSON: {exc.msg}") from None
            if not isinstance(record, dict) or not isinstance(record.get("url"), str):
                raise FeedFormatError(f'{path} line {number}: expected an object with a "url"')
            yield record


def read_feeds(paths: Sequence[str | Path]) -> Iterator[dict[str, Any]]:
    """Records of several feeds (the workers' of one distributed crawl), one per URL: a
    URL crawled again after its worker died (``recrawled``) keeps its first line."""
    seen: set[str] = set()
    for path in paths:
        for record in read_feed(path):
            if record["url"] not in seen:
                seen.add(record["url"])
                yield record


def stored_page(record: Mapping[str, Any], read: ReadArtifact, mapping: LabelMapping) -> Page:
    """The record's stored capture as a Page: rendered HTML and boxes read now, the
    screenshot only when an extractor looks at it, the page type from the feed line
    (through the label mapping; None when it is not article or list)."""
    html_uri = (record.get("html") or {}).get("uri")
    if not html_uri:
        raise ArtifactError("the feed line has no stored HTML")
    html = decode_html(read(html_uri))
    boxes_uri = (record.get("boxes") or {}).get("uri")
    boxes = json.loads(read(boxes_uri)) if boxes_uri else None
    shot_uri = (record.get("screenshot") or {}).get("uri")
    label = page_type_label(mapping, record.get("page_type"))
    return Page(
        html=html,
        url=str(record["url"]),
        page_type=label if label in PAGE_TYPES else None,
        boxes=boxes,
        screenshot=(lambda: read(shot_uri)) if shot_uri else None,
    )


def compared_record(
    extractor: Extractor, record: Mapping[str, Any], read: ReadArtifact, mapping: LabelMapping
) -> dict[str, Any]:
    """A feed-like record of what ``extractor`` finds in the record's stored capture; a
    page our crawl lost, or one the extractor fails on, is a failed line with the reason."""
    name = extractor.name
    result: dict[str, Any] = {key: record.get(key) for key in ("url", "canonical_url", "site", "screenshot")}
    if (record.get("status") or "ok") != "ok":
        return {**result, "status": record.get("status"), "error": record.get("error")}
    try:
        page = stored_page(record, read, mapping)
    except UnsupportedStoreError:
        raise  # every line's capture is there: the whole comparison cannot run
    except (ArtifactError, ValueError) as exc:  # missing, unreadable, broken gzip or JSON
        logger.warning("No stored capture for %s: %s", record.get("url"), exc)
        return {**result, "status": "error", "error": f"stored capture unreadable: {exc}"}
    started = time.perf_counter()
    try:
        extraction = extractor.extract(page)
    except Exception as exc:  # one extractor's bug on one page must not stop the comparison
        logger.warning("%s failed on %s: %r", name, record.get("url"), exc)
        return {**result, "status": "error", "error": f"{name} raised {exc!r}"}
    elapsed_ms = (time.perf_counter() - started) * 1000
    text = extraction.text if extraction else ""
    return {**result, "status": "ok", "text": text, "timings_ms": {"extract": elapsed_ms}}


def evaluate_feed(
    feed_paths: str | Path | Sequence[str | Path],
    gold: GoldSet,
    config: ScoringConfig,
    compare: Sequence[Extractor] = (),
    read: ReadArtifact = read_artifact,
    system: str = "pagesight",
) -> dict[str, Any]:
    """Score every feed line (of one feed or several, see ``read_feeds``) that has gold, and each ``compare`` extractor on the same
    stored captures (read with ``read``: ``ArtifactStore.read`` in ``scrapy evaluate``),
    and return the report."""
    evaluation = Evaluation(gold, config, system)
    compared = [
        (extractor, Evaluation(gold, config, extractor.name, text_only=True)) for extractor in compare
    ]
    lines = 0
    paths = [feed_paths] if isinstance(feed_paths, (str, Path)) else feed_paths
    for record in read_feeds(paths):
        lines += 1
        if evaluation.score(record) is not None:
            for extractor, scores in compared:
                scores.score(compared_record(extractor, record, read, config.label_mapping))
        if lines % PROGRESS_EVERY == 0:
            logger.info("Scored %d feed lines (%d with gold)", lines, len(evaluation))
    logger.info(
        "Scored %d feed lines: %d with gold, %d without; %d gold pages",
        lines,
        len(evaluation),
        len(evaluation.unmatched_urls),
        len(gold),
    )
    return evaluation.report(peers=[scores for _, scores in compared])
