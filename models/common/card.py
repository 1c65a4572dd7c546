"""The one model-card schema, written beside every checkpoint as ``NAME.card.json``.

Every card holds: ``model`` (what the network is), ``family`` (its package under
``models/``), ``command`` (what trained it), ``date`` (when, UTC), ``data`` and ``split``
(what it learnt from and how pages were divided), ``metrics``, ``versions`` (the feature
and denoiser versions it was trained with, :mod:`models.common.versions`, the code's commit
and the libraries') and ``checkpoint`` (file, bytes, SHA-256, format and version). A
family adds its own sections (``extra``) after those.
"""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from models.common.checkpoint import content_hash

#: The fields every card has, in their order.
CARD_FIELDS = ("model", "family", "command", "date", "data", "split", "metrics", "versions", "checkpoint")


def card_path(checkpoint: str | Path) -> Path:
    """Where a checkpoint's card lives: ``NAME.card.json`` beside ``NAME.pt``/``NAME.npz``."""
    checkpoint = Path(checkpoint)
    return checkpoint.with_name(checkpoint.stem + ".card.json")


def code_version() -> str:
    """The commit of the working tree the code runs from (``+dirty`` with uncommitted
    changes), or ``unknown`` outside a git checkout (an installed wheel)."""
    here = Path(__file__).parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=here,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def checkpoint_facts(checkpoint: Path, format_name: str, format_version: int) -> dict[str, Any]:
    """The card's ``checkpoint`` section: the file's name, size, hash and format."""
    return {
        "file": checkpoint.name,
        "bytes": checkpoint.stat().st_size,
        "sha256": content_hash(checkpoint),
        "format": format_name,
        "format_version": format_version,
    }


def write_card(
    checkpoint: str | Path,
    *,
    model: str,
    family: str,
    command: str,
    data: Any,
    split: Any,
    metrics: dict[str, Any],
    versions: dict[str, Any],
    format_name: str,
    format_version: int,
    extra: dict[str, Any] | None = None,
    date: str | None = None,
) -> Path:
    """Write the card of ``checkpoint`` (after the checkpoint: the card hashes it);
    ``versions`` must name the ``features`` and ``denoiser`` versions (None where the
    model reads neither); ``date`` defaults to now."""
    missing = {"features", "denoiser"} - set(versions)
    if missing:
        raise ValueError(f"a card's versions must name {', '.join(sorted(missing))}")
    checkpoint = Path(checkpoint)
    card = {
        "model": model,
        "family": family,
        "command": command,
        "date": date or datetime.now(UTC).isoformat(timespec="seconds"),
        "data": data,
        "split": split,
        "metrics": metrics,
        "versions": {"code": code_version(), **versions},
        "checkpoint": checkpoint_facts(checkpoint, format_name, format_version),
        **(extra or {}),
    }
    path = card_path(checkpoint)
    path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def read_card(checkpoint: str | Path) -> dict[str, Any]:
    """The card of ``checkpoint`` as plain data."""
    card: dict[str, Any] = json.loads(card_path(checkpoint).read_text(encoding="utf-8"))
    return card
