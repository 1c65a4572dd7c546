"""Training data of the quality estimate: every candidate extractor's text on every WCXB
dev page, cached as JSONL (one line per page) so that feature and model changes rerun in
seconds, and the rows (features, target word F1 against gold) built from that cache.

Candidates here are the extractors that need no capture and no trained weights (iawce,
iawce-paper, dom-pagerank and the peers): their output on a training domain cannot have
been memorised, so no out-of-fold bookkeeping is needed (the learned extractors are left
out of the default ensemble: README "Ensemble").
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.common.splits import DomainSplit
from models.quality.features import PageStats, candidate_features, page_stats
from pipelines.artifacts import read_local_artifact
from pipelines.config import SettingsLike
from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.scoring import extraction_page_type, page_type_mapping
from pipelines.evaluation.text import tokens
from pipelines.evaluation.wcxb import WcxbRecord


@dataclass
class CandidatePage:
    """One cached page: ids, split role and fold, types, page statistics, and each
    candidate's text (None: it found nothing) and milliseconds."""

    file_id: str
    domain: str
    role: str
    fold: int | None
    wcxb_type: str
    page_type: str
    page: PageStats
    texts: dict[str, str | None]
    ms: dict[str, float]

    def to_json(self) -> str:
        row = {**self.__dict__, "page": self.page.to_dict()}
        return json.dumps(row, ensure_ascii=False)

    @classmethod
    def from_json(cls, line: str) -> CandidatePage:
        row: dict[str, Any] = json.loads(line)
        row["page"] = PageStats(**row["page"])
        return cls(**row)


def read_cache(path: Path) -> dict[str, CandidatePage]:
    """The cached pages by file id (none when the file does not exist)."""
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8") as lines:
        pages = (CandidatePage.from_json(line) for line in lines if line.strip())
        return {page.file_id: page for page in pages}


def collect_candidates(
    records: Iterable[WcxbRecord],
    extract: dict[str, Callable[[str, str, str], str | None]],
    split: DomainSplit,
    settings: SettingsLike,
    cache: Path,
    limit: int = 0,
    progress: Callable[[list[WcxbRecord]], Iterable[WcxbRecord]] = iter,
) -> dict[str, CandidatePage]:
    """Run every candidate on the pages not yet in ``cache`` (at most ``limit`` new ones
    when set), appending a line per page (``progress`` wraps the pages to run, e.g. in
    a progress bar); returns the whole cache. ``extract[name](html,
    url, page_type)`` is candidate ``name``'s text. A page whose cached candidates differ
    from ``extract`` is run again."""
    cached = {fid: p for fid, p in read_cache(cache).items() if set(p.texts) == set(extract)}
    mapping = page_type_mapping(settings)
    todo = [r for r in records if r.file_id not in cached and r.gold_text.strip()]
    if limit:
        todo = todo[:limit]
    cache.parent.mkdir(parents=True, exist_ok=True)
    with cache.open("a", encoding="utf-8") as out:
        for record in progress(todo):
            page = _run_candidates(record, extract, split, extraction_page_type(mapping, record.page_type))
            out.write(page.to_json() + "\n")
            out.flush()
            cached[page.file_id] = page
    return cached


def _run_candidates(
    record: WcxbRecord,
    extract: dict[str, Callable[[str, str, str], str | None]],
    split: DomainSplit,
    page_type: str,
) -> CandidatePage:
    from pipelines.extraction import decode_html
    from pipelines.extraction.dom import parse_html

    html = decode_html(read_local_artifact(record.html_path))
    texts, ms = {}, {}
    for name, run in extract.items():
        begin = time.perf_counter()
        texts[name] = run(html, record.url, page_type)
        ms[name] = (time.perf_counter() - begin) * 1000
    return CandidatePage(
        file_id=record.file_id,
        domain=record.domain,
        role=split.role(record.domain),
        fold=split.fold(record.domain),
        wcxb_type=record.known_page_type,
        page_type=page_type,
        page=page_stats(parse_html(html)),
        texts=texts,
        ms=ms,
    )


@dataclass
class QualityRows:
    """Feature rows (one per candidate per page), their target word F1, and which page
    and candidate each row is."""

    features: np.ndarray
    targets: np.ndarray
    file_ids: list[str]
    candidates: list[str]


def quality_rows(pages: Iterable[CandidatePage], candidates: list[str], gold: dict[str, str]) -> QualityRows:
    """Rows of ``candidates`` (a subset of each page's cached ones) on ``pages``; the
    target is the candidate's word F1 against ``gold[file_id]``."""
    features: list[list[float]] = []
    targets: list[float] = []
    file_ids: list[str] = []
    names: list[str] = []
    for page in pages:
        texts = [page.texts[name] for name in candidates]
        features += candidate_features(texts, candidates, page.page, page.page_type)
        gold_words = tokens(gold[page.file_id])
        targets += [word_prf(tokens(text), gold_words).f1 for text in texts]
        file_ids += [page.file_id] * len(candidates)
        names += candidates
    return QualityRows(np.asarray(features, dtype=np.float64), np.asarray(targets), file_ids, names)


def pages_of(pages: dict[str, CandidatePage], roles: Iterable[str]) -> Iterator[CandidatePage]:
    """The cached pages whose domain has one of ``roles``, in file order."""
    wanted = set(roles)
    return (page for _, page in sorted(pages.items()) if page.role in wanted)
