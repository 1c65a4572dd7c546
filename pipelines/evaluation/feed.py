"""Offline evaluation of a finished feed (``scrapy evaluate``): read the feed JSONL,
score every line with gold, optionally run peer extractors on the same stored HTML."""

from __future__ import annotations

import gzip
import json
import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from urllib.request import url2pathname

from pipelines.evaluation.evaluation import Evaluation
from pipelines.evaluation.gold import GoldSet
from pipelines.evaluation.peers import PeerExtractor, load_peer
from pipelines.evaluation.scoring import ScoringConfig

logger = logging.getLogger(__name__)

PROGRESS_EVERY = 500


class FeedFormatError(ValueError):
    """A feed that cannot be read; the message names the file and line."""


class UnsupportedStoreError(ValueError):
    """Stored HTML in a store ``--compare`` cannot read (only local files)."""


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


def read_stored_html(record: Mapping[str, Any]) -> str:
    """The record's stored rendered HTML (``html.uri``: ``file://``, gzip or plain).

    Raises :class:`UnsupportedStoreError` for other stores, ``OSError`` (or ``EOFError``
    for a truncated gzip) when the file cannot be read.
    """
    uri = (record.get("html") or {}).get("uri")
    if not uri:
        raise FileNotFoundError("the feed line has no stored HTML")
    parts = urlsplit(uri)
    if parts.scheme not in ("file", ""):
        raise UnsupportedStoreError(
            f"--compare reads stored HTML from local stores (file://) only; "
            f"{record.get('url')} has its HTML at {uri}"
        )
    data = Path(url2pathname(parts.path) if parts.scheme else uri).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


def peer_record(name: str, extract: PeerExtractor, record: Mapping[str, Any]) -> dict[str, Any]:
    """A feed-like record of what the peer extracted from the record's stored HTML; a
    page our crawl lost, or one the peer fails on, is a failed line with the reason."""
    result: dict[str, Any] = {key: record.get(key) for key in ("url", "canonical_url", "site", "screenshot")}
    if (record.get("status") or "ok") != "ok":
        return {**result, "status": record.get("status"), "error": record.get("error")}
    try:
        html = read_stored_html(record)
    except (OSError, EOFError) as exc:  # missing, unreadable or truncated gzip
        logger.warning("No stored HTML for %s: %s", record.get("url"), exc)
        return {**result, "status": "error", "error": f"stored HTML unreadable: {exc}"}
    started = time.perf_counter()
    try:
        text = extract(html, str(record["url"]))
    except Exception as exc:  # a peer's bug on one page must not stop the comparison
        logger.warning("%s failed on %s: %r", name, record.get("url"), exc)
        return {**result, "status": "error", "error": f"{name} raised {exc!r}"}
    elapsed_ms = (time.perf_counter() - started) * 1000
    return {**result, "status": "ok", "text": text or "", "timings_ms": {"extract": elapsed_ms}}


def evaluate_feed(
    feed_path: str | Path,
    gold: GoldSet,
    config: ScoringConfig,
    compare: Sequence[str] = (),
    system: str = "pagesight",
) -> dict[str, Any]:
    """Score every feed line that has gold (plus the ``compare`` peers on the same stored
    HTML) and return the report."""
    peers = {name: load_peer(name) for name in compare}
    evaluation = Evaluation(gold, config, system)
    peer_evaluations = {name: Evaluation(gold, config, name, text_only=True) for name in peers}
    lines = 0
    for record in read_feed(feed_path):
        lines += 1
        if evaluation.score(record) is not None:
            for name, extract in peers.items():
                peer_evaluations[name].score(peer_record(name, extract, record))
        if lines % PROGRESS_EVERY == 0:
            logger.info("Scored %d feed lines (%d with gold)", lines, len(evaluation))
    logger.info(
        "Scored %d feed lines: %d with gold, %d without; %d gold pages",
        lines,
        len(evaluation),
        len(evaluation.unmatched_urls),
        len(gold),
    )
    return evaluation.report(peers=list(peer_evaluations.values()))
