"""Screenshot datasets: the manifest format and site-disjoint splits.

A dataset is a folder holding ``manifest.jsonl``, one JSON object per screenshot::

    {"image": "png/0001.png", "label": "listing", "site": "example.com",
     "url": "https://example.com/news/", "source": "wcxb-dev"}

``image`` is relative to the folder; ``label`` is a dataset label that a
:class:`~models.labels.LabelMapping` maps to a class; ``site`` is the domain the page
belongs to (compared case-insensitively, a leading ``www.`` ignored); ``url`` and
``source`` are kept for reports. Optional: ``boxes`` (the visit's element boxes JSON,
relative to the folder), ``html`` (its rendered HTML) and ``role`` (train, validation or
heldout, for pages outside WCXB dev's split, such as generated sites split by theme).

Pages are split into train/validation/test by site, never by page, so that no site is
seen both in training and in evaluation.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST_NAME = "manifest.jsonl"
SPLITS = ("train", "val", "test")
DEFAULT_FRACTIONS = (0.7, 0.15, 0.15)


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


def site_key(site: str) -> str:
    """The form sites are compared and split by: lower case, no leading ``www.``."""
    return site.strip().lower().removeprefix("www.")


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
        site=site_key(entry["site"]),
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


def split_by_site(
    sites: Sequence[str],
    classes: Sequence[int],
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    seed: int = 0,
) -> dict[str, list[int]]:
    """Split page indices into train/val/test so that each site lands in one split.

    Sites are grouped by their majority class (ties go to the rarer class) and each group
    is dealt out on its own, so every split gets every class whenever that class spans
    at least three sites. Within a group, sites go largest first (ties shuffled by
    ``seed``) to the split furthest below its share of the group's pages; the last
    sites go to splits that have none yet. The same inputs and seed give the same split.
    """
    if len(sites) != len(classes):
        raise ValueError(f"{len(sites)} sites but {len(classes)} classes")
    if len(fractions) != len(SPLITS) or any(f < 0 for f in fractions) or sum(fractions) <= 0:
        raise ValueError(f"fractions must be {len(SPLITS)} non-negative numbers, got {fractions}")
    pages_of: dict[str, list[int]] = defaultdict(list)
    for index, site in enumerate(sites):
        pages_of[site].append(index)
    class_totals = Counter(classes)
    groups: dict[int, list[str]] = defaultdict(list)
    for site, pages in pages_of.items():
        counts = Counter(classes[i] for i in pages)
        groups[max(counts, key=lambda c: (counts[c], -class_totals[c], -c))].append(site)

    rng = random.Random(seed)
    shares = [f / sum(fractions) for f in fractions]
    split: dict[str, list[int]] = {name: [] for name in SPLITS}
    for group in sorted(groups):
        group_sites = sorted(groups[group])
        rng.shuffle(group_sites)
        group_sites.sort(key=lambda s: len(pages_of[s]), reverse=True)
        total = sum(len(pages_of[s]) for s in group_sites)
        assigned = [0] * len(SPLITS)
        empty = [k for k, share in enumerate(shares) if share > 0]
        for position, site in enumerate(group_sites):
            remaining = len(group_sites) - position
            candidates = empty if empty and remaining <= len(empty) else range(len(SPLITS))
            target = max(candidates, key=lambda k: (shares[k] * total - assigned[k], shares[k]))
            assigned[target] += len(pages_of[site])
            if target in empty:
                empty.remove(target)
            split[SPLITS[target]].extend(pages_of[site])
    return {name: sorted(indices) for name, indices in split.items()}


def summarize(records: Sequence[ManifestRecord], classes: Sequence[str]) -> dict[str, Any]:
    """Counts of pages, sites, classes and sources, for reports and model cards."""
    return {
        "pages": len(records),
        "sites": len({record.site for record in records}),
        "classes": dict(sorted(Counter(classes).items())),
        "sources": dict(sorted(Counter(record.source for record in records).items())),
    }
