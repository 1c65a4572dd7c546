"""LeNet-5 as the paper configures it."""

from __future__ import annotations

import pytest
import torch

from models.pagetype.model import LeNet5, lenet5_flat_features


def test_paper_configuration_flattens_46656_features():
    model = LeNet5()
    convs = [layer for layer in model.features if isinstance(layer, torch.nn.Conv2d)]
    assert [(c.in_channels, c.out_channels, c.kernel_size, c.stride) for c in convs] == [
        (1, 6, (3, 3), (1, 1)),
        (6, 16, (3, 3), (1, 1)),
    ]
    features = model.features(torch.zeros(2, 1, 224, 224))
    assert features.shape == (2, 46_656) == (2, lenet5_flat_features(224))
    dense = [layer for layer in model.classifier if isinstance(layer, torch.nn.Linear)]
    assert [(d.in_features, d.out_features) for d in dense] == [(46_656, 120), (120, 84), (84, 2)]
    assert model(torch.zeros(2, 1, 224, 224)).shape == (2, 2)


def test_other_input_sizes_and_class_counts():
    model = LeNet5(num_classes=7, input_size=64)
    assert lenet5_flat_features(64) == 16 * 14 * 14
    assert model(torch.zeros(3, 1, 64, 64)).shape == (3, 7)


def test_too_small_input_is_refused():
    with pytest.raises(ValueError, match="at least 10 px"):
        LeNet5(input_size=8)
