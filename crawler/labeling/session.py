"""A labeling session's state, apart from HTTP: the captured pages, a person's marks (the
gold JSONL), train and predict.

Every mark is written at once: the gold JSONL is rewritten atomically (a temporary file
renamed over it), one line per marked page, so it stays a valid gold file whatever
happens to the browser or the server. Page types marked before the main element, and
skipped pages, live in a small state file beside it (``LABELS.jsonl.state.json``).
Reopening the same ``--out`` resumes at the first page neither marked nor skipped.

Only what a person set is gold: a line's ``page_type`` is the type a person gave the
page, and a page nobody typed has none (the capture's predicted type would otherwise be
scored and trained on as if a person had checked it). The capture's type is shown in the
app as ``predicted_page_type`` and never written to the gold file.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from models.common.checkpoint import CheckpointError
from models.element.data import CapturedPage, collect_rows, labeled_pages, read_marks
from models.element.model import TreeEnsemble
from models.element.train import TrainConfig, train_element_classifier
from pipelines.evaluation.gold import GoldSet
from pipelines.extraction.element_classifier import KNOWN_FEATURES, ElementClassifierExtractor, element_text
from pipelines.extraction.page import PAGE_TYPES, Page
from pipelines.urls import url_key

logger = logging.getLogger(__name__)

#: The labeling tool trains quickly on few pages: the shipped setting, few negatives.
TRAIN_SETTING = "shipped"
TRAIN_NEGATIVES = 50


class LabelError(ValueError):
    """A request the session cannot carry out; the message says why."""


class LabelSession:
    """Pages to label (in URL order), their marks, and the model the session trains."""

    def __init__(
        self,
        pages: list[CapturedPage],
        labels: Path,
        model: Path,
        fallback_model: Path,
        viewport_height: int,
        gold: GoldSet | None = None,
    ):
        if not pages:
            raise LabelError("no captured page to label")
        self.pages = sorted(pages, key=lambda page: page.url)
        self.labels = labels
        self.state_path = labels.with_name(labels.name + ".state.json")
        self.model_path = model
        self.fallback_model = fallback_model
        self.viewport_height = viewport_height
        self.gold = gold
        self.lock = threading.Lock()
        self.marks = read_marks(labels)
        if self.state_path.is_file():
            state = json.loads(self.state_path.read_text(encoding="utf-8"))
            self.types: dict[str, str] = state.get("types", {})
            self.skipped: set[str] = set(state.get("skipped", []))
            self._drop_unset_types()
        else:  # gold written elsewhere: its page types are a person's
            self.types = {key: mark["page_type"] for key, mark in self.marks.items() if mark.get("page_type")}
            self.skipped = set()

    def _drop_unset_types(self) -> None:
        """Make the marks' page types the ones a person set (the state file's).

        Earlier versions wrote the capture's predicted type into every mark; the gold file
        is rewritten without them at once, before anything reads it as gold."""
        dropped = 0
        for key, mark in self.marks.items():
            person = self.types.get(key)
            if mark.get("page_type") == person:
                continue
            if person is None:
                del mark["page_type"]
                dropped += 1
            else:
                mark["page_type"] = person
        if dropped:
            logger.warning(
                "%s: %d marks carried a page type nobody set (a prediction); rewritten without them",
                self.labels,
                dropped,
            )
            self._write()

    def page(self, index: int) -> CapturedPage:
        if not 0 <= index < len(self.pages):
            raise LabelError(f"no page {index} (there are {len(self.pages)})")
        return self.pages[index]

    def overview(self) -> dict[str, Any]:
        """Every page with a person's labels (``page_type`` only when a person set it), the
        capture's predicted type apart from them, and where to resume."""
        rows = []
        for index, page in enumerate(self.pages):
            key = url_key(page.url)
            mark = self.marks.get(key, {})
            rows.append(
                {
                    "index": index,
                    "url": page.url,
                    "page_type": self.types.get(key),
                    "predicted_page_type": page.page_type,
                    "path": mark.get("path"),
                    "chars": len(mark["text"]) if mark.get("text") is not None else None,
                    "skipped": key in self.skipped,
                }
            )
        start = next((r["index"] for r in rows if not r["path"] and not r["skipped"]), 0)
        return {"pages": rows, "start": start, "labels": str(self.labels)}

    def mark_main(self, index: int, path: str) -> dict[str, Any]:
        """Mark the element at ``path`` as the page's main content; returns the gold line."""
        page = self.page(index)
        html, boxes = page.read()
        text = element_text(html, boxes, path, page.url)
        if text is None:
            raise LabelError(f"{path} names no element of the stored page {page.url}")
        key = url_key(page.url)
        with self.lock:
            entry: dict[str, Any] = {"url": page.url, "text": text, "path": path}
            if key in self.types:
                entry["page_type"] = self.types[key]
            self.marks[key] = entry
            self.skipped.discard(key)
            self._write()
        return entry

    def mark_type(self, index: int, page_type: str) -> None:
        if page_type not in PAGE_TYPES:
            raise LabelError(f"page type must be one of {', '.join(PAGE_TYPES)}, got {page_type!r}")
        key = url_key(self.page(index).url)
        with self.lock:
            self.types[key] = page_type
            if key in self.marks:
                self.marks[key]["page_type"] = page_type
            self._write()

    def skip(self, index: int) -> None:
        with self.lock:
            self.skipped.add(url_key(self.page(index).url))
            self._write()

    def clear(self, index: int) -> None:
        """Undo everything a person set on a page: its mark leaves the gold file, its type
        and its skip the state file (both rewritten atomically)."""
        key = url_key(self.page(index).url)
        with self.lock:
            self.marks.pop(key, None)
            self.types.pop(key, None)
            self.skipped.discard(key)
            self._write()

    def train(self) -> dict[str, Any]:
        """Train on the marks (and the auto-annotation of gold pages nobody marked) and
        save the session's model."""
        with self.lock:
            marks = dict(self.marks)
        pages = labeled_pages(self.pages, marks, self.gold)
        features = list(KNOWN_FEATURES)
        rows = collect_rows(pages, features, self.viewport_height)
        if not rows:
            raise LabelError("nothing to train on: mark the main content of some pages first")
        config = TrainConfig.from_setting(TRAIN_SETTING, features, TRAIN_NEGATIVES, 0, self.viewport_height)
        result = train_element_classifier(rows, config, meta={"args": {"labels": str(self.labels)}})
        result.model.save(self.model_path)
        people = sum(1 for r in rows if r.page.source == "person")
        return {
            "pages": len(rows),
            "marked": people,
            "auto": len(rows) - people,
            "model": str(self.model_path),
        }

    def predict(self, index: int) -> dict[str, Any]:
        """The element the current model picks on a page, with its probability."""
        page = self.page(index)
        checkpoint = self.model_path if self.model_path.is_file() else self.fallback_model
        try:
            model = TreeEnsemble.load(checkpoint, KNOWN_FEATURES)
        except CheckpointError as error:
            raise LabelError(str(error)) from None
        extractor = ElementClassifierExtractor(ElementClassifierExtractor.Options(checkpoint), model)
        html, boxes = page.read()
        choice = extractor.choose(Page(html, page.url, boxes=boxes))
        if choice is None:
            raise LabelError(f"no element to choose on {page.url} (no body or no text)")
        return {"path": choice.path, "probability": round(choice.probability, 4), "model": str(checkpoint)}

    def _write(self) -> None:
        order = {url_key(page.url): i for i, page in enumerate(self.pages)}
        entries = sorted(self.marks.values(), key=lambda e: order.get(url_key(e["url"]), len(order)))
        _replace(self.labels, "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries))
        state = {"types": self.types, "skipped": sorted(self.skipped)}
        _replace(self.state_path, json.dumps(state, ensure_ascii=False, indent=1) + "\n")


def _replace(path: Path, text: str) -> None:
    """Write ``path`` whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with temporary.open("w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
