"""BoilerNet's checkpoint (:mod:`models.common.checkpoint`'s torch format): save and load.

A checkpoint holds one network or a seed ensemble: K networks of one shape and
vocabulary, trained with different seeds, whose per-leaf probabilities are averaged
(:func:`predict_mean`); the threshold is calibrated for that mean.

The checkpoint (``torch.load(weights_only=True)``-safe, fp16 weights) carries the
architecture, the vocabularies, the calibrated threshold, the training config and the
metrics::

    {"format": "pagesight-boilernet", "format_version": 3, "config": {BoilerNetConfig},
     "vocabulary": {"words": [...], "tags": [...]}, "features": [names, or none],
     "flags": [names, or none], "threshold": 0.5, "drop_forms": true,
     "training": {...}, "metrics": {...}, "members": [{state_dict}, ...]}

``drop_forms``: whether leaves inside a ``<form>`` are dropped by rule (the seed's rule;
calibrated on validation with the threshold). ``members``: the ensemble's networks' weights
(one for a single network). Versions 1 (no features, always the form rule) and 2 (one
network's weights under ``state_dict``; ``flags`` absent before them) still load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from models.boilernet.data import FEATURE_SETS, FEATURES, FLAGS, PageEncoder, Vocabulary
from models.boilernet.model import BoilerNet, BoilerNetConfig, EncodedPage, predict_mean
from models.common.checkpoint import CheckpointError, header, read_torch_checkpoint, save_torch_checkpoint

FORMAT = "pagesight-boilernet"
FORMAT_VERSION = 3
#: Versions this code reads (1: before the numeric features; 2: one network, before ensembles).
READABLE_VERSIONS = (1, 2, 3)


def save_boilernet(
    path: Path,
    models: Sequence[BoilerNet],
    vocabulary: Vocabulary,
    threshold: float,
    training: dict[str, Any],
    metrics: dict[str, Any],
    drop_forms: bool = True,
    flags: Sequence[str] = (),
    features: Sequence[str] | None = None,
) -> Path:
    """Write the checkpoint of ``models`` (one network, or a seed ensemble of one shape)
    atomically, weights in fp16; ``flags``: the names of the networks' leaf flags, in their
    input order; ``features``: the names of their numeric leaf features (one of
    FEATURE_SETS; None: FEATURES when the networks read features)."""
    if not models or any(model.config != models[0].config for model in models):
        raise ValueError("a BoilerNet checkpoint holds one or more networks of one shape")
    config = models[0].config
    names = list(FEATURES if config.features else ()) if features is None else list(features)
    if len(names) != config.features:
        raise ValueError(f"{len(names)} feature names for {config.features} feature inputs")
    payload = {
        **header(FORMAT, FORMAT_VERSION),
        "config": asdict(config),
        "vocabulary": vocabulary.to_dict(),
        "features": names,
        "flags": list(flags),
        "threshold": float(threshold),
        "drop_forms": drop_forms,
        "training": training,
        "metrics": metrics,
        "members": [
            {
                name: (t.half() if t.is_floating_point() else t).detach().cpu().contiguous()
                for name, t in model.state_dict().items()
            }
            for model in models
        ],
    }
    return save_torch_checkpoint(path, payload)


@dataclass
class LoadedBoilerNet:
    #: The networks whose probabilities are averaged (one, or a seed ensemble).
    models: tuple[BoilerNet, ...]
    vocabulary: Vocabulary
    threshold: float
    metadata: dict[str, Any]
    #: Drop the leaves inside a <form> (the seed's rule).
    drop_forms: bool = True
    #: The names of the network's leaf flags (of FLAGS), in input order.
    flags: tuple[str, ...] = ()
    #: The names of its numeric leaf features (one of FEATURE_SETS; empty: none).
    features: tuple[str, ...] = ()
    #: The checkpoint's format version (an older one still loads).
    format_version: int = FORMAT_VERSION
    encoder: PageEncoder = field(init=False)

    def __post_init__(self) -> None:
        self.encoder = self.vocabulary.encoder()

    @property
    def config(self) -> BoilerNetConfig:
        """The networks' shape (every member has the same)."""
        return self.models[0].config

    def probabilities(self, pages: Sequence[EncodedPage]) -> list[torch.Tensor]:
        """P(content) of every leaf of every page: the members' mean."""
        return predict_mean(self.models, pages)


def load_boilernet(path: str | Path) -> LoadedBoilerNet:
    """The checkpoint's networks (eval mode, fp32), vocabulary and threshold;
    CheckpointError (one line naming the file) on any problem."""
    path = Path(path)
    payload = read_torch_checkpoint(
        path,
        FORMAT,
        READABLE_VERSIONS,
        "BoilerNet",
        "train one with `scrapy train-boilernet` or set PAGESIGHT_BOILERNET_CHECKPOINT",
    )
    try:
        config = BoilerNetConfig(**payload["config"])
        vocabulary = Vocabulary.from_dict(payload["vocabulary"])
        models = tuple(_networks(config, payload))
        threshold = float(payload["threshold"])
        drop_forms = payload.get("drop_forms", True)
        if not isinstance(drop_forms, bool):
            raise TypeError("drop_forms must be true or false")
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise CheckpointError(f"{path} is a malformed BoilerNet checkpoint: {exc}") from None
    sizes = (vocabulary.word_size, vocabulary.tag_size, vocabulary.attribute_size)
    if sizes != (config.words, config.tags, config.attributes):
        raise CheckpointError(f"{path}: the vocabulary does not fit the network's input sizes")
    features = payload.get("features", []) if config.features else []
    if config.features and (len(features) != config.features or tuple(features) not in FEATURE_SETS.values()):
        known = " or ".join(str(list(names)) for names in FEATURE_SETS.values())
        raise CheckpointError(
            f"{path} was trained on the leaf features {features}; this code computes {known} "
            "(retrain it with `scrapy train-boilernet --leaf-features`)"
        )
    flags = payload.get("flags", [])
    if len(flags) != config.flags or not set(flags) <= set(FLAGS):
        raise CheckpointError(
            f"{path} has the leaf flags {flags} for {config.flags} flag inputs; this code computes "
            f"{', '.join(FLAGS)}"
        )
    metadata = {key: payload.get(key) for key in ("config", "training", "metrics")}
    return LoadedBoilerNet(
        models,
        vocabulary,
        threshold,
        metadata,
        drop_forms,
        tuple(flags),
        tuple(features),
        int(payload["format_version"]),
    )


def _networks(config: BoilerNetConfig, payload: dict[str, Any]) -> list[BoilerNet]:
    """The payload's networks in eval mode: its ``members`` (version 3) or its one
    ``state_dict`` (versions 1 and 2); ValueError naming the member that does not load."""
    if payload["format_version"] < 3:
        states = [payload["state_dict"]]
    else:
        states = payload["members"]
        if not isinstance(states, list) or not states:
            raise ValueError("members must be a non-empty list of weights")
    models = []
    for index, state in enumerate(states, start=1):
        model = BoilerNet(config)
        try:
            model.load_state_dict(
                {name: t.float() if t.is_floating_point() else t for name, t in state.items()}
            )
        except (AttributeError, RuntimeError) as exc:
            # load_state_dict's message spans lines: the error is one line.
            raise ValueError(f"member {index} of {len(states)}: {' '.join(str(exc).split())}") from None
        models.append(model.eval())
    return models
