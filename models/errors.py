"""Errors of the model layer that callers must catch without importing torch."""

from __future__ import annotations


class CheckpointError(RuntimeError):
    """A checkpoint that is missing, unreadable, malformed or does not fit its model."""
