"""Training the vision element model: fit the head on the training domains, pick the epoch
on the validation domains, out-of-fold predictions for the training domains, and the
test report in the seed's terms.

Report (:func:`evaluate`), per split role: ROC AUC over ALL candidates that pass the size
filter (every negative, not sampled ones); per-class precision / recall / F1 when the
page's top-1 candidate is called "content" and the rest "other" (the seed's rule); top-1
accuracy per page (a page whose main element fails the size filter counts as wrong), and
the same where the pick's box overlaps the main element's with an intersection over union
of at least 0.5 (``top1_iou50``: the object-detection rule for a box drawn by hand, as the
seed's labels were; a wrapper or child with nearly the main element's text and box counts
as found); ``near_best``, the mean number of candidates per page whose word F1 is within
0.02 of the best one's (why an exact top-1 is ill-posed on auto-annotated pages); the
share of candidates below the screenshot's cut; word F1 of the chosen element's shown
text against the gold; and the share of pages whose main element passes the filter.

Also the word F1 of the pick from the annotation's token counts (``pick_f1``, what the
epoch is chosen by) and of the best candidate that passes the filter (``best_f1``, the
ceiling of any single-element pick).

Configs (:data:`CONFIGS`): ``shipped`` (head over pooled backbone features, box geometry,
the box's text from the capture, its relations to parent, children and page and the
element classifier's features of the same element, trained with the main element as the
one positive), ``no-pixels`` (the same without the screenshot: what the pixels add),
``graded`` (the head shipped until session 18: no element features, graded targets),
``main-only`` (the head before it: the main element as the one positive, no relations),
``neighbours`` (graded, with relations, hidden 64, and one
message-passing step along the tree: :class:`BoxHead`), ``no-text`` (geometry only:
pixels and boxes), ``seed`` (the seed's network on sampled candidates, for comparison;
``seed-301`` the same at a third of the input size on 60 training and 60 held-out pages).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np
import torch
from torch.nn import functional

from models.common.card import write_card
from models.common.splits import HELDOUT, TRAIN, VALIDATION
from models.common.training import BestEpoch
from models.common.versions import denoiser_version
from models.element.data import FEATURES_VERSION, TrainingPage
from models.vision_element.checkpoint import FORMAT, load_checkpoint, save_checkpoint
from models.vision_element.data import VisionPage, decode_screenshot, seed_pixels
from models.vision_element.model import (
    BoxHead,
    SeedElementCNN,
    box_relations,
    head_inputs,
    kept_parents,
    seed_mask,
    size_mask,
    text_context,
)
from pipelines.artifacts import read_artifact
from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.text import tokens
from pipelines.extraction.element_classifier import element_text
from pipelines.extraction.element_features import ALL_FEATURES
from pipelines.extraction.vision_element import MIN_SIDE

#: A pick counts as the main element in ``top1_iou50`` at this intersection over union.
TOP1_IOU = 0.5
#: ``near_best`` counts the candidates within this word F1 of the page's best.
NEAR_BEST = 0.02


@dataclass(frozen=True)
class VisionConfig:
    """What a training run depends on (stored in the checkpoint)."""

    model: str = "head"  # "head" (shipped design) or "seed"
    text: bool = True
    hidden: int = 64
    dropout: float = 0.3
    epochs: int = 30
    lr: float = 1e-3
    weight_decay: float = 1e-4
    pages_per_batch: int = 16
    min_side: float = MIN_SIDE
    seed_size: int = 905
    seed_negatives: int = 4
    seed_pages: int = 0  # 0: all training pages
    tau: float = 0.0  # > 0: graded targets, softmax(F1 / tau) over the page (batch_loss); 0: the main only
    relations: bool = False  # the head also takes box_relations
    neighbours: bool = False  # the head's last layer also sees the parent's and children's (BoxHead)
    pixels: bool = True  # False: the ablation without the screenshot (no trunk map)
    element_features: bool = False  # the head also reads the element classifier's ALL_FEATURES


CONFIGS = {
    "shipped": VisionConfig(relations=True, hidden=128, element_features=True),
    "no-pixels": VisionConfig(relations=True, hidden=128, element_features=True, pixels=False),
    "graded": VisionConfig(tau=0.1, relations=True, hidden=128),
    "main-only": VisionConfig(),
    "neighbours": VisionConfig(tau=0.1, relations=True, neighbours=True),
    "no-text": VisionConfig(text=False),
    "seed": VisionConfig(model="seed", dropout=0.5, epochs=3, lr=1e-3),
    # The seed's network at a third of its input size on 60 pages: what 2 CPU cores afford.
    "seed-301": VisionConfig(model="seed", dropout=0.5, epochs=2, lr=1e-3, seed_size=301, seed_pages=60),
}


@dataclass
class PageRows:
    """One page's candidates after the size filter: head input rows, labels, where they sit."""

    page: VisionPage
    keep: list[int]  # indices into page.paths
    rows: torch.Tensor
    positive: int | None  # index into keep
    below_cut: torch.Tensor
    f1s: torch.Tensor  # the kept candidates' word F1 against the gold (graded targets)
    parents: torch.Tensor  # each kept candidate's nearest kept ancestor (kept_parents)


def page_rows(page: VisionPage, config: VisionConfig) -> PageRows:
    """Pool the page's cached trunk map over its candidates that pass the size filter."""
    keep = torch.nonzero(size_mask(page.boxes, config.min_side)).flatten().tolist()
    boxes, text_lens = page.boxes[keep], page.text_lens[keep]
    context = text_context(page.paths, page.text_lens)[keep]
    relations = box_relations(page.paths, page.boxes, page.text_lens)[keep] if config.relations else None
    elements = page.element_columns(element_features(config))[keep] if config.element_features else None
    rows = head_inputs(
        page.hidden if config.pixels else None,
        boxes,
        text_lens,
        context,
        page.cell_px,
        page.cut,
        page.page_width,
        config.text,
        relations,
        elements,
    )
    positive = page.positive
    return PageRows(
        page,
        keep,
        rows,
        keep.index(positive) if positive in keep else None,
        boxes[:, 1] >= page.cut,
        page.f1s[keep],
        kept_parents(page.paths, keep),
    )


def element_features(config: VisionConfig) -> tuple[str, ...]:
    """The element-classifier features a head of ``config`` reads."""
    return ALL_FEATURES if config.element_features else ()


def head_args(config: VisionConfig) -> dict[str, Any]:
    """The head's constructor arguments for ``config`` (stored in the checkpoint)."""
    return {
        "hidden": config.hidden,
        "dropout": config.dropout,
        "text": config.text,
        "relations": config.relations,
        "neighbours": config.neighbours,
        "pixels": config.pixels,
        "element_features": list(element_features(config)),
    }


def min_side_coverage(pages: Iterable[VisionPage], min_side: float) -> float:
    """Share of the pages (with an annotated main candidate) whose main element is at least
    ``min_side`` px wide and high."""
    kept = []
    for page in pages:
        index = page.positive
        if index is None:
            continue
        kept.append(bool(size_mask(page.boxes[index : index + 1], min_side)))
    return fmean(kept) if kept else 0.0


def fit_head(
    train: list[PageRows],
    validation: list[PageRows],
    config: VisionConfig,
    seed: int,
    epochs: int | None = None,
    progress: Callable[..., Any] = iter,
) -> tuple[BoxHead, int]:
    """Train the head on ``train`` (pages with a positive, or with graded targets a
    candidate of some F1); keep the epoch with the best validation word F1 of the pick
    (from the annotation's counts: ``pick_f1``), or train exactly ``epochs``; returns
    (head, epochs)."""
    torch.manual_seed(seed)
    rng = random.Random(seed)
    if config.tau > 0:
        pages = [p for p in train if len(p.keep) > 0 and float(p.f1s.max()) > 0]
    else:
        pages = [p for p in train if p.positive is not None and len(p.keep) > 0]
    head = BoxHead(**head_args(config))
    if pages:
        head.fit_element_scaling(torch.cat([p.rows for p in pages]))
    optimizer = torch.optim.AdamW(head.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    selection = BestEpoch()
    for epoch in progress(range(1, (epochs or config.epochs) + 1)):
        head.train()
        rng.shuffle(pages)
        for start in range(0, len(pages), config.pages_per_batch):
            batch = pages[start : start + config.pages_per_batch]
            optimizer.zero_grad()
            loss = batch_loss(head, batch, config.tau)
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
        if epochs is None and validation:
            selection.offer(
                epoch, (fmean(r["pick_f1"] for r in (predict_page(head, p) for p in validation)),), head
            )
    if selection.key is not None:
        return head.eval(), selection.restore(head)
    return head.eval(), epochs or config.epochs


def batch_loss(head: BoxHead, batch: list[PageRows], tau: float = 0.0) -> torch.Tensor:
    """Mean over pages of a listwise softmax cross-entropy over the page's candidates, plus
    the candidates' binary cross-entropy (so that scores compare across pages: AUC). With
    ``tau`` 0 the target is the main candidate alone (BCE target 1 for it, 0 for the rest);
    with ``tau`` > 0 it is graded: softmax(F1 / tau) of the candidates' word F1 against the
    gold (BCE target: the F1), so a wrapper or child of the main element with nearly its
    text costs little and a menu costs much. One head call for the whole batch."""
    offsets = torch.cumsum(torch.tensor([0] + [len(rows.keep) for rows in batch[:-1]]), dim=0)
    parents = torch.cat(
        [
            torch.where(rows.parents >= 0, rows.parents + offset, -1)
            for rows, offset in zip(batch, offsets, strict=True)
        ]
    )
    logits = head(torch.cat([rows.rows for rows in batch]), parents)
    targets = torch.zeros_like(logits)
    losses, start = [], 0
    for rows in batch:
        page = logits[start : start + len(rows.keep)]
        if tau > 0:
            targets[start : start + len(rows.keep)] = rows.f1s
            wanted = torch.softmax(rows.f1s / tau, dim=0)
        else:
            assert rows.positive is not None
            targets[start + rows.positive] = 1
            wanted = functional.one_hot(torch.tensor(rows.positive), len(rows.keep)).float()
        losses.append(-(wanted * functional.log_softmax(page, dim=0)).sum())
        start += len(rows.keep)
    return torch.stack(losses).mean() + functional.binary_cross_entropy_with_logits(logits, targets)


def box_iou(first: torch.Tensor, second: torch.Tensor) -> float:
    """Intersection over union of two (x, y, w, h) boxes."""
    x1, y1 = torch.maximum(first[:2], second[:2]).tolist()
    x2, y2 = torch.minimum(first[:2] + first[2:], second[:2] + second[2:]).tolist()
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    union = float(first[2] * first[3] + second[2] * second[3]) - inter
    return inter / union if union > 0 else 0.0


def predict_page(head: BoxHead, rows: PageRows) -> dict[str, Any]:
    """The page's head scores and its top-1 candidate against the main element."""
    with torch.no_grad():
        scores = torch.sigmoid(head(rows.rows, rows.parents)) if rows.keep else torch.zeros(0)
    return page_record(rows, scores)


def page_record(rows: PageRows, scores: torch.Tensor) -> dict[str, Any]:
    """A page's candidate scores and its top-1 candidate against the main element."""
    best = int(torch.argmax(scores)) if rows.keep else None
    page = rows.page
    main = page.positive
    overlap = (
        box_iou(page.boxes[rows.keep[best]], page.boxes[main])
        if best is not None and main is not None
        else 0.0
    )
    return {
        "file_id": page.file_id,
        "url": page.url,
        "domain": page.domain,
        "page_type": page.page_type,
        "role": page.role,
        "fold": page.fold,
        "path": page.paths[rows.keep[best]] if best is not None else None,
        "score": round(float(scores[best]), 6) if best is not None else None,
        "main_path": page.main_path,
        "correct": best is not None and best == rows.positive,
        "pick_f1": float(rows.f1s[best]) if best is not None else 0.0,
        "best_f1": float(rows.f1s.max()) if best is not None else 0.0,
        "iou_main": overlap,
        "near_best": int((rows.f1s >= rows.f1s.max() - NEAR_BEST).sum()) if best is not None else 0,
        "scores": scores.tolist(),
        "labels": [int(i == rows.positive) for i in range(len(rows.keep))],
        "below_cut": rows.below_cut.tolist(),
        "main_kept": rows.positive is not None,
    }


def with_text(record: dict[str, Any], page: TrainingPage | None) -> dict[str, Any]:
    """Add the chosen element's shown text and its word F1 against the gold."""
    if page is None or record["path"] is None:
        record.update(text="", f1=0.0)
        return record
    html, boxes = page.capture.read()
    text = element_text(html, boxes, record["path"], page.capture.url) or ""
    record.update(text=text, f1=word_prf(tokens(text), tokens(page.gold_text)).f1)
    return record


def evaluate(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The seed's measures over prediction records (see the module docstring), overall
    and per page type."""
    from sklearn.metrics import precision_recall_fscore_support, roc_auc_score

    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        groups["overall"].append(record)
        groups[record["page_type"]].append(record)
    summary = {}
    for name, members in sorted(groups.items()):
        scores = [s for r in members for s in r["scores"]]
        labels = [y for r in members for y in r["labels"]]
        top1 = [int(i == np.argmax(r["scores"])) for r in members for i in range(len(r["scores"]))]
        row: dict[str, Any] = {
            "pages": len(members),
            "candidates": len(labels),
            "top1": round(fmean(r["correct"] for r in members), 4),
            "top1_iou50": round(fmean(r["iou_main"] >= TOP1_IOU for r in members), 4),
            "near_best": round(fmean(r["near_best"] for r in members), 2),
            "main_kept": round(fmean(r["main_kept"] for r in members), 4),
            "below_cut": round(fmean(b for r in members for b in r["below_cut"]), 4) if labels else 0.0,
            "pick_f1": round(fmean(r["pick_f1"] for r in members), 4),
            "best_f1": round(fmean(r["best_f1"] for r in members), 4),
        }
        if 0 < sum(labels) < len(labels):
            row["auc"] = round(float(roc_auc_score(labels, scores)), 4)
            p, r, f, _ = precision_recall_fscore_support(labels, top1, labels=[1, 0], zero_division=0)
            row["content"] = {
                "precision": round(float(p[0]), 4),
                "recall": round(float(r[0]), 4),
                "f1": round(float(f[0]), 4),
            }
            row["other"] = {
                "precision": round(float(p[1]), 4),
                "recall": round(float(r[1]), 4),
                "f1": round(float(f[1]), 4),
            }
        measured = [r["f1"] for r in members if "f1" in r]
        if measured:
            row["word_f1"] = round(fmean(measured), 4)
        summary[name] = row
    return summary


@dataclass
class TrainResult:
    metrics: dict[str, Any]
    oof: list[dict[str, Any]]
    checkpoint: Path | None = None
    notes: dict[str, Any] = field(default_factory=dict)

    def report(self) -> str:
        lines = [f"{k}: {v}" for k, v in self.notes.items()]
        for part, summary in self.metrics.items():
            for group, row in summary.items():
                cells = ", ".join(f"{k} {v}" for k, v in row.items())
                lines.append(f"{part:<10} {group:<14} {cells}")
        return "\n".join(lines)


def oof_line(record: dict[str, Any]) -> dict[str, Any]:
    """An out-of-fold record for the ensemble (no per-candidate arrays)."""
    keys = (
        "file_id",
        "url",
        "domain",
        "page_type",
        "fold",
        "path",
        "score",
        "main_path",
        "correct",
        "text",
        "f1",
    )
    return {k: record[k] for k in keys if k in record}


def train_vision_element(
    pages: list[VisionPage],
    training_pages: list[TrainingPage],
    config: VisionConfig,
    folds: int,
    seed: int,
    progress: Callable[..., Any] = lambda items, **_: items,
    checkpoint: Path | None = None,
    device: torch.device = torch.device("cpu"),
) -> TrainResult:
    """Fit, measure on validation and held-out domains, OOF over the training folds, and
    save the checkpoint (head configs) to ``checkpoint``. ``device`` runs the seed's
    network; the head is small and trains on the CPU."""
    if config.model == "seed":
        return train_seed(pages, training_pages, config, seed, progress, device)
    by_id = {p.file_id: p for p in training_pages}
    rows = {p.file_id: page_rows(p, config) for p in progress(pages, desc="pool candidates", unit="page")}
    train = [r for r in rows.values() if r.page.role == TRAIN]
    validation = [r for r in rows.values() if r.page.role == VALIDATION]
    head, epochs = fit_head(train, validation, config, seed, progress=lambda xs: progress(xs, desc="epochs"))
    metrics: dict[str, Any] = {}
    for role in (VALIDATION, HELDOUT):
        records = [
            with_text(predict_page(head, r), by_id.get(r.page.file_id))
            for r in rows.values()
            if r.page.role == role
        ]
        if records:
            metrics[role] = evaluate(records)
    oof: list[dict[str, Any]] = []
    for fold in progress(range(folds), desc="out-of-fold"):
        held = [r for r in train if r.page.fold == fold]
        rest = [r for r in train if r.page.fold not in (None, fold)]
        if not held or not rest:
            continue
        fold_head, _ = fit_head(rest, [], config, seed, epochs=epochs)
        oof += [with_text(predict_page(fold_head, r), by_id.get(r.page.file_id)) for r in held]
    if oof:
        metrics["oof"] = evaluate(oof)
    notes = {
        "epochs": epochs,
        "pages": {
            role: sum(r.page.role == role for r in rows.values()) for role in (TRAIN, VALIDATION, HELDOUT)
        },
        "min_side": config.min_side,
        "main_kept_train": round(
            min_side_coverage([p for p in pages if p.role == TRAIN], config.min_side), 4
        ),
        "main_kept_all": round(min_side_coverage(pages, config.min_side), 4),
    }
    result = TrainResult(metrics, [oof_line(r) for r in oof], None, notes)
    if checkpoint is not None:
        meta = {
            "config": asdict(config),
            "metrics": metrics,
            "notes": notes,
            "split": "models/splits/wcxb-dev.json",
            "trained_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "seed": seed,
        }
        result.checkpoint = save_checkpoint(checkpoint, head, head_args(config), meta)
    return result


def seed_batch(
    pixels: torch.Tensor, page_size: tuple[int, int], boxes: torch.Tensor, size: int
) -> torch.Tensor:
    """The seed's inputs for ``boxes`` of one page, in [0, 1]: the page's RGB channels
    (:func:`seed_pixels`, on the device the batch is made on) with each box's mask."""
    rgb = pixels.float() / 255
    return torch.stack(
        [torch.cat([rgb, seed_mask(box, page_size, size, pixels.device)]) for box in boxes.tolist()]
    )


def train_seed(
    pages: list[VisionPage],
    training_pages: list[TrainingPage],
    config: VisionConfig,
    seed: int,
    progress: Callable[..., Any],
    device: torch.device = torch.device("cpu"),
) -> TrainResult:
    """The seed's recipe for comparison: per training page its main candidate and
    ``seed_negatives`` random others (after the size filter), RMSprop, binary
    cross-entropy, one page a step; measured over all candidates of the held-out pages.
    Each training page's screenshot is decoded and resized once (kept as uint8: 2.4 MB a
    page at 905 px). Not saved."""
    rng = random.Random(seed)
    torch.manual_seed(seed)
    by_id = {p.file_id: p for p in training_pages}
    size = config.seed_size

    def pixels_of(page: VisionPage) -> tuple[torch.Tensor, tuple[int, int]]:
        capture = by_id[page.file_id].capture
        assert capture.screenshot is not None  # encoded pages have one
        image = decode_screenshot(read_artifact(capture.screenshot["uri"]))
        return seed_pixels(image, size).to(device), image.size

    training_pixels: dict[str, tuple[torch.Tensor, tuple[int, int]]] = {}

    rows = [page_rows(p, config) for p in pages]
    train = [r for r in rows if r.page.role == TRAIN and r.positive is not None]
    if config.seed_pages:
        train = rng.sample(train, min(config.seed_pages, len(train)))
    model = SeedElementCNN(size, config.dropout).to(device)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=config.lr)
    for _ in progress(range(config.epochs), desc="epochs"):
        model.train()
        rng.shuffle(train)
        for r in progress(train, desc="pages", leave=False):
            assert r.positive is not None
            others = [i for i in range(len(r.keep)) if i != r.positive]
            picked = [r.positive, *rng.sample(others, min(config.seed_negatives, len(others)))]
            if r.page.file_id not in training_pixels:
                training_pixels[r.page.file_id] = pixels_of(r.page)
            pixels, page_size = training_pixels[r.page.file_id]
            x = seed_batch(pixels, page_size, r.page.boxes[[r.keep[i] for i in picked]], size)
            target = torch.tensor([1.0] + [0.0] * (len(picked) - 1), device=device)
            optimizer.zero_grad()
            loss = functional.binary_cross_entropy_with_logits(model(x), target)
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
    model.eval()
    held = [r for r in rows if r.page.role == HELDOUT]
    if config.seed_pages:
        held = rng.sample(held, min(config.seed_pages, len(held)))
    records = []
    for r in progress(held, desc="held-out pages"):
        pixels, page_size = pixels_of(r.page)
        boxes = r.page.boxes[r.keep]
        with torch.no_grad():
            logits = torch.cat(
                [torch.zeros(0)]
                + [
                    model(seed_batch(pixels, page_size, boxes[start : start + 16], size)).cpu()
                    for start in range(0, len(r.keep), 16)
                ]
            )
        records.append(with_text(page_record(r, torch.sigmoid(logits)), by_id.get(r.page.file_id)))
    return TrainResult(
        {HELDOUT: evaluate(records)},
        [],
        None,
        {"seed_pages": len(train), "size": size, "device": str(device)},
    )


def card_model(args: dict[str, Any]) -> str:
    """What a head of these constructor ``args`` reads, in words (the model card's)."""
    inputs = ["frozen EfficientNet-Lite0 features once per page, each candidate box pooled over them"]
    if not args.get("pixels", True):
        inputs = ["no pixels (the ablation)"]
    inputs.append("box geometry" + (" and text" if args.get("text", True) else ""))
    if args.get("relations"):
        inputs.append("relations to parent / children / page")
    if args.get("element_features"):
        inputs.append(f"the element classifier's {len(args['element_features'])} features of the element")
    return (
        "vision element (seed 000), shared-pass variant: "
        + " + ".join(inputs)
        + " -> MLP head; argmax per page"
    )


def vision_versions() -> dict[str, Any]:
    """The versions a vision element head trained now is trained with (its card's
    ``versions``): its element features' (the element classifier's) and the denoiser's."""
    return {"features": FEATURES_VERSION, "denoiser": denoiser_version(), "torch": torch.__version__}


def write_vision_card(
    checkpoint: Path,
    command: str,
    versions: dict[str, Any],
    date: str | None = None,
    restamped: dict[str, Any] | None = None,
) -> Path:
    """The model card (:mod:`models.common.card`'s schema) beside the checkpoint: design,
    data, split, metrics, command and the versions it was trained with; with ``restamped``
    (:mod:`models.vision_element.restamp`), that section too."""
    _, _, saved = load_checkpoint(checkpoint)
    return write_card(
        checkpoint,
        model=card_model(saved["args"]),
        family="vision_element",
        command=command,
        date=date or saved["trained_at"],
        data="WCXB dev captures (scrapy capture-dataset --wcxb)",
        split="models/splits/wcxb-dev.json: fit on train domains, epoch by validation word F1 of the "
        "pick (annotation counts), OOF over the train folds, reported on held-out domains",
        metrics=saved["metrics"],
        versions=versions,
        format_name=FORMAT,
        format_version=saved["format_version"],
        extra={
            "backbone": saved["backbone"],
            "head_args": saved["args"],
            "labels": (
                "graded: each candidate's word F1 against the gold from the auto-annotation's token counts "
                f"(models/common/annotation.py), listwise target softmax(F1 / {saved['config']['tau']}) plus "
                "BCE on the F1; top-1 is counted against the annotation's main element"
                if saved["config"].get("tau", 0) > 0
                else "one positive per page: the auto-annotation's main element (models/common/annotation.py)"
            ),
            **{k: saved[k] for k in ("config", "notes", "seed")},
            **({"restamped": restamped} if restamped is not None else {}),
        },
    )
