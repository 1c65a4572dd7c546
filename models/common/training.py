"""What every trainer shares: the seed and the one best-epoch rule.

Every family keeps the epoch whose validation key is highest; among equal keys the later
epoch, which trained longer (BoilerNet's rule since its seed; the page-type trainers' keys,
accuracy then loss, practically never tie in full).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

#: An epoch's rank for keeping: higher is better, compared element by element.
Key = tuple[float, ...]


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and torch's generators."""
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def best_index(keys: Sequence[Key]) -> int:
    """The position of the kept epoch among ``keys``: the highest, the later among equals."""
    if not keys:
        raise ValueError("no epochs to choose from")
    best = 0
    for position, key in enumerate(keys):
        if key >= keys[best]:
            best = position
    return best


class BestEpoch:
    """The best-epoch loop's memory: offer each epoch's key and module, and restore the
    kept epoch's weights at the end (:func:`best_index`'s rule)."""

    def __init__(self) -> None:
        self.epoch = 0
        self.key: Key | None = None
        self.state: dict[str, torch.Tensor] = {}

    def offer(self, epoch: int, key: Key, module: nn.Module) -> bool:
        """Keep ``module``'s weights when ``key`` is at least the best so far."""
        if self.key is not None and key < self.key:
            return False
        self.epoch, self.key = epoch, key
        self.state = {name: t.detach().clone() for name, t in module.state_dict().items()}
        return True

    def restore(self, module: nn.Module) -> int:
        """Load the kept weights into ``module``; the kept epoch (ValueError before any)."""
        if self.key is None:
            raise ValueError("no epoch was offered")
        module.load_state_dict(self.state)
        return self.epoch
