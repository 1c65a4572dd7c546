"""One reader of WCXB-style folders (``ground-truth/*.json``, ``html/*.html.gz``,
``metadata.json``): every command, trainer and benchmark takes its pages from here.

A page's type is its ground-truth file's ``_internal.page_type.primary`` (``metadata.json``
misses some files); its domain is ``metadata.json``'s, else the host of its URL, normalized
(``pipelines.urls.normalize_site``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pipelines.urls import normalize_site

WCXB_TYPES = ("article", "forum", "product", "collection", "listing", "documentation", "service")


class WcxbFormatError(ValueError):
    """A WCXB folder or one of its files is not in the published layout."""


@dataclass(frozen=True)
class WcxbRecord:
    """One WCXB page: its ids, where it came from, its type and its gold fields."""

    file_id: str
    url: str
    domain: str
    page_type: str | None  # None only when read with require_page_type=False
    ground_truth: dict[str, Any]
    html_path: Path
    source: Path

    @property
    def gold_text(self) -> str:
        return self.ground_truth.get("main_content") or ""

    @property
    def gold_text_with_comments(self) -> str:
        """The main text, then the readers' comments where the gold keeps them apart
        (Dragnet's ``comments``): what an extraction with ``include_comments`` is scored on."""
        return "\n\n".join(part for part in (self.gold_text, self.ground_truth.get("comments") or "") if part)

    @property
    def known_page_type(self) -> str:
        """The page type, for records read with ``require_page_type`` (the default)."""
        if self.page_type is None:
            raise WcxbFormatError(f"{self.source}: no page type")
        return self.page_type

    @property
    def has_html(self) -> bool:
        return self.html_path.is_file()


def read_wcxb(root: str | Path, *, require_page_type: bool = True) -> list[WcxbRecord]:
    """Every ground-truth file of a WCXB folder, in file order. A file without a known
    page type is an error unless ``require_page_type`` is off (WCXB-style gold folders
    made by hand: their type is None)."""
    root = Path(root)
    truth_dir = root / "ground-truth"
    if not truth_dir.is_dir():
        raise WcxbFormatError(f"{root}: not a WCXB folder (no ground-truth/)")
    metadata = _metadata_files(root / "metadata.json")
    records = []
    for path in sorted(truth_dir.glob("*.json")):
        entry = _read_json(path)
        truth = entry.get("ground_truth") if isinstance(entry, dict) else None
        if not isinstance(truth, dict):
            raise WcxbFormatError(f'{path}: expected an object with a "ground_truth" object')
        file_id = str(entry.get("file_id") or path.stem)
        known = metadata.get(file_id, {})
        url = entry.get("url") or truth.get("url") or ""
        page_type = (entry.get("_internal") or {}).get("page_type", {}).get("primary") or known.get(
            "page_type"
        )
        if page_type not in WCXB_TYPES and (require_page_type or page_type is not None):
            raise WcxbFormatError(f"{path}: unknown page type {page_type!r}")
        domain = normalize_site(known.get("domain") or urlsplit(url).hostname or f"wcxb-{file_id}")
        records.append(
            WcxbRecord(
                file_id=file_id,
                url=url,
                domain=domain,
                page_type=page_type,
                ground_truth=truth,
                html_path=root / "html" / f"{file_id}.html.gz",
                source=path,
            )
        )
    if not records:
        raise WcxbFormatError(f"{truth_dir}: no *.json gold files")
    return records


def _metadata_files(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {}
    files = _read_json(path).get("files")
    if not isinstance(files, dict):
        raise WcxbFormatError(f'{path}: expected an object with a "files" object')
    return files


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise WcxbFormatError(f"{path} line {exc.lineno}: not valid JSON: {exc.msg}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise WcxbFormatError(f"{path}: {exc}") from exc


#: A folder's own split: ``splits.json`` beside ``metadata.json``, file ids by role
#: (Dragnet's domain-disjoint train / validation / heldout). WCXB dev has none: its pages
#: are split by domain (``models/common/splits.py``).
OWN_SPLIT_FILE = "splits.json"


def own_split(root: Path) -> dict[str, str] | None:
    """Each file id's role by the folder's own ``splits.json``, or None when it has none.
    Keys that are not lists of ids (a ``method`` note) are ignored."""
    path = Path(root) / OWN_SPLIT_FILE
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return {file_id: role for role, ids in data.items() if isinstance(ids, list) for file_id in ids}
