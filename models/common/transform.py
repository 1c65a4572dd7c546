"""The one screenshot transform, shared by training and inference.

A full-page screenshot is tall (1366 px wide, up to thousands of pixels high). The
classifier looks at the part a reader sees first: the top square of the page.

1. Crop the top ``width × width`` square; a page shorter than its width is padded at the
   bottom with white (the usual page background).
2. Resize the square to ``input_size × input_size`` (Pillow bilinear, antialiased).
3. For grayscale models (LeNet-5) convert to one channel (Pillow's ITU-R 601-2 luma).
4. Scale to [0, 1] and normalize per channel: grayscale with mean 0.5 / std 0.5 (values in
   [-1, 1]); RGB with the ImageNet mean/std that torchvision's pretrained ResNet-101
   expects, or EfficientNet-Lite's ``(rgb255 - 127) / 128``.

:func:`open_screenshot` decodes only the rows of a PNG the transform uses, which makes
decoding a tall screenshot about ten times faster; the result is pixel-identical to
decoding the whole file and cropping.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image, PngImagePlugin

TRANSFORM_NAME = "top-square"
PAD_VALUE = 255
GRAY_MEAN = (0.5,)
GRAY_STD = (0.5,)
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
#: EfficientNet-Lite's input scale, (rgb255 - 127) / 128, as a mean/std on [0, 1] values.
LITE_MEAN = (127 / 255,) * 3
LITE_STD = (128 / 255,) * 3
#: Named normalizations of RGB input; grayscale input always uses GRAY_MEAN/GRAY_STD.
RGB_NORMALIZATIONS = {"imagenet": (IMAGENET_MEAN, IMAGENET_STD), "efficientnet-lite": (LITE_MEAN, LITE_STD)}


def normalization(grayscale: bool, rgb: str = "imagenet") -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Per-channel (mean, std) applied by :func:`screenshot_transform`."""
    if grayscale:
        return GRAY_MEAN, GRAY_STD
    try:
        return RGB_NORMALIZATIONS[rgb]
    except KeyError:
        raise ValueError(
            f"unknown RGB normalization {rgb!r} (known: {', '.join(RGB_NORMALIZATIONS)})"
        ) from None


def open_screenshot(source: bytes | str | Path) -> Image.Image:
    """Open a screenshot (PNG bytes or a file path), decoding only its top square.

    A non-interlaced PNG taller than it is wide is decoded down to row ``width`` only;
    any other image is decoded whole. Either way the transform sees the same pixels.
    """
    image = Image.open(io.BytesIO(source) if isinstance(source, bytes) else source)
    width, height = image.size
    if (
        isinstance(image, PngImagePlugin.PngImageFile)
        and height > width
        and not image.info.get("interlace")
        and not image.is_animated
        and len(image.tile) == 1
    ):
        # Pillow decodes a tile row by row and stops at the tile's extents, so shrinking
        # the extents to the top square leaves the rest of the file unread.
        image._size = (width, width)
        image.tile = [image.tile[0]._replace(extents=(0, 0, width, width))]
    image.load()
    return image


def screenshot_transform(
    image: Image.Image, input_size: int, grayscale: bool, rgb: str = "imagenet"
) -> torch.Tensor:
    """Turn a screenshot into a normalized ``(C, input_size, input_size)`` float tensor.

    C is 1 when ``grayscale`` else 3; ``rgb`` names the RGB normalization. See the
    module docstring for the steps.
    """
    if input_size < 1:
        raise ValueError(f"input_size must be positive, got {input_size}")
    if image.mode != "RGB":
        image = image.convert("RGB")
    width, height = image.size
    square = image.crop((0, 0, width, min(width, height)))
    if height < width:
        padded = Image.new("RGB", (width, width), (PAD_VALUE,) * 3)
        padded.paste(square, (0, 0))
        square = padded
    resized = square.resize((input_size, input_size), Image.Resampling.BILINEAR)
    if grayscale:
        resized = resized.convert("L")
    array = np.asarray(resized, dtype=np.float32) / 255.0
    if array.ndim == 2:
        array = array[:, :, None]
    mean, std = normalization(grayscale, rgb)
    array -= np.asarray(mean, dtype=np.float32)  # in place: a fresh float32 array
    array /= np.asarray(std, dtype=np.float32)
    return torch.from_numpy(np.ascontiguousarray(array.transpose(2, 0, 1)))


@dataclass(frozen=True)
class ScreenshotTransform:
    """:func:`screenshot_transform` bound to a model's input size and color mode;
    its :meth:`to_dict` is what a checkpoint records."""

    input_size: int
    grayscale: bool
    #: RGB normalization (:data:`RGB_NORMALIZATIONS`); ignored for grayscale.
    rgb: str = "imagenet"

    def __call__(self, image: Image.Image) -> torch.Tensor:
        return screenshot_transform(image, self.input_size, self.grayscale, self.rgb)

    def to_dict(self) -> dict[str, Any]:
        """Plain description of the transform, stored in checkpoints and model cards."""
        mean, std = normalization(self.grayscale, self.rgb)
        return {
            "name": TRANSFORM_NAME,
            "input_size": self.input_size,
            "grayscale": self.grayscale,
            "resample": "bilinear",
            "pad_value": PAD_VALUE,
            "rgb": self.rgb,
            "mean": list(mean),
            "std": list(std),
        }

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> ScreenshotTransform:
        """Rebuild a transform from :meth:`to_dict`'s output; ValueError when the spec
        describes a transform this code does not implement."""
        try:
            transform = cls(
                input_size=int(spec["input_size"]),
                grayscale=bool(spec["grayscale"]),
                rgb=str(spec.get("rgb", "imagenet")),
            )
            normalization(transform.grayscale, transform.rgb)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"transform spec needs input_size and grayscale: {spec!r}") from exc
        expected = transform.to_dict()
        differing = sorted(key for key in expected if key in spec and spec[key] != expected[key])
        if differing:
            raise ValueError(
                f"transform spec differs from the implemented {TRANSFORM_NAME!r} transform in "
                f"{', '.join(differing)}: got {spec!r}, implemented {expected!r}"
            )
        return transform


#: The EfficientNet-Lite0 trunk's input: the top square in RGB at 224 px (PageNet's
#: screenshot branch and the vision element model read the same encoding).
INPUT_SIZE = 224
SCREENSHOT_TRANSFORM = ScreenshotTransform(INPUT_SIZE, grayscale=False, rgb="efficientnet-lite")
