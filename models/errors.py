"""Errors of the model layer that callers must catch without importing torch."""

from __future__ import annotations

from pathlib import Path


class CheckpointError(RuntimeError):
    """A checkpoint that is missing, unreadable, malformed or does not fit its model."""


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
