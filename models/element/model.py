"""The element classifier's model: a gradient-boosted tree ensemble over element features
(:class:`models.common.trees.BoostedTrees`: plain arrays, prediction with numpy only) in
the element classifier's checkpoint.

Training fits scikit-learn's ``GradientBoostingClassifier`` or
``HistGradientBoostingClassifier`` on the main-element label, or their regressors on each
element's word F1 (see :mod:`models.element.train`); :meth:`TreeEnsemble.from_sklearn`
copies its trees into flat arrays. A checkpoint is one ``.npz``: those arrays plus
``meta``, a JSON string with the format, feature names, what the scores are (``output``:
log-odds, or an estimate such as a word F1; files without it hold log-odds), settings,
training arguments and metrics.
"""

from __future__ import annotations

from pathlib import Path

from models.common.checkpoint import CheckpointError, read_npz_checkpoint, write_npz_checkpoint
from models.common.checkpoint import header as checkpoint_header
from models.common.trees import HEADER_KEYS, TREE_ARRAYS, BoostedTrees

FORMAT = "pagesight-element-classifier"
FORMAT_VERSION = 1


class TreeEnsemble(BoostedTrees):
    """The element classifier: its trees, saved and loaded in its own checkpoint format."""

    def save(self, path: str | Path) -> Path:
        meta = {**self.meta, **checkpoint_header(FORMAT, FORMAT_VERSION), **self.header()}
        return write_npz_checkpoint(path, meta, self.to_arrays())

    @classmethod
    def load(cls, path: str | Path, known_features: tuple[str, ...] | None = None) -> TreeEnsemble:
        """Read a checkpoint; CheckpointError (one line) when it is missing, broken, of
        another format, or needs features outside ``known_features`` (what the code computes)."""
        path = Path(path)
        retrain = "train one with `scrapy train-element-classifier`"
        meta, arrays = read_npz_checkpoint(
            path,
            FORMAT,
            "an element classifier",
            retrain,
            CheckpointError,
            lambda meta: TREE_ARRAYS,
            range(1, FORMAT_VERSION + 1),
        )
        unknown = [
            name for name in meta["features"] if known_features is not None and name not in known_features
        ]
        if unknown:
            raise CheckpointError(
                f"{path} was trained on features this code does not compute ({', '.join(unknown)}); {retrain}"
            )
        extra = {k: v for k, v in meta.items() if k not in HEADER_KEYS}
        try:
            return cls.from_arrays(arrays, meta, meta=extra)
        except ValueError as exc:
            raise CheckpointError(f"{path} is {exc}; {retrain}") from None
