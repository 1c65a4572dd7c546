"""Training the quality estimate: fit a regression tree ensemble per stage on the training
domains' candidates, choose its size and its switching margin on the validation domains
(the mean word F1 of the candidate it picks), and measure everything on the held-out
domains (pick F1, the oracle, Spearman correlation of the estimate with the true F1,
top-vs-bottom quartile gap; per WCXB type). The line-level merge of each stage's
candidates (:mod:`models.quality.merge`, :func:`fit_merge`) is fitted too and stored in
the checkpoint. Whether the ``ensemble`` picks or merges by default, and the cascade's
confidence threshold, are chosen together on the validation domains, within a budget on
how often the full stage runs (:func:`choose_cascade`).
"""

from __future__ import annotations

import importlib.metadata
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from models.common.splits import HELDOUT, TRAIN, VALIDATION
from models.common.trees import BoostedTrees
from models.quality.data import CandidatePage, QualityRows, quality_rows
from models.quality.merge import MergeModel
from models.quality.model import CHEAP, FULL, MERGE, PICK, QualityEstimate, StageModel, stage_from_sklearn

#: Extractors of each stage: cheap (ours, a few ms each) and full (with the peers, and
#: iawce reading the page as the other type: session 36, validation 0.8753 -> 0.8764 for
#: the default; in the cheap stage 0.8773, but the fast preset would run iawce twice).
CHEAP_CANDIDATES = ["iawce", "iawce-paper", "dom-pagerank"]
FULL_CANDIDATES = [*CHEAP_CANDIDATES, "trafilatura", "readability", "justext", "iawce-other-type"]
#: Sizes tried (number of trees, learning rate); the best on the validation domains wins.
GRID = [(100, 0.1), (200, 0.05), (400, 0.05), (300, 0.1)]
#: Margins tried on the validation domains (how much better than the first candidate,
#: iawce, another one's estimate must be to be picked).
MARGINS = [0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 1.0]
#: Confidence thresholds of the cascade tried on the validation domains.
THRESHOLDS = [0.0, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.01]
#: The largest share of pages the full stage (the peers) may run on, on the validation
#: domains: the default ensemble's cost. Issue 14 asks for at most 2.5x trafilatura's
#: median time; one held-out run measured 1.97x with the peers on 46 % of the pages, one
#: validation run 2.78x with them on 64 % (README "Ensemble").
MAX_ESCALATED_SHARE = 0.5
#: How far the fast preset's word F1 may trail the default's on the validation domains
#: when it takes the cheaper way (issue 14: "within 0.01 of the default").
FAST_TOLERANCE = 0.01


@dataclass
class TrainConfig:
    """Everything a training run depends on (stored in the checkpoint)."""

    cheap: list[str] = field(default_factory=lambda: list(CHEAP_CANDIDATES))
    full: list[str] = field(default_factory=lambda: list(FULL_CANDIDATES))
    max_leaf_nodes: int = 15
    min_samples_leaf: int = 20
    seed: int = 0
    #: The line merge's lexicon (:mod:`models.quality.lexicon`): inverse regularisation
    #: strength, and on how many training domains a term must occur.
    lexicon_c: float = 0.1
    lexicon_min_domains: int = 3
    #: The cascade's budget (:data:`MAX_ESCALATED_SHARE`).
    max_escalated_share: float = MAX_ESCALATED_SHARE


@dataclass
class StagePicks:
    """Per page of one role: the picked candidate, its estimate and true F1, and the best
    true F1 of any candidate (the oracle)."""

    file_ids: list[str]
    picked: list[str]
    estimate: np.ndarray
    true_f1: np.ndarray
    oracle_f1: np.ndarray


def fit_stage(
    train: QualityRows, candidates: list[str], size: tuple[int, float], config: TrainConfig
) -> StageModel:
    """A regression tree ensemble fitted to ``train`` (scikit-learn, pinned)."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    iterations, rate = size
    model = HistGradientBoostingRegressor(
        max_iter=iterations,
        learning_rate=rate,
        max_leaf_nodes=config.max_leaf_nodes,
        min_samples_leaf=config.min_samples_leaf,
        early_stopping=False,
        random_state=config.seed,
    )
    model.fit(train.features, train.targets)
    return stage_from_sklearn(model, candidates)


def picks(stage: StageModel, rows: QualityRows) -> StagePicks:
    """The candidate the stage keeps on each page of ``rows`` (:meth:`StageModel.pick`)."""
    estimates = stage.estimate(rows.features)
    k = len(stage.candidates)
    by_page = estimates.reshape(-1, k)
    targets = rows.targets.reshape(-1, k)
    chosen = np.array([stage.pick(page) for page in by_page], dtype=np.int64)
    index = np.arange(len(chosen))
    return StagePicks(
        file_ids=rows.file_ids[::k],
        picked=[stage.candidates[i] for i in chosen],
        estimate=by_page[index, chosen],
        true_f1=targets[index, chosen],
        oracle_f1=targets.max(axis=1),
    )


def choose_margin(stage: StageModel, rows: QualityRows, tolerance: float = 0.002) -> float:
    """The largest margin whose pick F1 on ``rows`` is within ``tolerance`` of the best
    margin's (switching away from the first candidate only when it clearly pays)."""
    scores = {}
    for margin in MARGINS:
        stage.margin = margin
        scores[margin] = float(picks(stage, rows).true_f1.mean())
    best = max(scores.values())
    stage.margin = max(m for m, score in scores.items() if score >= best - tolerance)
    return stage.margin


def quality_metrics(estimate: np.ndarray, true_f1: np.ndarray) -> dict[str, float]:
    """How well the estimate ranks pages: Spearman correlation with the true F1, and the
    mean true F1 of the estimate's top quartile minus its bottom quartile's."""
    from scipy.stats import spearmanr

    order = np.argsort(estimate, kind="stable")
    varied = len(order) > 2 and np.ptp(estimate) > 0 and np.ptp(true_f1) > 0
    quarter = max(1, len(order) // 4)
    return {
        "spearman": float(spearmanr(estimate, true_f1).statistic) if varied else float("nan"),
        "quartile_gap": float(true_f1[order[-quarter:]].mean() - true_f1[order[:quarter]].mean()),
    }


def cascade(cheap: StagePicks, full: StagePicks, threshold: float) -> tuple[np.ndarray, np.ndarray, float]:
    """True F1 and estimate per page when the full stage runs only where the cheap pick's
    estimate is below ``threshold``, and the share of pages where it runs."""
    escalate = cheap.estimate < threshold
    true_f1 = np.where(escalate, full.true_f1, cheap.true_f1)
    estimate = np.where(escalate, full.estimate, cheap.estimate)
    return true_f1, estimate, float(escalate.mean())


def merged_per_page(
    merges: dict[str, MergeFit], role_picks: dict[str, StagePicks], threshold: float, values: str
) -> np.ndarray:
    """Per page of one role, the merge cascade's ``values`` (``"f1"`` or ``"confidence"``
    of :class:`MergeFit`): the cheap stage's merge where the cheap pick's estimate is at
    least ``threshold``, the full stage's elsewhere."""
    escalate = role_picks[CHEAP].estimate < threshold
    stage_values = {
        name: np.array([getattr(merges[name], values)[f] for f in role_picks[name].file_ids])
        for name in merges
    }
    return np.where(escalate, stage_values[FULL], stage_values[CHEAP])


def choose_cascade(
    merges: dict[str, MergeFit], validation: dict[str, StagePicks], max_escalated_share: float
) -> tuple[str, float, dict[str, Any]]:
    """The ``ensemble``'s default, pick or merge, and the cascade's confidence threshold,
    chosen together: the best validation word F1 among the thresholds under which the full
    stage runs on at most ``max_escalated_share`` of the validation pages (ties: the lower
    threshold, then pick, the cheaper). Returns the choice, the threshold and each tried
    pair's validation F1 and escalated share."""
    tried: dict[tuple[str, float], float] = {}
    shares = {}
    for threshold in THRESHOLDS:
        pick_f1, _, shares[threshold] = cascade(validation[CHEAP], validation[FULL], threshold)
        if shares[threshold] > max_escalated_share:
            continue
        tried[PICK, threshold] = float(pick_f1.mean())
        tried[MERGE, threshold] = float(merged_per_page(merges, validation, threshold, "f1").mean())
    choice, threshold = max(tried, key=lambda key: (tried[key], -key[1], key[0] == PICK))
    report = {
        "max_escalated_share": max_escalated_share,
        "validation": [
            {
                "threshold": t,
                "escalated_share": shares[t],
                "pick_f1": tried[PICK, t],
                "merge_f1": tried[MERGE, t],
            }
            for t in THRESHOLDS
            if (PICK, t) in tried
        ],
    }
    return choice, threshold, report


def _report(
    picked: StagePicks, pages: dict[str, CandidatePage], true_f1: np.ndarray, estimate: np.ndarray
) -> dict[str, Any]:
    by_type: dict[str, list[int]] = defaultdict(list)
    for i, file_id in enumerate(picked.file_ids):
        by_type[pages[file_id].wcxb_type].append(i)
    return {
        "pages": len(true_f1),
        "f1": float(true_f1.mean()),
        "oracle_f1": float(picked.oracle_f1.mean()),
        **quality_metrics(estimate, true_f1),
        "f1_by_type": {t: float(true_f1[ix].mean()) for t, ix in sorted(by_type.items())},
    }


def train_quality(
    pages: dict[str, CandidatePage], gold: dict[str, str], config: TrainConfig
) -> tuple[QualityEstimate, dict[str, Any]]:
    """Fit both stages and their line merges on the training domains, size them and
    choose the default (pick or merge) and the cascade's threshold on the validation
    domains, and measure on the held-out domains."""
    by_role = {
        role: [p for _, p in sorted(pages.items()) if p.role == role] for role in (TRAIN, VALIDATION, HELDOUT)
    }
    stages, validation_picks, heldout_picks, sizes = {}, {}, {}, {}
    metrics: dict[str, Any] = {"pages": {role: len(members) for role, members in by_role.items()}}
    for stage_name, candidates in ((CHEAP, config.cheap), (FULL, config.full)):
        rows = {role: quality_rows(members, candidates, gold) for role, members in by_role.items()}
        tried = []
        for size in GRID:
            model = fit_stage(rows[TRAIN], candidates, size, config)
            choose_margin(model, rows[VALIDATION])
            tried.append((float(picks(model, rows[VALIDATION]).true_f1.mean()), size, model))
        score, sizes[stage_name], stages[stage_name] = max(tried, key=lambda t: t[0])
        validation_picks[stage_name] = picks(stages[stage_name], rows[VALIDATION])
        heldout_picks[stage_name] = picks(stages[stage_name], rows[HELDOUT])
        metrics[stage_name] = {
            "size": list(sizes[stage_name]),
            "margin": stages[stage_name].margin,
            "validation_f1": score,
            "candidate_f1": {
                name: float(rows[HELDOUT].targets[i :: len(candidates)].mean())
                for i, name in enumerate(candidates)
            },
            HELDOUT: _report(
                heldout_picks[stage_name],
                pages,
                heldout_picks[stage_name].true_f1,
                heldout_picks[stage_name].estimate,
            ),
        }
    merges = {name: fit_merge(pages, gold, stages[name].candidates, config) for name in stages}
    metrics["merge"] = {name: fit.metrics for name, fit in merges.items()}
    choice, threshold, metrics["choice"] = choose_cascade(
        merges, validation_picks, config.max_escalated_share
    )
    true_f1, estimate, share = cascade(heldout_picks[CHEAP], heldout_picks[FULL], threshold)
    metrics["cascade"] = {
        "threshold": threshold,
        "escalated_share": share,
        HELDOUT: _report(heldout_picks[FULL], pages, true_f1, estimate),
    }
    metrics["merge"]["cascade"] = merge_cascade(merges, validation_picks, heldout_picks, threshold, pages)
    default_f1 = metrics["merge"]["cascade"]["validation_f1" if choice == MERGE else "validation_pick_f1"]
    fast, metrics["merge"]["fast"] = fast_choice(merges[CHEAP], validation_picks[CHEAP], default_f1)
    meta = {
        "config": asdict(config),
        "confident": threshold,
        "choice": choice,
        "fast_choice": fast,
        "metrics": metrics,
        "scikit_learn": importlib.metadata.version("scikit-learn"),
    }
    merge_models = {name: fit.model for name, fit in merges.items()}
    return QualityEstimate(stages, meta, merge_models), metrics


def merge_cascade(
    merges: dict[str, MergeFit],
    validation: dict[str, StagePicks],
    heldout: dict[str, StagePicks],
    threshold: float,
    pages: dict[str, CandidatePage],
) -> dict[str, Any]:
    """The merge cascade's report at ``threshold`` (:func:`merged_per_page`), with the
    pick cascade's validation F1 beside it; its estimate (the feed's
    ``extraction_quality``) is :func:`models.quality.merge.merged_quality` of the pick's
    estimate and the kept lines' confidence (the pick's estimate alone reported beside it)."""
    from models.quality.merge import merged_quality

    pick_f1 = cascade(validation[CHEAP], validation[FULL], threshold)[0].mean()
    merge_f1 = merged_per_page(merges, validation, threshold, "f1").mean()
    report: dict[str, Any] = {"validation_f1": float(merge_f1), "validation_pick_f1": float(pick_f1)}
    for role, role_picks in ((VALIDATION, validation), (HELDOUT, heldout)):
        true_f1 = merged_per_page(merges, role_picks, threshold, "f1")
        _, pick_estimate, _ = cascade(role_picks[CHEAP], role_picks[FULL], threshold)
        confidence = merged_per_page(merges, role_picks, threshold, "confidence")
        estimate = np.array([merged_quality(*pair) for pair in zip(pick_estimate, confidence, strict=True)])
        report[role] = {
            **_report(role_picks[FULL], pages, true_f1, estimate),
            "pick_estimate": quality_metrics(pick_estimate, true_f1),
        }
    return report


def fast_choice(merge: MergeFit, cheap: StagePicks, default_f1: float) -> tuple[str, dict[str, float]]:
    """The fast preset's choice (``ensemble-fast``: the cheap stage alone): the cheap
    pick when its validation word F1 is within :data:`FAST_TOLERANCE` of the default's
    (``default_f1``), since the merge costs time; else the better of pick and merge."""
    pick_f1 = float(cheap.true_f1.mean())
    merge_f1 = float(np.mean([merge.f1[f] for f in cheap.file_ids]))
    merge_needed = pick_f1 < default_f1 - FAST_TOLERANCE and merge_f1 > pick_f1
    choice = MERGE if merge_needed else PICK
    return choice, {"validation_pick_f1": pick_f1, "validation_merge_f1": merge_f1, "default_f1": default_f1}


#: (drop_below, add_from) of the line-level merge tried on the cross-fitted selection set
#: (:func:`models.quality.merge.kept_lines`); (0.0, 1.01) is the first candidate alone.
MERGE_THRESHOLDS = [(0.0, 1.01), (0.0, 0.5), (0.1, 0.5), (0.2, 0.5), (0.3, 0.5), (0.1, 0.7), (0.2, 0.7)]


@dataclass
class MergeFit:
    """A stage's fitted line merge, what it measured (:func:`fit_merge`), and its merged
    word F1 and kept lines' confidence per page of the validation and held-out domains
    (keyed by file id)."""

    model: MergeModel
    metrics: dict[str, Any]
    f1: dict[str, float]
    confidence: dict[str, float]


def fit_merge(
    pages: dict[str, CandidatePage], gold: dict[str, str], candidates: list[str], config: TrainConfig
) -> MergeFit:
    """The line-level merge of ``candidates`` (README "Ensemble"): a line classifier
    fitted on the training domains, its thresholds chosen on cross-fitted probabilities
    (each training fold by the classifier of the other folds, with the validation
    domains), its merged text's word F1 on the validation and held-out domains beside the
    first candidate's. The lexicon's scores of the training lines, the classifier's
    last columns, are cross-fitted by fold in the same way (stacking), so the trees learn
    how far to trust them on unseen domains. The classifier sees every training line
    twice: as it is, and as a page in a language the lexicon does not know would give it
    (lexical columns zero; every other feature is language-blind), so such a page is
    merged by the other features as before the lexicon."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    from models.quality.features import candidate_features
    from models.quality.lexicon import Lexicon, fit_lexicon, line_terms
    from models.quality.merge import (
        LEXICAL_FEATURES,
        Grams,
        Line,
        candidate_lines,
        in_gold,
        kept_lines,
        kept_with_confidence,
        lexical_columns,
        merge_feature_names,
    )
    from models.quality.merge import merged_text as merged
    from pipelines.evaluation.metrics import word_prf
    from pipelines.evaluation.text import tokens

    ordered = [page for _, page in sorted(pages.items()) if page.role in (TRAIN, VALIDATION, HELDOUT)]
    units: list[list[Line]] = []
    for page in ordered:
        texts = [page.texts[name] for name in candidates]
        rows = candidate_features(texts, candidates, page.page, page.page_type)
        units.append(candidate_lines(texts, page.page, rows))
    owner = np.concatenate([np.full(len(lines), i) for i, lines in enumerate(units)]).astype(np.int64)
    flat = [line for lines in units for line in lines]
    features = np.array([line.features for line in flat])
    gold_words = [tokens(gold[page.file_id]) for page in ordered]
    gold_grams = [Grams(words) for words in gold_words]
    labels = np.array([in_gold(line, gold_grams[i]) for i, line in zip(owner, flat, strict=True)])
    weights = np.array([len(line.words) for line in flat], dtype=np.float64)
    role = np.array([page.role for page in ordered])[owner]
    fold = np.array([-1 if page.fold is None else page.fold for page in ordered])[owner]
    train = role == TRAIN
    starts = np.concatenate([[0], np.cumsum([len(lines) for lines in units])])
    term_sets = [line_terms(line.words) for line in flat]
    domains = [ordered[i].domain for i in owner]

    def lexicon_of(mask: np.ndarray) -> Lexicon:
        rows = np.flatnonzero(mask)
        return fit_lexicon(
            [term_sets[i] for i in rows],
            labels[rows],
            np.sqrt(weights[rows]),
            [domains[i] for i in rows],
            c=config.lexicon_c,
            min_domains=config.lexicon_min_domains,
        )

    evidence, known = np.zeros(len(flat)), np.zeros(len(flat))

    def score(lexicon: Lexicon, mask: np.ndarray) -> None:
        for i in np.flatnonzero(mask):
            evidence[i], known[i] = lexicon.evidence(flat[i].words), lexicon.known_words(flat[i].words)

    for held in np.unique(fold[train]):
        score(lexicon_of(train & (fold != held)), train & (fold == held))
    lexicon = lexicon_of(train)
    score(lexicon, ~train)
    page_slices = [slice(starts[i], starts[i + 1]) for i in range(len(units))]
    lexical = [
        lexical_columns(lines, evidence[at], known[at]) for lines, at in zip(units, page_slices, strict=True)
    ]
    features = np.column_stack([features, np.concatenate(lexical)])

    def fitted(mask: np.ndarray) -> Any:
        model = HistGradientBoostingClassifier(
            max_iter=200, learning_rate=0.05, max_leaf_nodes=31, min_samples_leaf=40, random_state=config.seed
        )
        unread = features[mask].copy()
        unread[:, -len(LEXICAL_FEATURES) :] = 0.0  # the same lines in a language the lexicon does not know
        return model.fit(
            np.vstack([features[mask], unread]),
            np.concatenate([labels[mask], labels[mask]]),
            sample_weight=np.concatenate([weights[mask], weights[mask]]),
        )

    probability = np.zeros(len(flat))
    for held in np.unique(fold[train]):
        rows_of_fold = train & (fold == held)
        probability[rows_of_fold] = fitted(train & (fold != held)).predict_proba(features[rows_of_fold])[:, 1]
    final = fitted(train)
    rest = ~train
    probability[rest] = final.predict_proba(features[rest])[:, 1]

    def page_f1(thresholds: tuple[float, float], wanted: tuple[str, ...]) -> tuple[np.ndarray, list[int]]:
        chosen = [i for i, page in enumerate(ordered) if page.role in wanted]
        scores = [
            word_prf(
                tokens(
                    merged(kept_lines(units[i], probability[starts[i] : starts[i + 1]].tolist(), *thresholds))
                ),
                gold_words[i],
            ).f1
            for i in chosen
        ]
        return np.array(scores), chosen

    selection = {t: float(page_f1(t, (TRAIN, VALIDATION))[0].mean()) for t in MERGE_THRESHOLDS}
    best = max(MERGE_THRESHOLDS, key=lambda t: selection[t])
    names = [*merge_feature_names(candidates), *LEXICAL_FEATURES]
    model = MergeModel(list(candidates), BoostedTrees.from_sklearn(final, names, {}), *best, lexicon)
    f1: dict[str, float] = {}
    confidence = {
        page.file_id: kept_with_confidence(units[i], probability[starts[i] : starts[i + 1]].tolist(), *best)[
            1
        ]
        for i, page in enumerate(ordered)
        if page.role in (VALIDATION, HELDOUT)
    }
    metrics: dict[str, Any] = {
        "candidates": candidates,
        "lexicon_terms": len(lexicon.terms),
        "thresholds": list(best),
        "selection_f1": selection[best],
        "selection_first_f1": selection[(0.0, 1.01)],
    }
    for wanted in (VALIDATION, HELDOUT):
        scores, chosen = page_f1(best, (wanted,))
        first, _ = page_f1((0.0, 1.01), (wanted,))
        f1.update({ordered[i].file_id: float(score) for i, score in zip(chosen, scores, strict=True)})
        metrics[f"{wanted}_f1"] = float(scores.mean())
        metrics[f"{wanted}_first_f1"] = float(first.mean())
        if wanted == HELDOUT:
            by_type: dict[str, list[int]] = defaultdict(list)
            for n, i in enumerate(chosen):
                by_type[ordered[i].wcxb_type].append(n)
            metrics[f"{HELDOUT}_f1_by_type"] = {
                t: float(scores[ix].mean()) for t, ix in sorted(by_type.items())
            }
            metrics[f"{HELDOUT}_first_f1_by_type"] = {
                t: float(first[ix].mean()) for t, ix in sorted(by_type.items())
            }
    return MergeFit(model, metrics, f1, confidence)
