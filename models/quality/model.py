"""The learned quality estimate: per extraction candidate, its predicted word F1 against
the gold main content, from :mod:`models.quality.features`.

Two stages, each a gradient-boosted regression tree ensemble over its own candidate set
(``cheap``: extractors that run in a few ms; ``full``: those and the peers), so that the
``ensemble`` extractor can stop after the cheap candidates when the estimate is sure. A stage
may also carry its line merge (:class:`models.quality.merge.MergeModel`: a classifier of
the candidates' lines); a checkpoint written before the merge has none. The trees are
stored as plain arrays (:class:`models.common.trees.BoostedTrees`'s layout) in one
``.npz`` with a JSON ``meta``: prediction needs numpy only, no pickle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from models.common.checkpoint import read_npz_checkpoint, write_npz_checkpoint
from models.common.trees import TREE_ARRAYS, BoostedTrees
from models.quality.features import feature_names
from models.quality.lexicon import LEXICON_ARRAYS, Lexicon
from models.quality.merge import LEXICAL_FEATURES, MergeModel, merge_feature_names

FORMAT = "pagesight-quality-estimate/1"
CHEAP, FULL = "cheap", "full"
STAGES = (CHEAP, FULL)
#: The ``ensemble``'s two ways to use the candidates: keep the one the estimate picks, or
#: merge their lines.
PICK, MERGE = "pick", "merge"
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
    trees: BoostedTrees
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
    """A fitted ``HistGradientBoostingRegressor`` seen as ``BoostedTrees.from_sklearn``
    expects (its ``decision_function`` is the regressor's prediction)."""

    def __init__(self, model: Any):
        self._predictors = model._predictors
        self.decision_function = model.predict


def stage_from_sklearn(model: Any, candidates: list[str]) -> StageModel:
    """Copy a fitted ``HistGradientBoostingRegressor`` into a :class:`StageModel`."""
    trees = BoostedTrees.from_sklearn(_Regressor(model), feature_names(candidates), {})
    return StageModel(list(candidates), trees)


@dataclass
class QualityEstimate:
    """The checkpoint: a model per stage, each stage's line merge (none in a checkpoint
    written before the merge), and what made it (args, data, metrics; ``meta["choice"]``:
    the ``ensemble``'s pick or merge, ``meta["fast_choice"]`` ``ensemble-fast``'s, both
    chosen on validation)."""

    stages: dict[str, StageModel]
    meta: dict[str, Any] = field(default_factory=dict)
    merges: dict[str, MergeModel] = field(default_factory=dict)

    def save(self, path: str | Path) -> Path:
        arrays: dict[str, Any] = {}
        stages, merges = {}, {}
        for name, stage in self.stages.items():
            header = stage.trees.header()
            del header["float32"]
            stages[name] = {"candidates": stage.candidates, **header, "margin": stage.margin}
            arrays.update(stage.trees.to_arrays(f"{name}.", value_dtype=np.float32))
        for name, merge in self.merges.items():
            header = merge.trees.header()
            del header["float32"]
            merges[name] = {
                "candidates": merge.candidates,
                **header,
                "drop_below": merge.drop_below,
                "add_from": merge.add_from,
                "lexicon_bias": merge.lexicon.bias,
            }
            arrays.update(merge.trees.to_arrays(f"merge.{name}.", value_dtype=np.float32))
            arrays.update(merge.lexicon.to_arrays(f"merge.{name}."))
        meta = {**self.meta, "format": FORMAT, "stages": stages}
        if merges:
            meta["merges"] = merges
        return write_npz_checkpoint(path, meta, arrays)

    @classmethod
    def load(cls, path: str | Path) -> QualityEstimate:
        """Read a checkpoint; :class:`QualityCheckpointError` (one line) when it is missing,
        unreadable, of another format or version of the features, or lacks a stage."""
        path = Path(path)

        def array_names(meta: dict[str, Any]) -> list[str]:
            missing = [stage for stage in STAGES if stage not in meta.get("stages", {})]
            if missing:
                raise QualityCheckpointError(f"{path} has no {', '.join(missing)} stage; {_RETRAIN}")
            merges = [f"merge.{stage}" for stage in meta.get("merges", {})]
            trees = [f"{prefix}.{array}" for prefix in [*STAGES, *merges] for array in TREE_ARRAYS]
            return trees + [f"{prefix}.{array}" for prefix in merges for array in LEXICON_ARRAYS]

        meta, arrays = read_npz_checkpoint(
            path, FORMAT, "a quality estimate", _RETRAIN, QualityCheckpointError, array_names
        )

        def trees_of(prefix: str, info: dict[str, Any]) -> BoostedTrees:
            try:
                return BoostedTrees.from_arrays(arrays, info, prefix)
            except ValueError as exc:
                raise QualityCheckpointError(f"{path} is {exc}; {_RETRAIN}") from None

        stages = {}
        for name in STAGES:
            info = meta["stages"][name]
            candidates = list(info["candidates"])
            if list(info["features"]) != feature_names(candidates):
                raise QualityCheckpointError(
                    f"{path} was trained on features this code does not compute; {_RETRAIN}"
                )
            stages[name] = StageModel(candidates, trees_of(f"{name}.", info), float(info["margin"]))
        merges = {}
        for name, info in meta.get("merges", {}).items():
            if not {"candidates", "features", "drop_below", "add_from", "lexicon_bias"} <= set(info):
                raise QualityCheckpointError(f"{path} has an incomplete line merge; {_RETRAIN}")
            candidates = list(info["candidates"])
            if name not in stages or candidates != stages[name].candidates:
                raise QualityCheckpointError(f"{path} has a line merge of no stage's candidates; {_RETRAIN}")
            if list(info["features"]) != [*merge_feature_names(candidates), *LEXICAL_FEATURES]:
                raise QualityCheckpointError(
                    f"{path} has a line merge of features this code does not compute; {_RETRAIN}"
                )
            try:
                lexicon = Lexicon.from_arrays(arrays, f"merge.{name}.", float(info["lexicon_bias"]))
            except ValueError as exc:
                raise QualityCheckpointError(f"{path} has {exc}; {_RETRAIN}") from None
            merges[name] = MergeModel(
                candidates,
                trees_of(f"merge.{name}.", info),
                float(info["drop_below"]),
                float(info["add_from"]),
                lexicon,
            )
        extra = {k: v for k, v in meta.items() if k not in ("format", "stages", "merges")}
        return cls(stages, extra, merges)
