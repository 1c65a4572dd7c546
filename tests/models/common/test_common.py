"""models.common: the one checkpoint header, card schema and best-epoch rule."""

from __future__ import annotations

import ast
import json
import sys

import numpy as np
import pytest
import torch
from torch import nn

from models.common.card import CARD_FIELDS, read_card, write_card
from models.common.checkpoint import (
    CheckpointError,
    content_hash,
    header,
    read_npz_checkpoint,
    read_torch_checkpoint,
    save_torch_checkpoint,
    write_npz_checkpoint,
)
from models.common.training import BestEpoch, best_index
from tests.support.paths import ROOT

MODELS = ROOT / "models"


def test_best_index_keeps_the_highest_key_and_the_later_among_equals():
    assert best_index([(0.8, -0.3), (0.9, -0.5), (0.9, -0.4), (0.7, 0.0)]) == 2
    assert best_index([(0.9,), (0.9,), (0.5,)]) == 1
    with pytest.raises(ValueError, match="no epochs"):
        best_index([])


def test_best_epoch_restores_the_kept_weights():
    layer = nn.Linear(2, 1)
    kept = BestEpoch()
    with pytest.raises(ValueError, match="no epoch was offered"):
        kept.restore(layer)
    for epoch, (key, value) in enumerate([((0.5,), 1.0), ((0.7,), 2.0), ((0.7,), 3.0), ((0.6,), 4.0)], 1):
        layer.weight.data.fill_(value)
        kept.offer(epoch, key, layer)
    assert kept.restore(layer) == 3
    assert torch.all(layer.weight == 3.0)


def test_torch_checkpoints_check_format_and_version(tmp_path):
    path = save_torch_checkpoint(tmp_path / "m.pt", {**header("pagesight-test", 2), "w": torch.ones(2)})
    assert not list(tmp_path.glob("*.partial"))
    assert read_torch_checkpoint(path, "pagesight-test", (1, 2), "test", "retrain")["w"].tolist() == [
        1.0,
        1.0,
    ]
    with pytest.raises(CheckpointError, match=r"format_version 2; this code reads 1; retrain"):
        read_torch_checkpoint(path, "pagesight-test", (1,), "test", "retrain")
    with pytest.raises(CheckpointError, match=r"is not a other checkpoint \(format 'pagesight-test'"):
        read_torch_checkpoint(path, "pagesight-other", (2,), "other", "retrain")
    with pytest.raises(CheckpointError, match=r"test checkpoint not found: .*gone\.pt; retrain"):
        read_torch_checkpoint(tmp_path / "gone.pt", "pagesight-test", (2,), "test", "retrain")
    (tmp_path / "bad.pt").write_bytes(b"not a zip")
    with pytest.raises(CheckpointError, match="is unreadable: it is truncated"):
        read_torch_checkpoint(tmp_path / "bad.pt", "pagesight-test", (2,), "test", "retrain")


def test_npz_checkpoints_check_format_and_version(tmp_path):
    path = write_npz_checkpoint(tmp_path / "m.npz", header("pagesight-test", 1), {"a": np.arange(3)})
    meta, arrays = read_npz_checkpoint(
        path, "pagesight-test", "a test", "retrain", CheckpointError, lambda m: ["a"], (1,)
    )
    assert meta["format_version"] == 1 and arrays["a"].tolist() == [0, 1, 2]
    with pytest.raises(CheckpointError, match="format_version 1; this code reads 2"):
        read_npz_checkpoint(
            path, "pagesight-test", "a test", "retrain", CheckpointError, lambda m: ["a"], (2,)
        )


def test_a_card_has_the_one_schema_and_the_file_hash(tmp_path):
    path = save_torch_checkpoint(tmp_path / "m.pt", header("pagesight-test", 1))
    common = dict(model="m", family="test", command="make m", data={"train": 3}, split={"by": "domain"})
    with pytest.raises(ValueError, match="must name denoiser"):
        write_card(path, **common, metrics={}, versions={"features": 1}, format_name="f", format_version=1)
    written = write_card(
        path,
        **common,
        metrics={"validation": {"f1": 0.9}},
        versions={"features": 1, "denoiser": "abc"},
        format_name="pagesight-test",
        format_version=1,
        extra={"notes": "x"},
    )
    card = read_card(path)
    assert written == tmp_path / "m.card.json" and json.loads(written.read_text()) == card
    assert list(card) == [*CARD_FIELDS, "notes"]
    assert card["checkpoint"]["sha256"] == content_hash(path)
    assert card["versions"]["denoiser"] == "abc" and card["versions"]["code"]


@pytest.mark.parametrize("model_file", sorted(MODELS.glob("*/model.py")), ids=lambda p: p.parent.name)
def test_a_family_model_imports_only_torch_numpy_and_models_common(model_file):
    """A family's network reads no crawler, pipeline or other family: the standard library,
    torch, numpy, models.common and its own family's pure modules only."""
    family = f"models.{model_file.parent.name}"
    allowed = ("torch", "torchvision", "numpy", "models.common", family)
    for node in ast.walk(ast.parse(model_file.read_text())):
        names = (
            [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else []
        )
        for name in names:
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or name.startswith(allowed), f"{model_file}: imports {name}"
