"""Label mappings: which classes a classifier predicts, and how dataset labels map to them.

A mapping is data, a JSON object (or the equivalent dict)::

    {"description": "...",
     "labels": ["article", "list"],
     "map": {"listing": "list", "collection": "list", "forum": "article", ...}}

``labels`` are the classes in output order (class index = position). ``map`` sends a
dataset label (a WCXB page type, say) to one of them; every class label also maps to
itself. Shipped mappings live in ``models/label_maps/`` and are chosen by file stem:
``article-list`` (the default: the paper's two classes), ``article-list-other`` (three)
and ``wcxb-7`` (WCXB's seven page types).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from models.common.shipped import shipped_file, shipped_resource

LABEL_MAPS_DIR = "label_maps"  # of the models package (models.common.shipped)
DEFAULT_LABEL_MAPPING = "article-list"


class LabelMappingError(ValueError):
    """A label mapping that cannot be loaded, or a label it does not cover."""


@dataclass(frozen=True)
class LabelMapping:
    """Classes in output order and the aliases that map dataset labels onto them."""

    labels: tuple[str, ...]
    aliases: dict[str, str] = field(default_factory=dict)
    name: str = ""

    def __post_init__(self) -> None:
        if not self.labels or not all(isinstance(label, str) and label for label in self.labels):
            raise LabelMappingError(f"mapping {self.name!r}: labels must be non-empty strings")
        if len(set(self.labels)) != len(self.labels):
            raise LabelMappingError(f"mapping {self.name!r}: duplicate labels in {self.labels}")
        strays = {raw: target for raw, target in self.aliases.items() if target not in self.labels}
        if strays:
            raise LabelMappingError(
                f"mapping {self.name!r}: {strays} map to labels not in {list(self.labels)}"
            )

    def label_of(self, raw: str) -> str:
        """The class a dataset label belongs to."""
        if raw in self.labels:
            return raw
        try:
            return self.aliases[raw]
        except KeyError:
            raise LabelMappingError(
                f"label {raw!r} is not covered by mapping {self.name!r} "
                f"(classes {list(self.labels)}, aliases {sorted(self.aliases)})"
            ) from None

    def index_of(self, raw: str) -> int:
        """The class index of a dataset label."""
        return self.labels.index(self.label_of(raw))

    def check_covers(self, raw_labels: Iterable[str]) -> None:
        """Raise LabelMappingError naming every label the mapping does not cover."""
        missing = sorted({raw for raw in raw_labels if raw not in self.labels and raw not in self.aliases})
        if missing:
            raise LabelMappingError(
                f"mapping {self.name!r} does not cover dataset labels {missing} "
                f"(classes {list(self.labels)}, aliases {sorted(self.aliases)})"
            )

    def to_dict(self) -> dict[str, Any]:
        """The mapping as plain data (the JSON format above)."""
        return {"name": self.name, "labels": list(self.labels), "map": dict(self.aliases)}


def shipped_label_mappings() -> list[str]:
    """Names of the mappings in ``models/label_maps/``."""
    files = shipped_resource("models", LABEL_MAPS_DIR).iterdir()
    return sorted(file.name.removesuffix(".json") for file in files if file.name.endswith(".json"))


def label_mapping_from_dict(spec: Mapping[str, Any], name: str = "") -> LabelMapping:
    """Build a mapping from its JSON form."""
    if not isinstance(spec, Mapping) or "labels" not in spec:
        raise LabelMappingError(f"mapping {name!r} must be an object with a 'labels' list")
    labels, aliases = spec["labels"], spec.get("map", {})
    if not isinstance(labels, list) or not isinstance(aliases, Mapping):
        raise LabelMappingError(f"mapping {name!r}: 'labels' must be a list and 'map' an object")
    return LabelMapping(tuple(labels), dict(aliases), name or str(spec.get("name", "")))


@lru_cache(maxsize=1)
def default_label_mapping() -> LabelMapping:
    """The default mapping (:data:`DEFAULT_LABEL_MAPPING`), read once for callers per page."""
    return load_label_mapping()


def load_label_mapping(spec: str | Path | Mapping[str, Any] | None = None) -> LabelMapping:
    """Load a mapping: None (the default), a shipped name, a JSON file path, or a dict."""
    if spec is None:
        spec = DEFAULT_LABEL_MAPPING
    if isinstance(spec, Mapping):
        return label_mapping_from_dict(spec)
    path = Path(spec)
    if str(spec) in shipped_label_mappings():
        path = shipped_file("models", f"{LABEL_MAPS_DIR}/{spec}.json")
    if not path.is_file():
        raise LabelMappingError(
            f"label mapping not found: {spec} (give a JSON file or one of {shipped_label_mappings()})"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LabelMappingError(f"label mapping {path}: not readable JSON: {exc}") from exc
    return label_mapping_from_dict(data, name=path.stem)
