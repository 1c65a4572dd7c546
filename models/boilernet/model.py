"""BoilerNet (Leonhardt et al. 2020, seed 001): a sequence labeller over a page's text leaves.

Per leaf, a bag of its words (top-N vocabulary, index 0 = unknown; N = 0 means tags only)
and a bag of its ancestor tags (top-50, index 0 = other) → Dense (ReLU) → 2 × BiLSTM →
Dropout → Dense 1 (a logit; sigmoid gives P(content)). The first Dense over count
vectors is computed as a sum of embedding rows (``EmbeddingBag(mode="sum")``), which is
the same function without building the sparse vectors. With ``features`` (not the
seed's), the leaf's numeric features (:data:`~models.boilernet.data.FEATURES`),
standardised by the training set's mean and deviation, are concatenated to that Dense
layer's input (a third term of the sum); with ``attributes`` (not the seed's either), a
bag of the class/id words of the leaf's ancestors is a fourth; with ``flags``, the
leaf's 0/1 :data:`~models.boilernet.data.FLAGS` (list page, removed by iawce's denoiser,
in iawce's region) a fifth.

A checkpoint holds one network or a seed ensemble: K networks of one shape and
vocabulary, trained with different seeds, whose per-leaf probabilities are averaged
(:func:`predict_mean`); the threshold is calibrated for that mean.

The checkpoint (:mod:`models.boilernet.checkpoint`) stores the networks, their
vocabularies and the calibrated threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence


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


@dataclass
class EncodedPage:
    """One page's leaves as ids: flat word, tag and attribute-word ids with per-leaf
    counts, the leaves' numeric features and flags (leaves × features / :data:`FLAGS`;
    zero columns when unused)."""

    word_ids: torch.Tensor
    word_counts: torch.Tensor
    tag_ids: torch.Tensor
    tag_counts: torch.Tensor
    features: torch.Tensor
    attribute_ids: torch.Tensor
    attribute_counts: torch.Tensor
    flags: torch.Tensor

    def __len__(self) -> int:
        return len(self.tag_counts)

    def window(self, start: int, stop: int) -> EncodedPage:
        """Leaves ``start:stop`` as a page of their own."""
        word_starts = torch.cat([torch.zeros(1, dtype=torch.long), self.word_counts.cumsum(0)])
        tag_starts = torch.cat([torch.zeros(1, dtype=torch.long), self.tag_counts.cumsum(0)])
        attribute_starts = torch.cat([torch.zeros(1, dtype=torch.long), self.attribute_counts.cumsum(0)])
        return EncodedPage(
            self.word_ids[word_starts[start] : word_starts[stop]],
            self.word_counts[start:stop],
            self.tag_ids[tag_starts[start] : tag_starts[stop]],
            self.tag_counts[start:stop],
            self.features[start:stop],
            self.attribute_ids[attribute_starts[start] : attribute_starts[stop]],
            self.attribute_counts[start:stop],
            self.flags[start:stop],
        )


@dataclass
class LeafBatch:
    """Several pages' leaves, flat, with offsets for ``EmbeddingBag``, their features
    and flags, and each page's leaf count (``lengths``, on the CPU as packing wants)."""

    word_ids: torch.Tensor
    word_offsets: torch.Tensor
    tag_ids: torch.Tensor
    tag_offsets: torch.Tensor
    features: torch.Tensor
    attribute_ids: torch.Tensor
    attribute_offsets: torch.Tensor
    lengths: torch.Tensor
    flags: torch.Tensor

    @classmethod
    def of(cls, pages: Sequence[EncodedPage]) -> LeafBatch:
        word_counts = torch.cat([p.word_counts for p in pages])
        tag_counts = torch.cat([p.tag_counts for p in pages])
        return cls(
            torch.cat([p.word_ids for p in pages]),
            _offsets(word_counts),
            torch.cat([p.tag_ids for p in pages]),
            _offsets(tag_counts),
            torch.cat([p.features for p in pages]),
            torch.cat([p.attribute_ids for p in pages]),
            _offsets(torch.cat([p.attribute_counts for p in pages])),
            torch.tensor([len(p) for p in pages], dtype=torch.long),
            torch.cat([p.flags for p in pages]),
        )


def _offsets(counts: torch.Tensor) -> torch.Tensor:
    return torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)[:-1]])


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
