"""BoilerNet (Leonhardt et al. 2020, seed 001): a sequence labeller over a page's text leaves.

Per leaf, a bag of its words (top-N vocabulary, index 0 = unknown; N = 0 means tags only)
and a bag of its ancestor tags (top-50, index 0 = other) → Dense (ReLU) → 2 × BiLSTM →
Dropout → Dense 1 (a logit; sigmoid gives P(content)). The first Dense over count
vectors is computed as a sum of embedding rows (``EmbeddingBag(mode="sum")``), which is
the same function without building the sparse vectors. With ``features`` (not the
seed's), the leaf's numeric features (:data:`~models.boilernet_data.FEATURES`),
standardised by the training set's mean and deviation, are concatenated to that Dense
layer's input (a third term of the sum); with ``attributes`` (not the seed's either), a
bag of the class/id words of the leaf's ancestors is a fourth; with ``flags``, the
leaf's 0/1 :data:`~models.boilernet_data.FLAGS` (list page, removed by iawce's denoiser,
in iawce's region) a fifth.

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

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence

from models.boilernet_data import (
    FEATURE_SETS,
    FEATURES,
    FLAGS,
    EncodedPage,
    LeafBatch,
    PageEncoder,
    Vocabulary,
)
from models.common.checkpoint import why_unreadable

FORMAT = "pagesight-boilernet"
FORMAT_VERSION = 3
#: Versions this code reads (1: before the numeric features; 2: one network, before ensembles).
READABLE_VERSIONS = (1, 2, 3)


class BoilerNetCheckpointError(ValueError):
    """A BoilerNet checkpoint that is missing, unreadable or malformed."""


@dataclass(frozen=True)
class BoilerNetConfig:
    """The network's shape: input vocabularies (sizes incl. index 0), the number of
    numeric leaf features (0: the seed's bags only) and layer widths."""

    words: int
    tags: int
    dense: int = 256
    hidden: int = 256
    layers: int = 2
    dropout: float = 0.5
    features: int = 0
    #: Rows of the class/id attribute-word bag (0: none, the seed's input).
    attributes: int = 0
    #: The number of 0/1 leaf flags (of FLAGS; 0: none, the seed's input).
    flags: int = 0


class BoilerNet(nn.Module):
    def __init__(self, config: BoilerNetConfig) -> None:
        super().__init__()
        self.config = config
        self.words = nn.EmbeddingBag(config.words, config.dense, mode="sum") if config.words else None
        self.tags = nn.EmbeddingBag(config.tags, config.dense, mode="sum")
        self.bias = nn.Parameter(torch.zeros(config.dense))
        self.features = nn.Linear(config.features, config.dense, bias=False) if config.features else None
        self.attributes = (
            nn.EmbeddingBag(config.attributes, config.dense, mode="sum") if config.attributes else None
        )
        self.flags = nn.Linear(config.flags, config.dense, bias=False) if config.flags else None
        # The training set's feature mean and deviation (saved with the weights).
        self.feature_mean: torch.Tensor
        self.feature_scale: torch.Tensor
        if config.features:
            self.register_buffer("feature_mean", torch.zeros(config.features))
            self.register_buffer("feature_scale", torch.ones(config.features))
        self.lstm = nn.LSTM(
            config.dense, config.hidden, num_layers=config.layers, bidirectional=True, batch_first=True
        )
        self.dropout = nn.Dropout(config.dropout)
        self.out = nn.Linear(2 * config.hidden, 1)

    def forward(self, batch: LeafBatch) -> torch.Tensor:
        """Logits of shape (sequences, longest sequence).

        Shorter sequences are padded at the end and not packed (packed sequences make the
        LSTM's backward pass quadratic on the CPU): padding reaches the backward
        direction's states, so training batches windows of near-equal length and
        :func:`predict` runs one page at a time, exactly."""
        dense = self.tags(batch.tag_ids, batch.tag_offsets) + self.bias
        if self.words is not None:
            dense = dense + self.words(batch.word_ids, batch.word_offsets)
        if self.features is not None:
            dense = dense + self.features((batch.features - self.feature_mean) / self.feature_scale)
        if self.attributes is not None:
            dense = dense + self.attributes(batch.attribute_ids, batch.attribute_offsets)
        if self.flags is not None:
            dense = dense + self.flags(batch.flags)
        dense = torch.relu(dense)
        sequences = pad_sequence(list(torch.split(dense, batch.lengths.tolist())), batch_first=True)
        hidden, _ = self.lstm(sequences)
        logits: torch.Tensor = self.out(self.dropout(hidden)).squeeze(-1)
        return logits

    def standardise_features(self, rows: torch.Tensor) -> None:
        """Set the feature mean and deviation from the training leaves' rows."""
        self.feature_mean.copy_(rows.mean(0))
        self.feature_scale.copy_(rows.std(0).clamp_min(1e-3))


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
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
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
    partial = path.with_name(path.name + ".partial")
    torch.save(payload, partial)
    os.replace(partial, path)
    return path


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
    BoilerNetCheckpointError (one line naming the file) on any problem."""
    path = Path(path)
    if not path.is_file():
        raise BoilerNetCheckpointError(
            f"BoilerNet checkpoint not found: {path} (train one with `scrapy train-boilernet` "
            "or set PAGESIGHT_BOILERNET_CHECKPOINT)"
        )
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch.load fails with many types on a corrupt file
        raise BoilerNetCheckpointError(
            f"BoilerNet checkpoint {path} is unreadable: {why_unreadable(path, exc)}; train one with "
            "`scrapy train-boilernet` or set PAGESIGHT_BOILERNET_CHECKPOINT"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise BoilerNetCheckpointError(f"{path} is not a BoilerNet checkpoint (format {FORMAT!r} expected)")
    if payload.get("format_version") not in READABLE_VERSIONS:
        raise BoilerNetCheckpointError(
            f"{path} has format_version {payload.get('format_version')!r}; this code reads "
            f"{', '.join(map(str, READABLE_VERSIONS))}"
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
        raise BoilerNetCheckpointError(f"{path} is a malformed BoilerNet checkpoint: {exc}") from None
    sizes = (vocabulary.word_size, vocabulary.tag_size, vocabulary.attribute_size)
    if sizes != (config.words, config.tags, config.attributes):
        raise BoilerNetCheckpointError(f"{path}: the vocabulary does not fit the network's input sizes")
    features = payload.get("features", []) if config.features else []
    if config.features and (len(features) != config.features or tuple(features) not in FEATURE_SETS.values()):
        known = " or ".join(str(list(names)) for names in FEATURE_SETS.values())
        raise BoilerNetCheckpointError(
            f"{path} was trained on the leaf features {features}; this code computes {known} "
            "(retrain it with `scrapy train-boilernet --leaf-features`)"
        )
    flags = payload.get("flags", [])
    if len(flags) != config.flags or not set(flags) <= set(FLAGS):
        raise BoilerNetCheckpointError(
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


@torch.no_grad()
def predict(model: BoilerNet, pages: Sequence[EncodedPage]) -> list[torch.Tensor]:
    """P(content) of every leaf of every page, one page at a time (no padding)."""
    model.eval()
    return [torch.sigmoid(model(LeafBatch.of([page])))[0] if len(page) else torch.zeros(0) for page in pages]


def predict_mean(models: Sequence[BoilerNet], pages: Sequence[EncodedPage]) -> list[torch.Tensor]:
    """The mean over ``models`` of P(content) of every leaf of every page (a seed
    ensemble's probabilities; one model's own for a single one)."""
    if not models:
        raise ValueError("no network to predict with")
    members = [predict(model, pages) for model in models]
    return [torch.stack(page).mean(0) for page in zip(*members, strict=True)]


def write_boilernet_card(
    checkpoint: Path,
    command: str,
    benchmark: dict[str, Any] | None = None,
    out_of_fold: dict[str, Any] | None = None,
) -> Path:
    """Write ``NAME.card.json`` beside the checkpoint: its file facts, the training command,
    and the metadata it carries (config, vocabulary sizes, threshold, training, metrics);
    with ``benchmark`` (:func:`benchmark_section`) and ``out_of_fold`` (where its
    out-of-fold predictions are and how they were made), those sections too."""
    content = checkpoint.read_bytes()
    loaded = load_boilernet(checkpoint)
    card = {
        "checkpoint": {
            "file": checkpoint.name,
            "bytes": len(content),
            "md5": hashlib.md5(content).hexdigest(),
            "format": FORMAT,
            "format_version": loaded.format_version,
        },
        "model": "BoilerNet (Leonhardt et al. 2020), seed 001",
        "command": command,
        "vocabulary": {"words": len(loaded.vocabulary.words), "tags": list(loaded.vocabulary.tags)},
        "members": len(loaded.models),
        "threshold": loaded.threshold,
        "drop_forms": loaded.drop_forms,
        "flags": list(loaded.flags),
        **loaded.metadata,
    }
    if benchmark is not None:
        card["benchmark"] = benchmark
    if out_of_fold is not None:
        card["out_of_fold"] = out_of_fold
    path = checkpoint.with_name(checkpoint.stem + ".card.json")
    path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def benchmark_section(report: dict[str, Any], command: str) -> dict[str, Any]:
    """A card's ``benchmark`` section from a ``benchmarks/extract.py --out`` report: the
    command, the split, the pages scored and each extractor's mean page word F1 overall and
    per WCXB page type (``{split}_word_f1``, rounded to 4 places)."""
    try:
        split, summaries = report["split"], report["summaries"]
        scores = {
            extractor: {group: round(float(row["f1"]), 4) for group, row in groups.items()}
            for extractor, groups in summaries.items()
        }
        pages = int(report["pages"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not a benchmarks/extract.py report: {exc!r}") from None
    return {"command": command, "split": split, "pages": pages, f"{split}_word_f1": scores}
