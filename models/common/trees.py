"""A gradient-boosted tree ensemble stored as plain arrays, so that prediction needs numpy
only (no pickle, no scikit-learn at crawl time): the element classifier's checkpoint
(:mod:`models.element.model`) and the quality estimate's (:mod:`models.quality.model`)
both hold it. :meth:`BoostedTrees.from_sklearn` copies a fitted scikit-learn ensemble's
trees into flat arrays; :meth:`BoostedTrees.to_arrays` and :meth:`BoostedTrees.header`
are what a checkpoint stores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Self

import numpy as np

#: The arrays that hold one tree ensemble in a checkpoint.
TREE_ARRAYS = ("left", "right", "feature", "threshold", "value", "roots")
#: The scalars stored beside them (``BoostedTrees.header``).
HEADER_KEYS = ("features", "baseline", "rate", "depth", "float32", "output")
#: What a tree ensemble's scores are: a classifier's log-odds, or a regressor's estimate.
LOG_ODDS, ESTIMATE = "log-odds", "estimate"


def sigmoid(x: np.ndarray | float) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=np.float64)))


@dataclass
class BoostedTrees:
    """Gradient boosting: score = baseline + rate * sum of tree values; for a binary
    classifier (``output`` log-odds) P(main) = sigmoid(score), for a regressor (``output``
    estimate) the score is the estimate.

    The trees live in flat arrays (one node per entry, ``left == -1`` at a leaf); tree
    ``t`` starts at node ``roots[t]``. A sample goes left when its feature value is <= the
    node's threshold (compared as float32 when ``float32``, as GradientBoostingClassifier
    does; HistGradientBoostingClassifier compares float64).
    """

    left: np.ndarray
    right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    baseline: float
    rate: float
    depth: int
    features: list[str]
    meta: dict[str, Any] = field(default_factory=dict)
    float32: bool = True
    output: str = LOG_ODDS

    @classmethod
    def from_sklearn(cls, model: Any, features: list[str], meta: dict[str, Any]) -> Self:
        """Copy a fitted binary ``GradientBoostingClassifier`` or
        ``HistGradientBoostingClassifier`` (whose leaf values hold the learning rate), or
        one of their regressors (anything without ``predict_proba``: its scores are
        ``predict``, or ``decision_function`` where it has one)."""
        if hasattr(model, "_predictors"):  # HistGradientBoosting* (scikit-learn pinned)
            nodes = [stage[0].nodes for stage in model._predictors]
            parts = [
                (
                    np.where(n["is_leaf"], -1, n["left"].astype(np.int64)),
                    np.where(n["is_leaf"], -1, n["right"].astype(np.int64)),
                    n["feature_idx"],
                    n["num_threshold"],
                    n["value"],
                    int(n["depth"].max()),
                )
                for n in nodes
            ]
            rate, float32 = 1.0, False
        else:
            trees = [stage[0].tree_ for stage in model.estimators_]
            parts = [
                (t.children_left, t.children_right, t.feature, t.threshold, t.value[:, 0, 0], t.max_depth)
                for t in trees
            ]
            rate, float32 = float(model.learning_rate), True
        sizes = [len(part[0]) for part in parts]
        roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)

        def children(column: int) -> np.ndarray:
            shifted = [np.where(p[column] >= 0, p[column] + r, -1) for p, r in zip(parts, roots, strict=True)]
            return np.concatenate(shifted).astype(np.int64)

        ensemble = cls(
            left=children(0),
            right=children(1),
            feature=np.concatenate([p[2] for p in parts]).astype(np.int64),
            threshold=np.concatenate([p[3] for p in parts]).astype(np.float64),
            value=np.concatenate([p[4] for p in parts]).astype(np.float64),
            roots=roots,
            baseline=0.0,
            rate=rate,
            depth=max(p[5] for p in parts),
            features=list(features),
            meta=meta,
            float32=float32,
            output=LOG_ODDS if hasattr(model, "predict_proba") else ESTIMATE,
        )
        probe = np.zeros((1, len(features)))
        score = getattr(model, "decision_function", None) or model.predict
        ensemble.baseline = float(score(probe)[0] - ensemble.raw_scores(probe)[0])
        return ensemble

    def raw_scores(self, rows: np.ndarray) -> np.ndarray:
        """The ensemble's log-odds for each row of features (baseline included)."""
        x = np.asarray(rows, dtype=np.float32 if self.float32 else np.float64).astype(np.float64)
        if x.ndim != 2 or x.shape[1] != len(self.features):
            raise ValueError(f"expected rows of {len(self.features)} features, got shape {x.shape}")
        node = np.repeat(self.roots[:, None], len(x), axis=1)
        samples = np.arange(len(x))[None, :]
        for _ in range(self.depth):
            inner = self.left[node] >= 0
            values = x[samples, np.where(inner, self.feature[node], 0)]
            go_left = values <= self.threshold[node]
            node = np.where(inner, np.where(go_left, self.left[node], self.right[node]), node)
        scores: np.ndarray = self.baseline + self.rate * self.value[node].sum(axis=0)
        return scores

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """P(main element) of each row (rank by :meth:`raw_scores`: these saturate at 1)."""
        return sigmoid(self.raw_scores(rows))

    def confidence(self, scores: np.ndarray | float) -> np.ndarray:
        """What :meth:`raw_scores` say on a 0..1 scale: a classifier's probability, a
        regressor's estimate clipped to [0, 1]."""
        if self.output == LOG_ODDS:
            return sigmoid(scores)
        return np.clip(np.asarray(scores, dtype=np.float64), 0.0, 1.0)

    def header(self) -> dict[str, Any]:
        """The scalars a checkpoint stores beside :meth:`to_arrays`."""
        return {key: getattr(self, key) for key in HEADER_KEYS}

    def to_arrays(self, prefix: str = "", value_dtype: type = np.float64) -> dict[str, np.ndarray]:
        """The trees as the arrays a checkpoint stores, names prefixed."""
        return {
            f"{prefix}left": self.left.astype(np.int32),
            f"{prefix}right": self.right.astype(np.int32),
            f"{prefix}feature": self.feature.astype(np.int16),
            f"{prefix}threshold": self.threshold,
            f"{prefix}value": self.value.astype(value_dtype),
            f"{prefix}roots": self.roots.astype(np.int32),
        }

    @classmethod
    def from_arrays(
        cls, arrays: dict[str, np.ndarray], header: dict[str, Any], prefix: str = "", **extra: Any
    ) -> Self:
        """The inverse of :meth:`to_arrays` and :meth:`header`; ValueError when the trees
        point outside their features."""
        features = list(header["features"])
        feature = arrays[f"{prefix}feature"].astype(np.int64)
        if int(feature.max(initial=0)) >= len(features) or not math.isfinite(header["baseline"]):
            raise ValueError("corrupt (tree features out of range)")
        output = str(header.get("output", LOG_ODDS))
        if output not in (LOG_ODDS, ESTIMATE):
            raise ValueError(
                f"of an unknown output {output!r} (this code reads {LOG_ODDS!r} or {ESTIMATE!r})"
            )
        return cls(
            left=arrays[f"{prefix}left"].astype(np.int64),
            right=arrays[f"{prefix}right"].astype(np.int64),
            feature=feature,
            threshold=arrays[f"{prefix}threshold"],
            value=arrays[f"{prefix}value"].astype(np.float64),
            roots=arrays[f"{prefix}roots"].astype(np.int64),
            baseline=float(header["baseline"]),
            rate=float(header["rate"]),
            depth=int(header["depth"]),
            features=features,
            float32=bool(header.get("float32", False)),
            output=output,
            **extra,
        )
