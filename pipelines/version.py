"""PageSight's version: the one in ``pyproject.toml`` (the project is run from its tree,
not installed)."""

from __future__ import annotations

import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"

with PYPROJECT.open("rb") as _file:
    PAGESIGHT_VERSION: str = tomllib.load(_file)["project"]["version"]
