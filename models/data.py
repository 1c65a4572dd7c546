"""Screenshot datasets: the manifest format and each page's role in the one split.

A dataset is a folder holding ``manifest.jsonl``, one JSON object per screenshot::

    {"image": "png/0001.png", "label": "listing", "site": "example.com",
     "url": "https://example.com/news/", "source": "wcxb-dev"}

``image`` is relative to the folder; ``label`` is a dataset label that a
:class:`~models.labels.LabelMapping` maps to a class; ``site`` is the domain the page
belongs to (compared as ``pipelines.urls.normalize_site`` writes it); ``url`` and
``source`` are kept for reports. Optional: ``boxes`` (the visit's element boxes JSON,
relative to the folder), ``html`` (its rendered HTML) and ``role`` (train, validation or
heldout, for pages outside WCXB dev's split, such as generated sites split by theme).

A page's role (train, validation or heldout) is its site's in the one domain-disjoint
split (``models/splits.py``), or the manifest's ``role``; pages with neither are left out.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.splits import ROLES, UnknownDomain, load_split
from pipelines.urls import normalize_site

MANIFEST_NAME = "manifest.jsonl"


class ManifestError(ValueError):
    """A dataset folder or manifest line that cannot be used."""


@dataclass(frozen=True)
class ManifestRecord:
    """One labelled screenshot."""

    image: Path
    label: str
    site: str
    url: str = ""
    source: str = ""
    #: The element boxes of the same visit (``boxes`` in the manifest), when captured.
    boxes: Path | None = None
    #: The rendered HTML of the same visit (``html`` in the manifest, gzip or plain).
    html: Path | None = None
    #: Split role (train/validation/heldout) for pages outside WCXB dev's split, e.g.
    #: generated sites split by theme; None: the role of the site in the one split.
    role: str | None = None


def read_manifest(directory: str | Path) -> list[ManifestRecord]:
    """Read ``DIR/manifest.jsonl``; image paths come back absolute and checked to exist."""
    directory = Path(directory).resolve()
    manifest = directory / MANIFEST_NAME if directory.is_dir() else directory
    if not manifest.is_file():
        raise ManifestError(f"no dataset manifest at {manifest}")
    root = manifest.parent
    records = []
    with manifest.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if line.strip():
                records.append(_parse_line(line, root, f"{manifest}:{number}"))
    if not records:
        raise ManifestError(f"{manifest} lists no screenshots")
    return records


def _parse_line(line: str, root: Path, where: str) -> ManifestRecord:
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ManifestError(f"{where}: not JSON: {exc}") from exc
    if not isinstance(entry, dict):
        raise ManifestError(f"{where}: expected a JSON object")
    missing = [
        key for key in ("image", "label", "site") if not isinstance(entry.get(key), str) or not entry[key]
    ]
    if missing:
        raise ManifestError(f"{where}: missing or empty {', '.join(missing)}")
    image = (root / entry["image"]).resolve()
    if not image.is_file():
        raise ManifestError(f"{where}: image not found: {image}")
    boxes, html = ((root / entry[name]).resolve() if entry.get(name) else None for name in ("boxes", "html"))
    for name, path in (("boxes", boxes), ("html", html)):
        if path is not None and not path.is_file():
            raise ManifestError(f"{where}: {name} not found: {path}")
    return ManifestRecord(
        image=image,
        label=entry["label"],
        site=normalize_site(entry["site"]),
        url=str(entry.get("url") or ""),
        source=str(entry.get("source") or ""),
        boxes=boxes,
        html=html,
        role=entry.get("role") or None,
    )


def read_manifests(directories: Iterable[str | Path]) -> list[ManifestRecord]:
    """Read and concatenate several dataset folders."""
    records: list[ManifestRecord] = []
    for directory in directories:
        records.extend(read_manifest(directory))
    if not records:
        raise ManifestError("no dataset folders given")
    return records


def record_roles(records: Sequence[ManifestRecord]) -> list[str | None]:
    """Each record's split role (None: unknown site without a role of its own)."""
    split = load_split()
    roles: list[str | None] = []
    for record in records:
        if record.role is not None:
            if record.role not in ROLES:
                raise ManifestError(f"{record.image}: role must be one of {ROLES}, got {record.role!r}")
            roles.append(record.role)
            continue
        try:
            roles.append(split.role(record.site))
        except UnknownDomain:
            roles.append(None)
    return roles


def summarize(records: Sequence[ManifestRecord], classes: Sequence[str]) -> dict[str, Any]:
    """Counts of pages, sites, classes and sources, for reports and model cards."""
    return {
        "pages": len(records),
        "sites": len({record.site for record in records}),
        "classes": dict(sorted(Counter(classes).items())),
        "sources": dict(sorted(Counter(record.source for record in records).items())),
    }
