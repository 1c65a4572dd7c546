"""Extractors by name: the seam later extractors (DOM PageRank, BoilerNet, ...) plug into."""

from __future__ import annotations

from typing import TypeVar

from pipelines.extraction.page import Extractor

E = TypeVar("E", bound=Extractor)

_EXTRACTORS: dict[str, Extractor] = {}


def register(extractor: E) -> E:
    """Make ``extractor`` available under ``extractor.name``; returns it unchanged.

    Registering a second, different extractor under a taken name is an error.
    """
    name = getattr(extractor, "name", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"an extractor needs a non-empty string `name`, got {name!r}")
    if not callable(getattr(extractor, "extract", None)):
        raise ValueError(f"extractor {name!r} has no extract(page) method")
    known = _EXTRACTORS.get(name)
    if known is not None and known is not extractor:
        raise ValueError(f"an extractor named {name!r} is already registered")
    _EXTRACTORS[name] = extractor
    return extractor


def get_extractor(name: str) -> Extractor:
    """The extractor registered as ``name``; ValueError naming the known ones otherwise."""
    try:
        return _EXTRACTORS[name]
    except KeyError:
        known = ", ".join(available_extractors()) or "none"
        raise ValueError(f"unknown extractor {name!r}; known extractors: {known}") from None


def available_extractors() -> list[str]:
    """Names of the registered extractors, sorted."""
    return sorted(_EXTRACTORS)
