"""Training the element classifier: sample rows, fit gradient boosting, pick the argmax
element per page, measure, out-of-fold predictions for the ensemble.

Settings (:data:`SETTINGS`): ``faithful`` is constractor's model on its 17 features,
``GradientBoostingClassifier(n_estimators=100, learning_rate=1.0, max_depth=1)``;
``shipped`` is what measured best on the validation domains and out of fold:
``hgb-f1-page-kept``, ``HistGradientBoostingRegressor(max_iter=300, learning_rate=0.1,
max_leaf_nodes=31)`` of each element's word F1 on the 17 features, the page-relative ones
and the share of its text the denoiser keeps (the page's pick is the element with the
highest estimated F1). The others are ablations (``hgb-f1-page``, shipped before it,
without the kept share; the main-element classifier ``hgb-original``, shipped before that;
render, tree and page-relative features; deeper trees).
"""

from __future__ import annotations

import importlib.metadata
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

import numpy as np

from models.common.card import write_card
from models.common.splits import HELDOUT, TRAIN, VALIDATION
from models.common.versions import denoiser_version
from models.element.data import FEATURES_VERSION, PageRows
from models.element.model import FORMAT, FORMAT_VERSION, TreeEnsemble
from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.text import tokens
from pipelines.extraction.element_classifier import element_text
from pipelines.extraction.element_features import FEATURE_SETS

#: Targets: the main-element label (a classifier), or each element's word F1 (a regressor).
MAIN, F1 = "main", "f1"


@dataclass(frozen=True)
class Setting:
    """A feature set, an estimator (``gb``: GradientBoosting, ``hgb``:
    HistGradientBoosting; a classifier on the ``main`` target, a regressor on ``f1``) and
    its parameters."""

    features: str
    estimator: str
    params: dict[str, Any]
    target: str = MAIN


SETTINGS = {
    "faithful": Setting("original", "gb", {"n_estimators": 100, "learning_rate": 1.0, "max_depth": 1}),
    "faithful-render": Setting("render", "gb", {"n_estimators": 100, "learning_rate": 1.0, "max_depth": 1}),
    "faithful-extended": Setting(
        "extended", "gb", {"n_estimators": 100, "learning_rate": 1.0, "max_depth": 1}
    ),
    "gb-deep": Setting(
        "render", "gb", {"n_estimators": 200, "learning_rate": 0.1, "max_depth": 4, "subsample": 0.8}
    ),
    "hgb-original": Setting("original", "hgb", {"max_iter": 300, "learning_rate": 0.1, "max_leaf_nodes": 31}),
    "hgb-render": Setting("render", "hgb", {"max_iter": 300, "learning_rate": 0.1, "max_leaf_nodes": 31}),
    "hgb-extended": Setting("extended", "hgb", {"max_iter": 300, "learning_rate": 0.1, "max_leaf_nodes": 31}),
    "hgb-original-page": Setting(
        "original-page", "hgb", {"max_iter": 300, "learning_rate": 0.1, "max_leaf_nodes": 31}
    ),
    "hgb-f1": Setting("original", "hgb", {"max_iter": 300, "learning_rate": 0.1, "max_leaf_nodes": 31}, F1),
    "hgb-f1-page": Setting(
        "original-page", "hgb", {"max_iter": 300, "learning_rate": 0.1, "max_leaf_nodes": 31}, F1
    ),
    "hgb-f1-page-kept": Setting(
        "original-page-kept", "hgb", {"max_iter": 300, "learning_rate": 0.1, "max_leaf_nodes": 31}, F1
    ),
    "hgb-f1-extended-page": Setting(
        "extended-page", "hgb", {"max_iter": 300, "learning_rate": 0.1, "max_leaf_nodes": 31}, F1
    ),
}
#: The setting of the shipped checkpoint: the best on the validation domains (README).
SETTINGS["shipped"] = SETTINGS["hgb-f1-page-kept"]


@dataclass
class TrainConfig:
    """Everything a training run depends on (stored in the checkpoint)."""

    setting: str
    features: list[str]
    estimator: str
    params: dict[str, Any]
    negatives_per_page: int
    seed: int
    viewport_height: int
    feature_names: list[str] = field(default_factory=list)
    target: str = MAIN

    @classmethod
    def from_setting(
        cls, name: str, feature_names: list[str], negatives_per_page: int, seed: int, viewport_height: int
    ) -> TrainConfig:
        setting = SETTINGS[name]
        return cls(
            name,
            list(FEATURE_SETS[setting.features]),
            setting.estimator,
            dict(setting.params),
            negatives_per_page,
            seed,
            viewport_height,
            feature_names,
            setting.target,
        )

    @property
    def columns(self) -> list[int]:
        return [self.feature_names.index(name) for name in self.features]


def training_rows(pages: list[PageRows], config: TrainConfig) -> tuple[np.ndarray, np.ndarray]:
    """Rows to fit on and their targets: per page the main element, every candidate on its
    path (ancestors and descendants, the near misses), and up to ``negatives_per_page``
    others at random; the target is 1 for the main element and 0 for the rest, or (target
    ``f1``) each one's word F1."""
    rng = np.random.default_rng(config.seed)
    columns = config.columns
    chosen_rows: list[np.ndarray] = []
    labels: list[np.ndarray] = []
    for page in pages:
        main = page.paths[page.positive]
        near: list[int] = []
        others_list: list[int] = []
        for index, path in enumerate(page.paths):
            if index == page.positive:
                continue
            on_path = main.startswith(path + "/") or path.startswith(main + "/")
            (near if on_path else others_list).append(index)
        others = np.array(others_list, dtype=np.int64)
        if len(others) > config.negatives_per_page:
            others = rng.choice(others, config.negatives_per_page, replace=False)
        picked = [page.positive, *near, *others.tolist()]
        chosen_rows.append(page.rows[np.ix_(picked, columns)])
        labels.append(page.targets[picked] if config.target == F1 else np.eye(1, len(picked))[0])
    return np.concatenate(chosen_rows), np.concatenate(labels)


def fit(pages: list[PageRows], config: TrainConfig, meta: dict[str, Any] | None = None) -> TreeEnsemble:
    """Fit the setting's estimator and copy it into a TreeEnsemble."""
    from sklearn import ensemble

    x, y = training_rows(pages, config)
    kind = "Regressor" if config.target == F1 else "Classifier"
    name = {"gb": "GradientBoosting", "hgb": "HistGradientBoosting"}[config.estimator] + kind
    model = getattr(ensemble, name)(random_state=config.seed, **config.params)
    model.fit(x, y)
    return TreeEnsemble.from_sklearn(
        model,
        config.features,
        {
            "viewport_height": config.viewport_height,
            "config": {k: v for k, v in asdict(config).items() if k != "feature_names"},
            "trained_rows": len(y),
            "trained_pages": len(pages),
            "sklearn": importlib.metadata.version("scikit-learn"),
            **(meta or {}),
        },
    )


def predict(model: TreeEnsemble, page: PageRows, config: TrainConfig) -> tuple[int, float]:
    """Index and confidence (probability, or estimated F1) of the page's best-scored candidate."""
    scores = model.raw_scores(page.rows[:, config.columns])
    best = int(np.argmax(scores))
    return best, float(model.confidence(scores[best]))


def prediction_record(
    model: TreeEnsemble, page: PageRows, config: TrainConfig, with_f1: bool
) -> dict[str, Any]:
    """What the model picks on a page against its main element (and gold text)."""
    best, probability = predict(model, page, config)
    record = {
        "url": page.page.capture.url,
        "file_id": page.page.file_id,
        "domain": page.page.domain,
        "page_type": page.page.page_type,
        "role": page.page.role,
        "fold": page.page.fold,
        "path": page.paths[best],
        "probability": round(probability, 6),
        "main_path": page.paths[page.positive],
        "correct": best == page.positive,
    }
    if with_f1 and page.page.gold_text:
        html, boxes = page.page.capture.read()
        text = element_text(html, boxes, page.paths[best], page.page.capture.url) or ""
        gold = tokens(page.page.gold_text)
        record["f1"] = word_prf(tokens(text), gold).f1
        main_text = element_text(html, boxes, page.paths[page.positive], page.page.capture.url) or ""
        record["main_f1"] = word_prf(tokens(main_text), gold).f1
    return record


def out_of_fold(
    pages: list[PageRows],
    config: TrainConfig,
    folds: int,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = iter,
) -> list[dict[str, Any]]:
    """For each fold f of the training pages: fit on the other folds, predict fold f."""
    records = []
    for fold in progress(range(folds)):
        held = [p for p in pages if p.page.fold == fold]
        rest = [p for p in pages if p.page.fold is not None and p.page.fold != fold]
        if not held or not rest:
            continue
        model = fit(rest, config)
        records += [prediction_record(model, page, config, with_f1=False) for page in held]
    return records


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Pages, main-element accuracy and mean word F1 (where measured), overall and per page type."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        groups["overall"].append(record)
        groups[record["page_type"]].append(record)
    summary = {}
    for name, members in sorted(groups.items()):
        row: dict[str, Any] = {
            "pages": len(members),
            "accuracy": round(fmean(r["correct"] for r in members), 4),
        }
        for key in ("f1", "main_f1"):
            measured = [r[key] for r in members if key in r]
            if measured:
                row[key] = round(fmean(measured), 4)
        summary[name] = row
    return summary


@dataclass
class TrainResult:
    """A trained model, its metrics and the out-of-fold predictions."""

    model: TreeEnsemble
    metrics: dict[str, Any]
    oof: list[dict[str, Any]]

    def report(self) -> str:
        lines = []
        for part, summary in self.metrics.items():
            for group, row in summary.items():
                cells = ", ".join(f"{k} {v}" for k, v in row.items())
                lines.append(f"{part:<12} {group:<14} {cells}")
        return "\n".join(lines)


def train_element_classifier(
    pages: list[PageRows],
    config: TrainConfig,
    folds: int = 0,
    meta: dict[str, Any] | None = None,
    progress: Callable[[Iterable[Any]], Iterable[Any]] = iter,
) -> TrainResult:
    """Fit on the training pages; measure on validation and held-out pages (word F1
    against their gold text where they have one); out-of-fold predictions when
    ``folds`` > 0."""
    train = [p for p in pages if p.page.role == TRAIN]
    if not train:
        raise ValueError("no training page with a usable main element")
    oof = out_of_fold(train, config, folds, progress) if folds else []
    model = fit(train, config, meta)
    metrics: dict[str, Any] = {}
    if oof:
        metrics["oof"] = summarize(oof)
    for role in (VALIDATION, HELDOUT):
        members = [p for p in pages if p.page.role == role]
        if members:
            metrics[role] = summarize([prediction_record(model, p, config, with_f1=True) for p in members])
    model.meta["metrics"] = metrics
    return TrainResult(model, metrics, oof)


#: What the model was fitted on, by target.
LABELS = {
    MAIN: "one positive per page: a person's mark, else the auto-annotation's main element",
    F1: "each candidate's word F1 against the gold (the auto-annotation's aligned token counts; "
    "a person's mark without a text: 1 for the marked element); the pick is the highest estimate",
}


def element_versions() -> dict[str, Any]:
    """The versions an element classifier trained now is trained with (its card's ``versions``)."""
    return {
        "features": FEATURES_VERSION,
        "denoiser": denoiser_version(),
        "sklearn": importlib.metadata.version("scikit-learn"),
    }


def write_element_card(
    checkpoint: Path,
    model: TreeEnsemble,
    command: str,
    versions: dict[str, Any],
    date: str | None = None,
    restamped: dict[str, Any] | None = None,
) -> Path:
    """The checkpoint's card (:mod:`models.common.card`'s schema): the command, data, split,
    metrics and the versions it was trained with, its features and setting; with
    ``restamped`` (:mod:`models.element.restamp`), that section too."""
    meta = model.meta
    return write_card(
        checkpoint,
        model="element classifier (seed 002): gradient boosting over rendered elements, argmax per page",
        family="element",
        command=command,
        date=date,
        data={key: meta.get(key) for key in ("args", "trained_pages", "trained_rows")},
        split="models/splits/wcxb-dev.json: fit on train domains, OOF over its 5 folds, "
        "measured on validation and held-out domains",
        metrics=meta["metrics"],
        versions=versions,
        format_name=FORMAT,
        format_version=FORMAT_VERSION,
        extra={
            "features": model.features,
            "labels": LABELS[meta["config"].get("target", MAIN)],
            "config": meta["config"],
            **({"restamped": restamped} if restamped is not None else {}),
        },
    )
