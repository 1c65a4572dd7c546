"""Provenance: PageSight's version and checkpoints' short hashes."""

from __future__ import annotations

import hashlib
from pathlib import Path

#: PageSight's version: the one place it is written (pyproject.toml reads it from here, so
#: that a built egg or wheel knows it too).
PAGESIGHT_VERSION = "0.2.0"


def short_hash(path: str | Path) -> str:
    """The first 12 hex digits of a file's SHA-256: a checkpoint's name in provenance."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()[:12]
