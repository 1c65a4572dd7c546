"""Training BoilerNet on annotated WCXB dev (``scrapy train-boilernet``).

Pages come from :mod:`models.common.wcxb_pages` (raw HTML or captures), leaf labels from
:mod:`models.common.annotation`, domains from the one split (:mod:`models.common.splits`): the model
trains on the train domains, picks its best epoch by leaf F1 (content class) on the
validation domains and calibrates its threshold and the form rule there (best mean page
word F1), and
reports on the held-out domains. With ``seeds`` K > 1 it trains K networks (seeds
``seed`` .. ``seed`` + K - 1, each picking its own epoch) and ships them as one seed
ensemble: their per-leaf probabilities are averaged, and the threshold and form rule are
calibrated for that mean. Out-of-fold predictions for the training domains (a
cheaper model, or ensemble, per fold, trained on the other four) go to a JSONL file for the ensemble;
they can be written fold by fold (``oof_folds``, ``oof_only``: no final model) to keep
each job short on a shared CPU.

Training runs on windows of ``window`` consecutive leaves (long pages are cut), in
batches of ``batch_size``; prediction runs on whole pages. Loss: binary cross-entropy
with balanced class weights (the seed's) or each leaf weighted by its token count (a
word-level loss, nearer the page word F1 the extractor is judged by); Adam.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import pickle
import random
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

import torch
from torch import nn
from tqdm import tqdm

from models.boilernet.card import boilernet_versions, write_boilernet_card
from models.boilernet.checkpoint import load_boilernet, save_boilernet
from models.boilernet.data import (
    FEATURES,
    FLAGS,
    REPETITION_FEATURES,
    IawceMarks,
    Vocabulary,
    ancestor_tags,
    attribute_words,
    iawce_marks,
    leaf_features,
    leaf_flags,
    repetition_rows,
)
from models.boilernet.model import BoilerNet, BoilerNetConfig, EncodedPage, LeafBatch, predict, predict_mean
from models.common.annotation import annotate
from models.common.splits import HELDOUT, TRAIN, VALIDATION, DomainSplit, load_split
from models.common.training import BestEpoch, best_index
from models.common.wcxb_pages import GoldPage, read_gold_pages
from models.pagetype.labels import default_label_mapping
from pipelines.evaluation.metrics import PRF, word_prf
from pipelines.evaluation.scoring import extraction_page_type
from pipelines.evaluation.text import tokens
from pipelines.extraction.denoise import denoiser_fingerprint, unwrap_script_fallback
from pipelines.extraction.dom import body_of, parse_html

logger = logging.getLogger(__name__)

#: What a page's leaves are, recorded in the --prepared cache (a cache of other leaves is
#: prepared again): 2 = the text leaves after the script fallback's unwrap
#: (:func:`~pipelines.extraction.denoise.unwrap_script_fallback`); caches without it had none.
LEAVES_VERSION = 2

#: Candidate thresholds for the calibration on validation.
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(1, 20))


@dataclass
class BoilerNetTrainConfig:
    data: Path
    #: The checkpoint to write (None only with ``oof_only``).
    out: Path | None
    gold: Path | None = None
    oof: Path | None = None
    words: int = 1000
    tags: int = 50
    #: Concatenate the leaves' numeric features (FEATURES) to the Dense input (not the seed's).
    leaf_features: bool = False
    #: With ``leaf_features``, add the leaves' repetition features (REPETITION_FEATURES).
    repetition: bool = False
    #: Size of the class/id attribute-word vocabulary (0: no attribute bag, the seed's input).
    attributes: int = 0
    #: The 0/1 leaf flags (of FLAGS) added to the Dense input (none: the seed's input).
    flags: tuple[str, ...] = ()
    #: Loss weights: "balanced" classes (the seed's), "tokens" (each leaf by its tokens) or
    #: "page-tokens" (each leaf by its share of its page's tokens).
    loss_weights: str = "balanced"
    #: Weight of a soft word-F1 term added to the BCE (:func:`soft_f1_loss`; 0: none).
    f1_loss: float = 0.0
    #: The epoch kept: best validation "leaf-f1" (content leaves, the seed's) or "word-f1".
    select: str = "leaf-f1"
    dense: int = 256
    hidden: int = 256
    epochs: int = 8
    fold_epochs: int = 3
    batch_size: int = 16
    lr: float = 1e-3
    window: int = 256
    threads: int = 1
    seed: int = 0
    #: Networks trained with seeds seed .. seed + seeds - 1 and averaged (1: one network).
    seeds: int = 1
    limit: int = 0
    #: The folds whose out-of-fold predictions ``oof`` gets (empty: all).
    oof_folds: tuple[int, ...] = ()
    #: Write the out-of-fold predictions only (no final model, no checkpoint).
    oof_only: bool = False
    #: The command line that trained it, for the model card.
    command: str = ""
    #: A pickle of the labelled pages: read when it exists, else written (saves the
    #: annotation on later runs over the same data).
    prepared: Path | None = None
    progress: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {k: str(v) if isinstance(v, Path) else v for k, v in asdict(self).items() if k != "progress"}


@dataclass
class LabelledPage:
    """One page ready for training: its leaves (tokens, ancestor tags), labels, which
    leaves sit in a form, its gold tokens, its leaves' numeric features (a float tensor,
    leaves × :data:`FEATURES`), attribute words and iawce's marks of its leaves (``None``
    in a cache prepared before them)."""

    file_id: str
    domain: str
    page_type: str
    role: str
    fold: int | None
    source: str
    leaves: list[tuple[tuple[str, ...], list[str]]]
    labels: list[int]
    in_form: list[bool]
    gold: list[str]
    features: torch.Tensor | None = field(default=None, repr=False)
    attributes: list[tuple[str, ...]] | None = field(default=None, repr=False)
    marks: IawceMarks | None = field(default=None, repr=False)
    encoded: EncodedPage | None = field(default=None, repr=False)

    @property
    def given_type(self) -> str:
        """The page type an extractor is given for this page: its WCXB type through the
        default label mapping (article or list), as in ``benchmarks/extract.py``."""
        return given_page_type(self.page_type)

    @property
    def network_input(self) -> EncodedPage:
        """The encoded leaves (:func:`encode` sets them before a network sees the page)."""
        if self.encoded is None:
            raise ValueError(f"page {self.file_id} is not encoded yet")
        return self.encoded


def given_page_type(wcxb_type: str) -> str:
    """Article or list for a WCXB page type (the default label mapping; article when it
    does not say)."""
    return extraction_page_type(default_label_mapping(), wcxb_type)


def label_pages(pages: Iterable[GoldPage], split: DomainSplit, progress: bool = False) -> list[LabelledPage]:
    """Parse and annotate every page (pages of unknown domains or without markup are
    skipped), after unwrapping a script fallback that holds most of the page's text (as
    the extractor does: :func:`~pipelines.extraction.denoise.unwrap_script_fallback`)."""
    labelled = []
    for page in tqdm(pages, desc="annotate", unit="page", disable=not progress):
        root = parse_html(page.html)
        record = page.record
        if root is None or record.domain not in split.roles:
            continue
        unwrap_script_fallback(body_of(root))
        annotation = annotate(root, record.gold_text)
        tags = [ancestor_tags(leaf) for leaf in annotation.leaves]
        labelled.append(
            LabelledPage(
                file_id=record.file_id,
                domain=record.domain,
                page_type=record.page_type,
                role=split.role(record.domain),
                fold=split.fold(record.domain),
                source=page.source,
                leaves=[(leaf.tokens, t) for leaf, t in zip(annotation.leaves, tags, strict=True)],
                labels=annotation.labels,
                in_form=["form" in t for t in tags],
                gold=tokens(record.gold_text),
                features=torch.tensor(leaf_features(annotation.leaves), dtype=torch.float32),
                attributes=attribute_words(annotation.leaves),
                marks=iawce_marks(root, given_page_type(record.page_type)),
            )
        )
    return labelled


def prepared_pages(config: BoilerNetTrainConfig, split: DomainSplit) -> list[LabelledPage]:
    """The labelled pages of the config's data, from ``config.prepared`` when it exists and
    was prepared with the current denoiser (the leaves' iawce marks read it) and leaves
    (:data:`LEAVES_VERSION`); otherwise
    prepared afresh (and cached there)."""
    if config.prepared is not None and config.prepared.is_file():
        with config.prepared.open("rb") as cached:
            prepared: dict[str, Any] | list[LabelledPage] = pickle.load(cached)
        if (
            isinstance(prepared, dict)
            and prepared.get("denoiser") == denoiser_fingerprint()
            and prepared.get("leaves") == LEAVES_VERSION
        ):
            pages: list[LabelledPage] = prepared["pages"]
            return pages
        logger.warning(
            "%s was prepared with another denoiser or other leaves: preparing the pages again",
            config.prepared,
        )
    pages = label_pages(read_gold_pages(config.data, config.gold, config.limit), split, config.progress)
    if config.prepared is not None:
        config.prepared.parent.mkdir(parents=True, exist_ok=True)
        partial = config.prepared.with_name(config.prepared.name + ".partial")
        with partial.open("wb") as cached:
            pickle.dump(
                {"denoiser": denoiser_fingerprint(), "leaves": LEAVES_VERSION, "pages": pages}, cached
            )
        os.replace(partial, config.prepared)  # a reader never sees half a file
    return pages


def kept_leaves(
    page: LabelledPage, probabilities: torch.Tensor, threshold: float, drop_forms: bool = True
) -> list[bool]:
    """The leaves kept as content: P >= threshold, and with ``drop_forms`` outside forms
    (the seed's form rule)."""
    return [
        p >= threshold and not (drop_forms and form)
        for p, form in zip(probabilities.tolist(), page.in_form, strict=True)
    ]


def page_word_f1(page: LabelledPage, kept: Sequence[bool]) -> PRF:
    predicted = [t for (words, _), keep in zip(page.leaves, kept, strict=True) if keep for t in words]
    return word_prf(predicted, page.gold)


def leaf_scores(pages: Sequence[LabelledPage], kept: Sequence[Sequence[bool]]) -> dict[str, dict[str, float]]:
    """Leaf-level precision/recall/F1 of both classes (the seed's table)."""
    counts: defaultdict[tuple[int, int], int] = defaultdict(int)
    for page, keep in zip(pages, kept, strict=True):
        for label, predicted in zip(page.labels, keep, strict=True):
            counts[(label, int(predicted))] += 1
    scores = {}
    for name, cls in (("noise", 0), ("content", 1)):
        tp = counts[(cls, cls)]
        prf = PRF.from_counts(tp, tp + counts[(1 - cls, cls)], tp + counts[(cls, 1 - cls)])
        scores[name] = {"precision": prf.precision, "recall": prf.recall, "f1": prf.f1}
    return scores


def page_scores(pages: Sequence[LabelledPage], kept: Sequence[Sequence[bool]]) -> dict[str, dict[str, float]]:
    """Mean page word P/R/F1 overall and per WCXB page type (pages with gold text)."""
    groups: dict[str, list[PRF]] = defaultdict(list)
    for page, keep in zip(pages, kept, strict=True):
        if page.gold:
            prf = page_word_f1(page, keep)
            groups["overall"].append(prf)
            groups[page.page_type].append(prf)
    return {
        group: {
            "pages": len(rows),
            "precision": fmean(r.precision for r in rows),
            "recall": fmean(r.recall for r in rows),
            "f1": fmean(r.f1 for r in rows),
        }
        for group, rows in groups.items()
    }


def mean_word_f1(
    pages: Sequence[LabelledPage],
    probabilities: Sequence[torch.Tensor],
    threshold: float,
    drop_forms: bool = True,
) -> float:
    """Mean page word F1 of the leaves kept at ``threshold`` (pages with gold text)."""
    scores = [
        page_word_f1(page, kept_leaves(page, p, threshold, drop_forms)).f1
        for page, p in zip(pages, probabilities, strict=True)
        if page.gold
    ]
    return fmean(scores) if scores else 0.0


def calibrate(pages: Sequence[LabelledPage], probabilities: Sequence[torch.Tensor]) -> tuple[float, bool]:
    """The threshold and form rule (drop leaves in forms or not) with the best mean page
    word F1 on ``pages``; among equals the seed's rule."""
    choices = [(threshold, drop) for drop in (True, False) for threshold in THRESHOLDS]
    return max(choices, key=lambda choice: mean_word_f1(pages, probabilities, *choice))


#: A training window: its leaves, their labels and their loss weights.
Window = tuple[EncodedPage, torch.Tensor, torch.Tensor]


def windows(page: EncodedPage, labels: Sequence[int], weights: torch.Tensor, size: int) -> list[Window]:
    """The page cut into runs of ``size`` leaves, with their labels and loss weights."""
    target = torch.tensor(labels, dtype=torch.float32)
    return [
        (page.window(s, min(s + size, len(page))), target[s : s + size], weights[s : s + size])
        for s in range(0, len(page), size)
    ]


def loss_weights(pages: Sequence[LabelledPage], scheme: str) -> list[torch.Tensor]:
    """Each page's per-leaf loss weights, averaging 1 over the pages' leaves:
    ``balanced`` (the seed's): the inverse of the leaf's class share; ``tokens``: the
    leaf's token count (every token weighs the same); ``page-tokens``: the leaf's share of
    its page's tokens (every page weighs the same, as in the mean page word F1)."""
    if scheme in ("tokens", "page-tokens"):
        counts = [
            torch.tensor([len(words) for words, _ in page.leaves], dtype=torch.float32) for page in pages
        ]
        if scheme == "page-tokens":
            counts = [c / c.sum().clamp_min(1.0) for c in counts]
        mean = float(torch.cat(counts).mean())
        return [c / mean for c in counts]
    if scheme != "balanced":
        raise ValueError(f"unknown loss weighting {scheme!r} (balanced, tokens or page-tokens)")
    positives = sum(sum(page.labels) for page in pages)
    total = sum(len(page.labels) for page in pages)
    positive, negative = total / (2 * max(positives, 1)), total / (2 * max(total - positives, 1))
    return [torch.tensor([positive if label else negative for label in page.labels]) for page in pages]


def soft_f1_loss(logits: torch.Tensor, target: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """1 - the soft F1 of each window (P(content) as a fractional keep, each leaf counted
    by its loss weight: its tokens with ``tokens`` weights), averaged over the windows; a
    window without content scores by how little it keeps (the smoothing is one leaf's weight)."""
    kept = torch.sigmoid(logits) * weights
    overlap = (kept * target).sum(1)
    f1 = (2 * overlap + 1.0) / (kept.sum(1) + (weights * target).sum(1) + 1.0)
    return (1.0 - f1).mean()


def equal_length_batches(pieces: list[Window], size: int, rng: random.Random) -> list[list[Window]]:
    """Shuffled batches of windows of (near-)equal length: most windows are full, and the
    page ends are sorted by length so that little padding enters the backward LSTM."""
    rng.shuffle(pieces)
    ordered = sorted(pieces, key=lambda piece: len(piece[0]))
    batches = [ordered[s : s + size] for s in range(0, len(ordered), size)]
    rng.shuffle(batches)
    return batches


def fit(
    config: BoilerNetTrainConfig,
    train: Sequence[LabelledPage],
    validation: Sequence[LabelledPage],
    vocabulary: Vocabulary,
    epochs: int,
    desc: str,
) -> tuple[BoilerNet, list[dict[str, float]]]:
    """Train a fresh network; returns the best epoch's (by validation content-leaf F1 at
    0.5, or by ``select="word-f1"`` mean page word F1 at its calibrated threshold; the later
    among equals) and the per-epoch history."""
    torch.manual_seed(config.seed)
    rng = random.Random(config.seed)
    model = BoilerNet(
        BoilerNetConfig(
            words=vocabulary.word_size,
            tags=vocabulary.tag_size,
            dense=config.dense,
            hidden=config.hidden,
            features=len(feature_names(config)),
            attributes=vocabulary.attribute_size,
            flags=len(config.flags),
        )
    )
    if config.leaf_features:
        model.standardise_features(torch.cat([page.network_input.features for page in train]))
    pieces = [
        piece
        for page, weights in zip(train, loss_weights(train, config.loss_weights), strict=True)
        for piece in windows(page.network_input, page.labels, weights, config.window)
    ]
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    loss_of = nn.BCEWithLogitsLoss(reduction="none")
    selection, history = BestEpoch(), []
    for epoch in range(1, epochs + 1):
        model.train()
        started, losses = time.perf_counter(), []
        batches = equal_length_batches(pieces, config.batch_size, rng)
        for batch in tqdm(
            batches, desc=f"{desc} epoch {epoch}/{epochs}", unit="batch", disable=not config.progress
        ):
            logits = model(LeafBatch.of([page for page, _, _ in batch]))
            target = torch.nn.utils.rnn.pad_sequence([t for _, t, _ in batch], batch_first=True)
            weights = torch.nn.utils.rnn.pad_sequence([w for _, _, w in batch], batch_first=True)
            loss = (loss_of(logits, target) * weights).sum() / sum(len(t) for _, t, _ in batch)
            if config.f1_loss:
                loss = loss + config.f1_loss * soft_f1_loss(logits, target, weights)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
            losses.append(loss.item())
        probabilities = predict(model, [page.network_input for page in validation])
        kept = [kept_leaves(page, p, 0.5) for page, p in zip(validation, probabilities, strict=True)]
        leaf_f1 = leaf_scores(validation, kept)["content"]["f1"]
        threshold, drop_forms = calibrate(validation, probabilities)
        word_f1 = mean_word_f1(validation, probabilities, threshold, drop_forms)
        history.append(
            {
                "epoch": epoch,
                "loss": fmean(losses),
                "validation_content_f1": leaf_f1,
                "validation_word_f1": word_f1,
                "threshold": threshold,
                "drop_forms": drop_forms,
                "s": time.perf_counter() - started,
            }
        )
        logger.info(
            "%s epoch %d: loss %.4f, validation content-leaf F1 %.4f, word F1 %.4f (threshold %.2f)",
            desc,
            epoch,
            fmean(losses),
            leaf_f1,
            word_f1,
            threshold,
        )
        selection.offer(epoch, (word_f1 if config.select == "word-f1" else leaf_f1,), model)
    selection.restore(model)
    return model.eval(), history


def fit_members(
    config: BoilerNetTrainConfig,
    train: Sequence[LabelledPage],
    validation: Sequence[LabelledPage],
    vocabulary: Vocabulary,
    epochs: int,
    desc: str,
) -> list[tuple[BoilerNet, list[dict[str, float]]]]:
    """:func:`fit` once per seed of ``config.seed`` .. ``config.seed + config.seeds - 1``:
    the members of a seed ensemble and their histories."""
    if config.seeds < 1:
        raise ValueError(f"seeds must be 1 or more, not {config.seeds}")
    return [
        fit(
            dataclasses.replace(config, seed=seed),
            train,
            validation,
            vocabulary,
            epochs,
            f"{desc} seed {seed}",
        )
        for seed in range(config.seed, config.seed + config.seeds)
    ]


def best_epoch(history: Sequence[dict[str, float]], select: str) -> int:
    """The epoch :func:`fit` kept: the best by ``select``, the later among equals."""
    key = "validation_word_f1" if select == "word-f1" else "validation_content_f1"
    return int(history[best_index([(row[key],) for row in history])]["epoch"])


def feature_names(config: BoilerNetTrainConfig) -> tuple[str, ...]:
    """The numeric leaf features the config's networks read (none without ``leaf_features``)."""
    if config.repetition and not config.leaf_features:
        raise ValueError("the repetition features come with the leaf features (--leaf-features)")
    if not config.leaf_features:
        return ()
    return FEATURES + (REPETITION_FEATURES if config.repetition else ())


def vocabulary_of(pages: Sequence[LabelledPage], config: BoilerNetTrainConfig) -> Vocabulary:
    if config.attributes:
        _require_prepared(pages, "attributes")
    return Vocabulary.build(
        (leaf for page in pages for leaf in page.leaves),
        config.words,
        config.tags,
        (bag for page in pages for bag in page.attributes or ()),
        config.attributes,
    )


def encode(
    pages: Sequence[LabelledPage],
    vocabulary: Vocabulary,
    features: bool = False,
    flags: Sequence[str] = (),
    repetition: bool = False,
) -> None:
    """Set every page's network input (with its leaf features when ``features``, and their
    repetition features after them when ``repetition`` too, its attribute words when the
    vocabulary has some, and its leaf ``flags``)."""
    if features:
        _require_prepared(pages, "features")
    if flags and not set(flags) <= {"list_page"}:
        _require_prepared(pages, "marks")
    if vocabulary.attributes:
        _require_prepared(pages, "attributes")
    encoder = vocabulary.encoder()
    for page in pages:
        rows = page.features
        if features and repetition and rows is not None:
            rows = torch.cat(
                [rows.reshape(len(page.leaves), len(FEATURES)), repetition_rows(page.leaves)], dim=1
            )
        page.encoded = encoder.encode(
            page.leaves,
            rows if features else None,
            page.attributes if vocabulary.attributes else None,
            leaf_flags(flags, page.given_type, page.marks or IawceMarks.none(len(page.leaves)))
            if flags
            else None,
        )


def _require_prepared(pages: Sequence[LabelledPage], name: str) -> None:
    for page in pages:
        if getattr(page, name, None) is None:
            raise ValueError(
                f"page {page.file_id} has no leaf {name}: its --prepared cache predates them "
                "(give --prepared a new path to rebuild it)"
            )


@dataclass
class BoilerNetTrainResult:
    checkpoint: Path
    threshold: float
    metrics: dict[str, Any]

    def report(self) -> str:
        held = self.metrics["heldout"]
        leaf = held["leaf"]
        members = self.metrics["members"]
        lines = [f"checkpoint: {self.checkpoint} (threshold {self.threshold}, {len(members)} network(s))"]
        lines += [
            f"validation word F1 seed {m['seed']}: {m['validation_word_f1']:.4f} "
            f"(epoch {m['best_epoch']}, threshold {m['threshold']:.2f}, forms dropped: {m['drop_forms']})"
            for m in members
        ]
        lines += [
            f"validation word F1 of the {'mean of the networks' if len(members) > 1 else 'network'}: "
            f"{self.metrics[VALIDATION]['pages']['overall']['f1']:.4f}",
            "held-out leaf F1 [noise, content]: "
            f"[{leaf['noise']['f1']:.3f}, {leaf['content']['f1']:.3f}] "
            f"(P [{leaf['noise']['precision']:.3f}, {leaf['content']['precision']:.3f}], "
            f"R [{leaf['noise']['recall']:.3f}, {leaf['content']['recall']:.3f}]); the seed: [0.90, 0.78]",
        ]
        for group, row in held["pages"].items():
            lines.append(f"held-out word F1 {group}: {row['f1']:.3f} ({row['pages']} pages)")
        return "\n".join(lines)


def train_boilernet(config: BoilerNetTrainConfig) -> BoilerNetTrainResult | None:
    """Label, train (out-of-fold models + final model), calibrate, evaluate, save; None
    when ``oof_only``."""
    if unknown := set(config.flags) - set(FLAGS):
        raise ValueError(f"unknown leaf flags {sorted(unknown)}; known: {', '.join(FLAGS)}")
    feature_names(config)  # fails early on features it cannot have
    torch.set_num_threads(config.threads)
    split = load_split()
    pages = prepared_pages(config, split)
    by_role = {role: [p for p in pages if p.role == role] for role in (TRAIN, VALIDATION, HELDOUT)}
    if not by_role[TRAIN] or not by_role[VALIDATION]:
        raise ValueError(f"{config.data}: no training or validation pages (is it WCXB dev?)")
    sources = sorted({page.source for page in pages})
    started = time.perf_counter()

    if config.oof is not None:
        folds = config.oof_folds or tuple(range(split.k))
        write_out_of_fold(config, config.oof, by_role[TRAIN], by_role[VALIDATION], folds)
    if config.oof_only:
        return None
    if config.out is None:
        raise ValueError("no checkpoint path (--out) to write")

    vocabulary = vocabulary_of(by_role[TRAIN], config)
    encode(pages, vocabulary, config.leaf_features, config.flags, config.repetition)
    fitted = fit_members(config, by_role[TRAIN], by_role[VALIDATION], vocabulary, config.epochs, "final")
    models = [model for model, _ in fitted]
    validation_inputs = [p.network_input for p in by_role[VALIDATION]]
    members = []
    for seed, (model, history) in enumerate(fitted, start=config.seed):
        own = predict(model, validation_inputs)
        own_threshold, own_drop_forms = calibrate(by_role[VALIDATION], own)
        members.append(
            {
                "seed": seed,
                "best_epoch": best_epoch(history, config.select),
                "threshold": own_threshold,
                "drop_forms": own_drop_forms,
                "validation_word_f1": mean_word_f1(by_role[VALIDATION], own, own_threshold, own_drop_forms),
                "history": history,
            }
        )
    validation_p = predict_mean(models, validation_inputs)
    threshold, drop_forms = calibrate(by_role[VALIDATION], validation_p)
    metrics: dict[str, Any] = {"members": members, "threshold": threshold, "drop_forms": drop_forms}
    for role in (VALIDATION, HELDOUT):
        role_pages = by_role[role]
        probabilities = predict_mean(models, [p.network_input for p in role_pages])
        kept = [
            kept_leaves(page, p, threshold, drop_forms)
            for page, p in zip(role_pages, probabilities, strict=True)
        ]
        metrics[role] = {"leaf": leaf_scores(role_pages, kept), "pages": page_scores(role_pages, kept)}
    metrics["train_seconds"] = round(time.perf_counter() - started)
    training = {
        **config.to_dict(),
        "sources": sources,
        "split": "models/splits/wcxb-dev.json",
        "pages": {role: len(rows) for role, rows in by_role.items()},
        "leaves": {role: sum(len(p.labels) for p in rows) for role, rows in by_role.items()},
    }
    save_boilernet(
        config.out,
        models,
        vocabulary,
        threshold,
        training,
        metrics,
        drop_forms,
        config.flags,
        feature_names(config),
    )
    write_boilernet_card(config.out, config.command, boilernet_versions())
    return BoilerNetTrainResult(config.out, threshold, metrics)


def measure(checkpoint: Path, data: Path, role: str = VALIDATION, progress: bool = False) -> dict[str, Any]:
    """The scores of a trained checkpoint on one role's pages of ``data`` (WCXB dev) with the
    current code, as :func:`train_boilernet` records them for that role (leaf and page
    word scores at the checkpoint's threshold and form rule): the re-measure of a card
    whose denoiser or feature version is no longer the code's."""
    loaded = load_boilernet(checkpoint)
    split = load_split()
    chosen = (page for page in read_gold_pages(data) if split.roles.get(page.record.domain) == role)
    pages = label_pages(chosen, split, progress)
    if not pages:
        raise ValueError(f"{data}: no {role} pages (is it WCXB dev?)")
    repetition = len(loaded.features) > len(FEATURES)
    encode(pages, loaded.vocabulary, bool(loaded.features), loaded.flags, repetition)
    probabilities = loaded.probabilities([page.network_input for page in pages])
    kept = [
        kept_leaves(page, p, loaded.threshold, loaded.drop_forms)
        for page, p in zip(pages, probabilities, strict=True)
    ]
    return {"leaf": leaf_scores(pages, kept), "pages": page_scores(pages, kept)}


def write_out_of_fold(
    config: BoilerNetTrainConfig,
    out_path: Path,
    train: Sequence[LabelledPage],
    validation: Sequence[LabelledPage],
    folds: Sequence[int],
) -> None:
    """Per fold f of ``folds``: a model (or ``config.seeds`` models, averaged) trained on
    the other folds (``fold_epochs``) predicts fold f's pages; one JSONL line per page:
    file_id, domain, fold, P(content) per leaf."""
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with out_path.open("w", encoding="utf-8") as out:
        for fold in folds:
            rest = [p for p in train if p.fold != fold]
            held = [p for p in train if p.fold == fold]
            if not held:
                raise ValueError(f"fold {fold} has no training pages")
            vocabulary = vocabulary_of(rest, config)
            encode(
                [*rest, *held, *validation], vocabulary, config.leaf_features, config.flags, config.repetition
            )
            fitted = fit_members(config, rest, validation, vocabulary, config.fold_epochs, f"fold {fold}")
            probabilities = predict_mean([model for model, _ in fitted], [q.network_input for q in held])
            for page, p in zip(held, probabilities, strict=True):
                line = {"file_id": page.file_id, "domain": page.domain, "fold": fold}
                line["probabilities"] = [round(x, 4) for x in p.tolist()]
                out.write(json.dumps(line) + "\n")
