"""ResNet-101 transfer learning: the head, the frozen backbone, local-only weights."""

from __future__ import annotations

import pytest
import torch

from models.pagetype.model import (
    IMAGENET_WEIGHTS_FILE,
    PretrainedWeightsError,
    ResNet101Classifier,
    resolve_backbone_weights,
)


@pytest.fixture(scope="module")
def model() -> ResNet101Classifier:
    return ResNet101Classifier(num_classes=3)


def test_head_replaces_the_final_layer(model):
    assert isinstance(model.backbone.fc, torch.nn.Identity)
    dense = [layer for layer in model.head if isinstance(layer, torch.nn.Linear)]
    assert [(d.in_features, d.out_features) for d in dense] == [(2048, 1024), (1024, 3)]
    assert model(torch.zeros(2, 3, 32, 32)).shape == (2, 3)


def test_no_gradient_reaches_frozen_layers(model):
    model.train()
    batch_norms = [m for m in model.backbone.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    running_mean = batch_norms[0].running_mean.clone()
    loss = torch.nn.functional.cross_entropy(model(torch.randn(3, 3, 32, 32)), torch.tensor([0, 1, 2]))
    loss.backward()
    assert all(not p.requires_grad and p.grad is None for p in model.backbone.parameters())
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in model.head.parameters())
    assert not any(m.training for m in batch_norms)
    assert torch.equal(batch_norms[0].running_mean, running_mean)
    model.zero_grad()


def test_missing_imagenet_weights_name_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    with pytest.raises(PretrainedWeightsError) as error:
        resolve_backbone_weights("imagenet")
    message = str(error.value)
    assert IMAGENET_WEIGHTS_FILE == "resnet101-63fe2227.pth"
    assert str(tmp_path / "hub" / "checkpoints" / IMAGENET_WEIGHTS_FILE) in message
    assert "--weights PATH" in message and "none" not in message
    with pytest.raises(PretrainedWeightsError, match=r"resnet101-63fe2227\.pth"):
        resolve_backbone_weights(None)


def test_missing_explicit_weights_file_is_named(tmp_path):
    missing = tmp_path / "weights" / "r101.pth"
    with pytest.raises(PretrainedWeightsError, match=str(missing)):
        resolve_backbone_weights(str(missing))


def test_a_random_init_backbone_is_not_offered(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PretrainedWeightsError, match="weights file not found: none"):
        resolve_backbone_weights("none")


def test_weights_load_from_torchvision_cache_folder(model, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    cache = tmp_path / "hub" / "checkpoints"
    cache.mkdir(parents=True)
    # A torchvision ResNet-101 state dict: the fixture's backbone plus a 1000-class fc.
    reference = {name: tensor + 1 for name, tensor in model.backbone.state_dict().items()}
    reference.update({"fc.weight": torch.zeros(1000, 2048), "fc.bias": torch.zeros(1000)})
    torch.save(reference, cache / IMAGENET_WEIGHTS_FILE)
    path = resolve_backbone_weights("imagenet")
    assert path == cache / IMAGENET_WEIGHTS_FILE
    loaded = ResNet101Classifier(backbone_weights=path)
    assert torch.equal(loaded.backbone.conv1.weight, reference["conv1.weight"])
    assert torch.equal(loaded.backbone.layer4[2].bn3.running_var, reference["layer4.2.bn3.running_var"])


def test_unusable_weights_file_is_reported(tmp_path):
    bad = tmp_path / "resnet101-bad.pth"
    torch.save({"conv1.weight": torch.zeros(1)}, bad)
    with pytest.raises(PretrainedWeightsError, match="not a usable ResNet-101 state dict"):
        ResNet101Classifier(backbone_weights=bad)
