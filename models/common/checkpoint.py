"""The one checkpoint format of every model family: a header, the weights, atomic writes.

A checkpoint says what it is in two header fields: ``format`` (``pagesight-<family>``)
and ``format_version`` (an integer, bumped when the layout changes; a reader names the
versions it still reads). A torch checkpoint (``.pt``) is one ``torch.save`` dict of plain
data and tensors, so it loads with ``torch.load(weights_only=True)`` (no pickled code
runs); a numpy one (``.npz``, tree ensembles that predict with numpy alone) holds arrays
and a JSON ``meta`` string carrying the same header. Its model card (:mod:`models.common.card`)
records the file's SHA-256 (:func:`content_hash`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any

import numpy as np


class CheckpointError(ValueError):
    """A checkpoint that is missing, unreadable, malformed or does not fit its model;
    the message (one line) names the file and what to do."""


def why_unreadable(path: Path, error: BaseException) -> str:
    """Why a checkpoint file could not be read, in words that are safe to act on.

    torch's and numpy's own messages advise loading with ``weights_only=False`` or
    ``allow_pickle=True``, which runs whatever code the file holds: a file that needs that
    is not one PageSight wrote, and is never to be loaded so."""
    message = str(error)
    if path.is_file() and path.stat().st_size == 0:
        return "the file is empty"
    if "Unsupported global" in message or "can still be loaded" in message or "pickled data" in message:
        return (
            "it holds Python objects besides tensors and plain data, which PageSight never "
            "loads (it is not a checkpoint PageSight wrote)"
        )
    return f"it is truncated or not a checkpoint ({type(error).__name__})"


def content_hash(path: str | Path) -> str:
    """The SHA-256 of a checkpoint file's bytes (hex), as its card records it."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def header(format_name: str, format_version: int) -> dict[str, Any]:
    """The two fields every checkpoint starts with."""
    return {"format": format_name, "format_version": format_version}


def save_torch_checkpoint(path: str | Path, payload: dict[str, Any]) -> Path:
    """Write ``payload`` (a :func:`header` and plain data and tensors) atomically: a
    reader never sees a half-written file."""
    import torch

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    torch.save(payload, partial)
    os.replace(partial, path)
    return path


def read_torch_checkpoint(
    path: str | Path, format_name: str, versions: Collection[int], what: str, retrain: str
) -> dict[str, Any]:
    """The payload of a torch checkpoint of ``format_name`` in one of ``versions``;
    CheckpointError naming the file and ``retrain`` (what to do) when it is missing,
    unreadable or of another format or version. ``what`` names the model ("BoilerNet")."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{what} checkpoint not found: {path}; {retrain}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch.load fails with many types on a corrupt file
        raise CheckpointError(
            f"{what} checkpoint {path} is unreadable: {why_unreadable(path, exc)}; {retrain}"
        ) from None
    check_header(path, payload if isinstance(payload, dict) else {}, format_name, versions, what, retrain)
    result: dict[str, Any] = payload
    return result


def check_header(
    path: Path, meta: dict[str, Any], format_name: str, versions: Collection[int], what: str, retrain: str
) -> None:
    """CheckpointError unless ``meta`` is the header of ``format_name`` in one of ``versions``."""
    if meta.get("format") != format_name:
        raise CheckpointError(
            f"{path} is not a {what} checkpoint (format {meta.get('format')!r}, expected "
            f"{format_name!r}); {retrain}"
        )
    if meta.get("format_version") not in versions:
        raise CheckpointError(
            f"{path} has format_version {meta.get('format_version')!r}; this code reads "
            f"{', '.join(map(str, sorted(versions)))}; {retrain}"
        )


def write_npz_checkpoint(path: str | Path, meta: dict[str, Any], arrays: dict[str, Any]) -> Path:
    """Save ``arrays`` and the JSON ``meta`` (its header included) as one compressed
    ``.npz`` (no pickle), atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as out:
        np.savez_compressed(out, meta=np.array(json.dumps(meta, ensure_ascii=False)), **arrays)
    os.replace(partial, path)
    return path


def read_npz_checkpoint(
    path: Path,
    format_name: str,
    what: str,
    retrain: str,
    error: type[Exception],
    array_names: Callable[[dict[str, Any]], Iterable[str]],
    versions: Collection[int] | None = None,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The JSON ``meta`` of an ``.npz`` checkpoint of ``format_name`` and the arrays
    ``array_names(meta)`` names; ``error`` (one line naming the file and ``retrain``) when
    it is missing, unreadable or of another format (or, given ``versions``, of another
    ``format_version``). ``what`` names the model ("an element classifier")."""
    if not path.is_file():
        raise error(f"{what.split(maxsplit=1)[1]} checkpoint {path} not found; {retrain}")
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"])) if "meta" in data else {}
            if meta.get("format") != format_name:
                raise error(
                    f"{path} is not {what} checkpoint (format {meta.get('format')!r}, "
                    f"expected {format_name!r}); {retrain}"
                )
            if versions is not None and meta.get("format_version") not in versions:
                raise error(
                    f"{path} has format_version {meta.get('format_version')!r}; this code reads "
                    f"{', '.join(map(str, sorted(versions)))}; {retrain}"
                )
            return meta, {name: data[name] for name in array_names(meta)}
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
        if isinstance(exc, error):
            raise
        raise error(
            f"{what.split(maxsplit=1)[1]} checkpoint {path} is unreadable: {why_unreadable(path, exc)}; {retrain}"
        ) from None
