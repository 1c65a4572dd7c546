"""Provenance: PageSight's version (the one in ``pyproject.toml``; the project is run
from its tree, not installed) and checkpoints' short hashes."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"

with PYPROJECT.open("rb") as _file:
    PAGESIGHT_VERSION: str = tomllib.load(_file)["project"]["version"]


def short_hash(path: str | Path) -> str:
    """The first 12 hex digits of a file's SHA-256: a checkpoint's name in provenance."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as file:
        for chunk in iter(lambda: file.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()[:12]
