"""Gold readers: our gold JSONL, a WCXB-style folder, a ScrapingHub-style
``ground-truth.json``. Each yields a :class:`GoldSet` whose pages are matched to feed
lines by :func:`~pipelines.urls.url_key`.

Our JSONL is strict (it is ours to fix): a line that does not parse, lacks ``url``, or
repeats another line's URL stops the run with the file and line number. The third-party
formats are read as published: a WCXB file without a URL, or with the URL of an earlier
file, cannot be matched; it is kept in :attr:`GoldSet.skipped` with the reason, and the
report lists it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipelines.evaluation.wcxb import WcxbFormatError, read_wcxb
from pipelines.urls import url_key

logger = logging.getLogger(__name__)

FORMAT_JSONL = "jsonl"
FORMAT_WCXB = "wcxb"
FORMAT_SCRAPINGHUB = "scrapinghub"


class GoldFormatError(ValueError):
    """Gold that cannot be read; the message names the file (and line)."""


@dataclass
class GoldPage:
    """One hand-extracted page."""

    url: str
    text: str
    source: str
    site: str | None = None
    page_type: str | None = None
    title: str | None = None
    items: list[dict[str, Any]] | None = None
    with_snippets: list[str] = field(default_factory=list)
    without_snippets: list[str] = field(default_factory=list)
    author: str | None = None
    published: str | None = None
    language: str | None = None

    @property
    def key(self) -> str:
        return url_key(self.url)


@dataclass
class SkippedGold:
    """A gold entry that cannot be matched to any feed line, and why."""

    source: str
    reason: str


@dataclass
class GoldSet:
    """Gold pages indexed by URL key."""

    path: str
    format: str
    pages: list[GoldPage]
    skipped: list[SkippedGold] = field(default_factory=list)
    _by_key: dict[str, GoldPage] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._by_key = {}
        for page in self.pages:
            first = self._by_key.setdefault(page.key, page)
            if first is not page:
                raise GoldFormatError(
                    f"{page.source}: URL {page.url!r} is already the gold of {first.source}"
                )

    def __len__(self) -> int:
        return len(self.pages)

    def get(self, url: str) -> GoldPage | None:
        """The gold page of ``url``, if any."""
        return self._by_key.get(url_key(url))

    def match(self, record: Mapping[str, Any]) -> GoldPage | None:
        """The gold page of a feed record: by its URL, else by its canonical URL."""
        for url in (record.get("url"), record.get("canonical_url")):
            if url and (page := self.get(url)) is not None:
                return page
        return None


def load_gold(path: str | Path) -> GoldSet:
    """Read gold in any supported format, detected from ``path``:

    a folder with ``ground-truth/`` → WCXB; ``*.jsonl``/``*.jl`` → our gold JSONL;
    a ``*.json`` file holding ``{id: {"url", "articleBody"}}`` → ScrapingHub.
    """
    path = Path(path)
    if path.is_dir():
        if (path / "ground-truth").is_dir():
            return read_wcxb_folder(path)
        raise GoldFormatError(
            f"{path}: unknown gold format: a gold folder must contain ground-truth/*.json (WCXB layout)"
        )
    if not path.is_file():
        raise GoldFormatError(f"{path}: no such gold file or folder")
    if path.suffix in (".jsonl", ".jl"):
        return read_gold_jsonl(path)
    if path.suffix == ".json":
        return read_scrapinghub_json(path)
    raise GoldFormatError(
        f"{path}: unknown gold format: expected a .jsonl file (our gold), a .json file "
        "(ScrapingHub ground-truth.json) or a WCXB folder"
    )


def read_gold_jsonl(path: str | Path) -> GoldSet:
    """Our gold JSONL: one object per line with ``url`` and ``text`` (or ``items``)."""
    path = Path(path)
    pages = []
    with path.open("rb") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{path} line {number}"
            try:
                entry = json.loads(line.decode("utf-8"))
            except UnicodeDecodeError:
                raise GoldFormatError(f"{where}: not UTF-8") from None
            except json.JSONDecodeError as exc:
                raise GoldFormatError(f"{where}: not valid JSON: {exc.msg}") from None
            pages.append(_page_from_jsonl(entry, where))
    return GoldSet(str(path), FORMAT_JSONL, pages)


def _page_from_jsonl(entry: Any, where: str) -> GoldPage:
    if not isinstance(entry, dict):
        raise GoldFormatError(f"{where}: expected a JSON object, got {type(entry).__name__}")
    url = entry.get("url")
    if not isinstance(url, str) or not url.strip():
        raise GoldFormatError(f'{where}: missing "url" (a non-empty string)')
    items = _optional_items(entry.get("items"), where)
    text = entry.get("text")
    if text is None and items is not None:
        text = items_text(items)
    if not isinstance(text, str):
        raise GoldFormatError(f'{where}: missing "text" (a string; or give "items")')
    return GoldPage(
        url=url,
        text=text,
        source=where,
        site=_optional_str(entry, "site", where),
        page_type=_optional_str(entry, "page_type", where),
        title=_optional_str(entry, "title", where),
        items=items,
        with_snippets=_snippets(entry.get("with"), "with", where),
        without_snippets=_snippets(entry.get("without"), "without", where),
        author=_optional_str(entry, "author", where),
        published=_optional_str(entry, "published", where),
        language=_optional_str(entry, "language", where),
    )


def read_wcxb_folder(path: str | Path) -> GoldSet:
    """A WCXB-style folder, read with :func:`~pipelines.evaluation.wcxb.read_wcxb`:
    ``ground-truth/*.json`` with ``url`` and ``ground_truth{title, main_content, with,
    without, ...}``; page types from ``_internal.page_type.primary`` (else
    ``metadata.json``), sites from the record's domain.
    """
    try:
        records = read_wcxb(path, require_page_type=False)
    except WcxbFormatError as error:
        raise GoldFormatError(str(error)) from None
    pages: list[GoldPage] = []
    skipped: list[SkippedGold] = []
    seen: dict[str, str] = {}
    for record in records:
        where, truth, url = str(record.source), record.ground_truth, record.url
        if not url.strip():
            skipped.append(SkippedGold(where, "no URL, cannot be matched"))
            continue
        if (first := seen.get(url_key(url))) is not None:
            skipped.append(SkippedGold(where, f"same URL as {first}, which is used"))
            continue
        seen[url_key(url)] = where
        pages.append(
            GoldPage(
                url=url,
                text=record.gold_text,
                source=where,
                site=record.domain,
                page_type=record.page_type,
                title=_none_if_placeholder(truth.get("title")),
                with_snippets=_snippets(truth.get("with"), "with", where),
                without_snippets=_snippets(truth.get("without"), "without", where),
                author=_none_if_placeholder(truth.get("author")),
                published=_none_if_placeholder(truth.get("publish_date")),
            )
        )
    for entry in skipped:
        logger.warning("Gold %s skipped: %s", entry.source, entry.reason)
    return GoldSet(str(Path(path)), FORMAT_WCXB, pages, skipped)


def read_scrapinghub_json(path: str | Path) -> GoldSet:
    """ScrapingHub article-extraction-benchmark ``ground-truth.json``:
    ``{id: {"url": ..., "articleBody": ...}}``."""
    path = Path(path)
    entries = _read_json_file(path)
    if not isinstance(entries, dict) or not all(isinstance(v, dict) for v in entries.values()):
        raise GoldFormatError(
            f"{path}: unknown gold format: a .json gold file must be ScrapingHub's "
            '{id: {"url": ..., "articleBody": ...}}'
        )
    pages = []
    for page_id, entry in entries.items():
        where = f"{path} id {page_id}"
        url, body = entry.get("url"), entry.get("articleBody")
        if not isinstance(url, str) or not url.strip():
            raise GoldFormatError(f'{where}: missing "url" (a non-empty string)')
        if not isinstance(body, str):
            raise GoldFormatError(f'{where}: missing "articleBody" (a string)')
        pages.append(GoldPage(url=url, text=body, source=where, title=entry.get("headline")))
    return GoldSet(str(path), FORMAT_SCRAPINGHUB, pages)


def _read_json_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise GoldFormatError(f"{path}: not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise GoldFormatError(f"{path} line {exc.lineno}: not valid JSON: {exc.msg}") from None


def items_text(items: list[dict[str, Any]]) -> str:
    """A list page's text: one paragraph per item, ``TITLE\\nTEXT`` (or just TITLE)."""
    paragraphs = []
    for item in items:
        lines = [str(item.get(key)).strip() for key in ("title", "text") if item.get(key)]
        if lines:
            paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def _optional_str(entry: dict[str, Any], name: str, where: str) -> str | None:
    value = entry.get(name)
    if value is not None and not isinstance(value, str):
        raise GoldFormatError(f'{where}: "{name}" must be a string')
    return value


def _optional_items(value: Any, where: str) -> list[dict[str, Any]] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise GoldFormatError(f'{where}: "items" must be a list of objects')
    return value


def _snippets(value: Any, name: str, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise GoldFormatError(f'{where}: "{name}" must be a list of strings')
    return value


def _none_if_placeholder(value: Any) -> str | None:
    """WCXB writes absent fields as the string ``"None"``."""
    return value if isinstance(value, str) and value and value != "None" else None
