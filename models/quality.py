"""The learned quality estimate: per extraction candidate, its predicted word F1 against
the gold main content, from :mod:`models.quality_features`.

Two stages, each a gradient-boosted regression tree ensemble over its own candidate set
(``cheap``: extractors that run in a few ms; ``full``: those and the peers), so that the
``ensemble`` extractor can stop after the cheap candidates when the estimate is sure. The
trees are stored as plain arrays (:class:`models.element_classifier.TreeEnsemble`'s
layout) in one ``.npz`` with a JSON ``meta``: prediction needs numpy only, no pickle.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from models.element_classifier import TreeEnsemble
from models.quality_features import feature_names

FORMAT = "pagesight-quality-estimate/1"
CHEAP, FULL = "cheap", "full"
STAGES = (CHEAP, FULL)
_ARRAYS = ("left", "right", "feature", "threshold", "value", "roots")
_RETRAIN = "train one with `scrapy train-ensemble --wcxb WCXB_DEV`"


class QualityCheckpointError(ValueError):
    """A quality-estimate checkpoint that cannot be used; the message names the file and
    what to do."""


@dataclass
class StageModel:
    """One stage: its candidate extractors (in feature order; the first is the default
    pick), its trees, and the margin by which another candidate's estimate must beat the
    first's to be picked instead (chosen on the validation domains)."""

    candidates: list[str]
    trees: TreeEnsemble
    margin: float = 0.0

    def estimate(self, rows: np.ndarray) -> np.ndarray:
        """Predicted word F1 of each row, clipped to [0, 1]."""
        clipped: np.ndarray = np.clip(self.trees.raw_scores(rows), 0.0, 1.0)
        return clipped

    def pick(self, estimates: np.ndarray) -> int:
        """Index of the candidate to keep, given one page's estimates (in candidate order):
        the best one when it beats the first by more than the margin, else the first."""
        best = int(np.argmax(estimates))
        return best if estimates[best] - estimates[0] > self.margin else 0


class _Regressor:
    """A fitted ``HistGradientBoostingRegressor`` seen as ``TreeEnsemble.from_sklearn``
    expects (its ``decision_function`` is the regressor's prediction)."""

    def __init__(self, model: Any):
        self._predictors = model._predictors
        self.decision_function = model.predict


def stage_from_sklearn(model: Any, candidates: list[str]) -> StageModel:
    """Copy a fitted ``HistGradientBoostingRegressor`` into a :class:`StageModel`."""
    trees = TreeEnsemble.from_sklearn(_Regressor(model), feature_names(candidates), {})
    return StageModel(list(candidates), trees)


@dataclass
class QualityEstimate:
    """The checkpoint: a model per stage, and what made it (args, data, metrics)."""

    stages: dict[str, StageModel]
    meta: dict[str, Any] = field(default_factory=dict)

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, Any] = {}
        stages = {}
        for name, stage in self.stages.items():
            trees = stage.trees
            stages[name] = {
                "candidates": stage.candidates,
                "features": trees.features,
                "baseline": trees.baseline,
                "rate": trees.rate,
                "depth": trees.depth,
                "margin": stage.margin,
            }
            arrays[f"{name}.left"] = trees.left.astype(np.int32)
            arrays[f"{name}.right"] = trees.right.astype(np.int32)
            arrays[f"{name}.feature"] = trees.feature.astype(np.int16)
            arrays[f"{name}.threshold"] = trees.threshold
            arrays[f"{name}.value"] = trees.value.astype(np.float32)
            arrays[f"{name}.roots"] = trees.roots.astype(np.int32)
        meta = {**self.meta, "format": FORMAT, "stages": stages}
        with path.open("wb") as out:
            np.savez_compressed(out, meta=np.array(json.dumps(meta, ensure_ascii=False)), **arrays)
        return path

    @classmethod
    def load(cls, path: str | Path) -> QualityEstimate:
        """Read a checkpoint; :class:`QualityCheckpointError` (one line) when it is missing,
        unreadable, of another format or version of the features, or lacks a stage."""
        path = Path(path)
        if not path.is_file():
            raise QualityCheckpointError(f"quality estimate checkpoint {path} not found; {_RETRAIN}")
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = json.loads(str(data["meta"])) if "meta" in data else {}
                if meta.get("format") != FORMAT:
                    raise QualityCheckpointError(
                        f"{path} is not a quality estimate checkpoint (format {meta.get('format')!r}, "
                        f"expected {FORMAT!r}); {_RETRAIN}"
                    )
                stored = meta.get("stages", {})
                missing = [stage for stage in STAGES if stage not in stored]
                if missing:
                    raise QualityCheckpointError(f"{path} has no {', '.join(missing)} stage; {_RETRAIN}")
                arrays = {f"{s}.{a}": data[f"{s}.{a}"] for s in STAGES for a in _ARRAYS}
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
            if isinstance(exc, QualityCheckpointError):
                raise
            raise QualityCheckpointError(
                f"quality estimate checkpoint {path} is unreadable ({exc}); {_RETRAIN}"
            ) from None
        stages = {}
        for name in STAGES:
            info = stored[name]
            candidates = list(info["candidates"])
            if list(info["features"]) != feature_names(candidates):
                raise QualityCheckpointError(
                    f"{path} was trained on features this code does not compute; {_RETRAIN}"
                )
            feature = arrays[f"{name}.feature"].astype(np.int64)
            if int(feature.max(initial=0)) >= len(info["features"]) or not math.isfinite(info["baseline"]):
                raise QualityCheckpointError(f"{path} is corrupt (tree features out of range); {_RETRAIN}")
            trees = TreeEnsemble(
                left=arrays[f"{name}.left"].astype(np.int64),
                right=arrays[f"{name}.right"].astype(np.int64),
                feature=feature,
                threshold=arrays[f"{name}.threshold"],
                value=arrays[f"{name}.value"].astype(np.float64),
                roots=arrays[f"{name}.roots"].astype(np.int64),
                baseline=float(info["baseline"]),
                rate=float(info["rate"]),
                depth=int(info["depth"]),
                features=list(info["features"]),
                float32=False,
            )
            stages[name] = StageModel(candidates, trees, float(info["margin"]))
        extra = {k: v for k, v in meta.items() if k not in ("format", "stages")}
        return cls(stages, extra)
