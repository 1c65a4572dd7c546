"""The pages the learned extractors learn from: WCXB dev pages with their gold, as raw
HTML (a WCXB folder) or as rendered captures (a crawl feed of the WCXB pages, whose
stored rendered HTML and element boxes the feed lines point to).

A capture is joined with its gold by file id: the capture crawl serves WCXB's
``html/NNNN.html.gz`` as ``.../NNNN.html``, so the stem of the URL path is the file id.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from pipelines.artifacts import read_artifact, read_local_artifact
from pipelines.evaluation.feed import read_feed
from pipelines.evaluation.wcxb import WcxbRecord, read_wcxb
from pipelines.extraction.encoding import decode_html

logger = logging.getLogger(__name__)

RAW, CAPTURE = "wcxb-html", "capture"


@dataclass(frozen=True)
class GoldPage:
    """One page to learn from: its WCXB record (gold, type, domain), its HTML, and the
    capture's element boxes (None for raw HTML)."""

    record: WcxbRecord
    html: str
    boxes: list[dict[str, Any]] | None
    source: str


def is_wcxb_folder(path: Path) -> bool:
    return (path / "ground-truth").is_dir()


def feed_path(path: Path) -> Path:
    """The feed JSONL of a capture folder (its only ``*.jsonl``), or ``path`` itself."""
    if path.is_file():
        return path
    feeds = sorted(path.glob("*.jsonl"))
    if len(feeds) != 1:
        raise ValueError(f"{path}: expected a WCXB folder, a feed JSONL or a folder with one *.jsonl")
    return feeds[0]


def read_gold_pages(data: Path, gold: Path | None = None, limit: int = 0) -> Iterator[GoldPage]:
    """The pages of ``data`` (a WCXB folder, or a capture feed / folder) joined with the
    WCXB gold of ``gold`` (default: ``data`` itself, which must then be a WCXB folder).

    Pages without HTML (a capture that failed, a missing file) are skipped with a log line.
    """
    gold = gold or data
    if not is_wcxb_folder(gold):
        raise ValueError(f"{gold}: the gold must be a WCXB folder (with ground-truth/)")
    records = {record.file_id: record for record in read_wcxb(gold)}
    count = 0
    if is_wcxb_folder(data):
        for record in records.values():
            if not record.has_html:
                logger.info("%s has no HTML, skipped", record.file_id)
                continue
            yield GoldPage(record, decode_html(read_local_artifact(record.html_path)), None, RAW)
            count += 1
            if count == limit:
                return
        return
    for line in read_feed(feed_path(data)):
        captured = records.get(PurePosixPath(urlsplit(line["url"]).path).stem)
        if captured is None:
            continue
        try:
            html = _read_html(line)
            boxes = _read_boxes(line)
        except (OSError, EOFError, ValueError) as error:
            logger.info("%s: no usable capture (%s), skipped", line["url"], error)
            continue
        yield GoldPage(captured, html, boxes, CAPTURE)
        count += 1
        if count == limit:
            return


def _read_html(line: dict[str, Any]) -> str:
    uri = (line.get("html") or {}).get("uri")
    if not uri:
        raise FileNotFoundError("the feed line has no stored HTML")
    return read_artifact(uri).decode("utf-8")


def _read_boxes(line: dict[str, Any]) -> list[dict[str, Any]] | None:
    uri = (line.get("boxes") or {}).get("uri")
    return json.loads(read_artifact(uri)) if uri else None
