"""Denoising: remove what is never main content before an extraction algorithm runs.

:func:`denoise` walks :data:`~.steps.STEPS`, the named removal steps in their order, each on
the page types it lists; ``docs/denoise-steps.md`` is their catalogue, written from that
list. The steps are grouped by family, one module each (:mod:`.hidden`, :mod:`.widgets`,
:mod:`.boilerplate`, :mod:`.copies`, :mod:`.discussion`, :mod:`.teasers`, :mod:`.labels`,
:mod:`.empty`); the words, tags and patterns they read are in :mod:`.vocabulary`, one
:class:`~.vocabulary.NoiseTable` per page type.

Comments and processing instructions are already gone: :func:`dom.parse_html` drops them.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from pipelines.extraction.denoise.boilerplate import is_reader_feedback
from pipelines.extraction.denoise.hidden import trusted_hidden, unwrap_script_fallback
from pipelines.extraction.denoise.labels import is_control_label
from pipelines.extraction.denoise.steps import STEPS, Step, denoise
from pipelines.extraction.denoise.vocabulary import NOISE_TABLES, NoiseTable

__all__ = [
    "NOISE_TABLES",
    "STEPS",
    "NoiseTable",
    "Step",
    "denoise",
    "denoiser_fingerprint",
    "is_control_label",
    "is_reader_feedback",
    "trusted_hidden",
    "unwrap_script_fallback",
]


@lru_cache(maxsize=1)
def denoiser_fingerprint() -> str:
    """A short hash of this package's source (its modules in name order). Caches of what the
    denoiser computed (training rows, BoilerNet's prepared pages) record it, so that one
    built by other rules is not reused."""
    digest = hashlib.sha256()
    for module in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(module.read_bytes())
    return digest.hexdigest()[:16]
