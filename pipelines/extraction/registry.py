"""Extractors by name: the one seam every extractor plugs into (ours, the peers, and the
learned and visual ones to come).

The registry holds extractor classes; :func:`build_extractor` makes one from settings
(``cls.from_settings``), so a checkpoint is loaded once, at start-up, and a missing one
fails there. ``PAGESIGHT_EXTRACTOR_OPTIONS`` overrides fields of an extractor's
``Options`` dataclass by name, e.g. ``{"iawce": {"article_share": 0.6}}``, and of an
options dataclass inside it by a dict, e.g. ``{"iawce": {"denoise": {"max_hidden_share": 0.3}}}``.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace
from importlib.metadata import PackageNotFoundError, version
from typing import Any, TypeVar, cast

from pipelines.config import SettingsLike
from pipelines.extraction.page import Extractor

E = TypeVar("E", bound=type)
OptionsT = TypeVar("OptionsT")

_EXTRACTORS: dict[str, type[Extractor]] = {}


class ExtractorUnavailable(ValueError):
    """An unknown extractor, one whose package is missing, or options it does not have."""


def register(cls: E) -> E:
    """Class decorator: make ``cls`` available under ``cls.name``; returns it unchanged.

    Checks the contract (a ``name``, an ``Options`` dataclass, ``from_settings`` and
    ``extract``); registering a second, different class under a taken name is an error.
    """
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"an extractor needs a non-empty string `name`, got {name!r}")
    options = getattr(cls, "Options", None)
    if not (isinstance(options, type) and is_dataclass(options)):
        raise ValueError(f"extractor {name!r} needs an `Options` dataclass")
    for method in ("from_settings", "extract"):
        if not callable(getattr(cls, method, None)):
            raise ValueError(f"extractor {name!r} has no {method} method")
    known = _EXTRACTORS.get(name)
    if known is not None and known is not cls:
        raise ValueError(f"an extractor named {name!r} is already registered")
    _EXTRACTORS[name] = cast("type[Extractor]", cls)
    return cls


def extractor_class(name: str) -> type[Extractor]:
    """The class registered as ``name``; :class:`ExtractorUnavailable` naming the known ones."""
    try:
        return _EXTRACTORS[name]
    except KeyError:
        known = ", ".join(available_extractors()) or "none"
        raise ExtractorUnavailable(f"unknown extractor {name!r}; known extractors: {known}") from None


def build_extractor(name: str, settings: SettingsLike | None = None) -> Extractor:
    """The extractor ``name`` built from ``settings`` (None: its defaults)."""
    return extractor_class(name).from_settings(settings)


def available_extractors() -> list[str]:
    """Names of the registered extractors, sorted."""
    return sorted(_EXTRACTORS)


def configured_options(name: str, defaults: OptionsT, settings: SettingsLike | None) -> OptionsT:
    """``defaults`` (an Options dataclass) with the fields ``PAGESIGHT_EXTRACTOR_OPTIONS``
    sets for extractor ``name``; a field that is itself an options dataclass (iawce's
    ``denoise``) is set by a dict of its fields. An unknown field is
    :class:`ExtractorUnavailable`."""
    if settings is None:
        return defaults
    overrides: dict[str, Any] = dict((settings.getdict("PAGESIGHT_EXTRACTOR_OPTIONS") or {}).get(name) or {})
    return _with_overrides(defaults, overrides, f"PAGESIGHT_EXTRACTOR_OPTIONS[{name!r}]", name)


def _with_overrides(defaults: OptionsT, overrides: dict[str, Any], where: str, label: str) -> OptionsT:
    known = {f.name for f in fields(defaults)}  # type: ignore[arg-type]
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise ExtractorUnavailable(
            f"{where}: no option {', '.join(unknown)}; {label} has {', '.join(sorted(known))}"
        )
    values = {
        key: _with_overrides(nested, value, f"{where}[{key!r}]", key)
        if is_dataclass(nested := getattr(defaults, key)) and isinstance(value, dict)
        else value
        for key, value in overrides.items()
    }
    return replace(defaults, **values)  # type: ignore[type-var]


def package_version(package: str) -> str | None:
    """The installed version of a distribution, or None."""
    try:
        return version(package)
    except PackageNotFoundError:
        return None
