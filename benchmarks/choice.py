"""Choosing among extractors without learning "trust iawce" (issue 64): both gold families,
one protocol.

    .venv/bin/python benchmarks/choice.py collect ../shared/datasets/wcxb-dev --cache $DATA/wcxb.jsonl
    .venv/bin/python benchmarks/choice.py collect ../shared/datasets/dragnet --cache $DATA/dragnet.jsonl
    .venv/bin/python benchmarks/choice.py evaluate --wcxb $DATA/wcxb.jsonl --dragnet $DATA/dragnet.jsonl \\
        [--fit-on trafilatura,readability,justext] [--choose-among iawce,trafilatura,readability] [--heldout]
    .venv/bin/python benchmarks/choice.py consensus --wcxb $DATA/wcxb.jsonl --dragnet $DATA/dragnet.jsonl [--heldout]

``collect`` runs every candidate (:data:`CANDIDATES`) on each page of a WCXB-layout folder
with no page type (what ``scrapy extract`` and an unsure crawl do) and caches, per page, its
split role, iawce's page-type reading, the page's word statistics and each candidate's text
and milliseconds (JSONL; an interrupted run goes on where it stopped). The cache holds page
text: keep it outside the project (Dragnet's licence forbids copying it in).

``evaluate`` fits a regression of a candidate's word F1 on features that never name the
candidate (:func:`candidate_agnostic_features`: its length and share of the page, link
text, line shape, agreement with the other candidates, and where its unsupported text sits:
before, inside or after the lines the other candidates also have). It is fitted on WCXB
dev's training pages, on the rows of ``--fit-on`` only: candidates whose rules were never
tuned on WCXB dev (the peers), so that their outputs there are as good as anywhere else.
The margin by which another candidate's estimate must beat iawce's is chosen on Dragnet's
validation split (no rule has seen it); WCXB dev's validation pages are reported beside it,
and the held-out splits of both only with ``--heldout`` (once per change set).

Printed per family and split: iawce's, trafilatura's and the oracle's mean word F1, and for
each margin the pick's mean word F1, how often it leaves iawce, and the Spearman
correlation of the picked candidate's estimate with its true F1.

``consensus`` chooses the thresholds of the ensemble's peer consensus
(:mod:`pipelines.extraction.consensus`) the same way: over :data:`CONSENSUS_GRID`, on
pages iawce read as articles, the setting with the best mean on Dragnet's validation split
among those that keep each of WCXB dev's training and validation splits within
:data:`WCXB_TOLERANCE` of iawce (ties: the one better on WCXB dev). Printed: the shipped
setting's and the chosen one's change over iawce per family and split, with a paired
bootstrap 95 % interval and the pages better and worse, and the shipped setting without
the article type.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from statistics import fmean

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np
from scrapy.settings import Settings

import settings as project_settings
from models.common.splits import HELDOUT, SPLIT_FILE, TRAIN, VALIDATION
from models.quality.features import AGNOSTIC_FEATURES, PageStats, agnostic_features, majority_bag, page_stats
from models.quality.train import quality_metrics
from pipelines.artifacts import read_local_artifact
from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.text import tokens
from pipelines.extraction import ARTICLE, Page, build_extractor, decode_html
from pipelines.extraction.consensus import ConsensusOptions, consensus_peer, ruled_out_by_lead

#: The extractors collected: ours (iawce reads the page as its guessed type and as the
#: other one; DOM PageRank) and the peers.
CANDIDATES = ("iawce", "iawce-other-type", "dom-pagerank", "trafilatura", "readability", "justext")
#: Candidates no rule of this project was tuned on: their rows train the estimate.
PEERS = ("trafilatura", "readability", "justext")
#: Margins tried (how much another candidate's estimate must beat iawce's).
MARGINS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 1.0)
#: Share of a line's words the other candidates' majority must hold for the line to be
#: "supported".
SUPPORTED = 0.8
#: A line of at most this many words is short (bylines, dates, "Reply", teaser titles).
SHORT_LINE = 5
#: The peer consensus's settings tried: (min_peer_agreement, margin, min_short_share).
CONSENSUS_GRID = [
    (agreement, margin, short)
    for agreement in (0.5, 0.6, 0.7, 0.8)
    for margin in (-0.1, 0.0, 0.1, 0.2)
    for short in (0.0, 0.2, 0.4, 0.5, 0.6)
]
#: How far below iawce a consensus setting may leave each of WCXB dev's tuning splits.
WCXB_TOLERANCE = 0.002
#: The shares of the lead's words in short lines under which no peer runs, tried once the
#: other thresholds are chosen (with none of this gate).
LEAD_SHORT_GRID = (0.0, 0.02, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3)


#: The columns of :func:`candidate_agnostic_features`, in order: the ensemble's
#: candidate-agnostic ones, then these.
FEATURE_NAMES = (
    *AGNOSTIC_FEATURES,
    "agreement_min",
    "precision_mean",
    "recall_mean",
    "length_rank",
    "before",
    "after",
    "inside",
    "unsupported_short_share",
    "unsupported_link_share",
)


@dataclass
class CachedPage:
    """One page of a cache: id, split role, iawce's page-type reading, word statistics,
    gold text, and each candidate's text and milliseconds."""

    file_id: str
    role: str
    page_type: str
    stats: PageStats
    gold: str
    texts: dict[str, str | None]
    ms: dict[str, float]


def collect(dataset: Path, cache: Path) -> int:
    """Run :data:`CANDIDATES` on the pages of ``dataset`` not yet in ``cache``; the number
    of pages the cache then holds."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from extract import load_pages

    settings = Settings()
    settings.setmodule(project_settings)
    pages, _ = load_pages(dataset, SPLIT_FILE, settings)
    extractors = {name: build_extractor(name, settings) for name in CANDIDATES}
    done = {page.file_id for page in read_cache(cache)}
    cache.parent.mkdir(parents=True, exist_ok=True)
    with cache.open("a", encoding="utf-8") as out:
        for index, page in enumerate(pages, start=1):
            if page.file_id in done:
                continue
            html = decode_html(read_local_artifact(page.record.html_path))
            parsed = Page(html, page.record.url, None).parsed
            texts, ms, page_type = {}, {}, "article"
            for name, extractor in extractors.items():
                begin = time.perf_counter()
                found = extractor.extract(Page(html, page.record.url, None))
                ms[name] = (time.perf_counter() - begin) * 1000
                texts[name] = found.text if found else None
                if name == "iawce" and found is not None:
                    page_type = found.page_type
            row = {
                "file_id": page.file_id,
                "role": page.role,
                "page_type": page_type,
                "stats": page_stats(parsed.root if parsed is not None else None).to_dict(),
                "gold": page.record.gold_text,
                "texts": texts,
                "ms": ms,
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
            done.add(page.file_id)
            if index % 100 == 0:
                print(f"{index}/{len(pages)} pages", file=sys.stderr)
    return len(done)


def read_cache(path: Path) -> list[CachedPage]:
    """The cached pages, in file order (none when the file does not exist). Lines split at
    ``\n`` only: page text may hold U+2028, where ``str.splitlines`` would split too."""
    if not path.is_file():
        return []
    pages = []
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.strip():
            row = json.loads(line)
            pages.append(CachedPage(**{**row, "stats": PageStats(**row["stats"])}))
    return pages


def candidate_agnostic_features(
    texts: Sequence[str | None], stats: PageStats, page_type: str
) -> list[list[float]]:
    """One row per candidate text, never naming the candidate: the ensemble's
    :func:`models.quality.features.agnostic_features` (size, link share, line shape,
    agreement, the page), then the least word F1 with another text, the mean precision and
    recall against each other one, its length rank, and where its unsupported text sits:
    the share of its words before the first and after the last line the others' majority
    holds, and inside that span, with the short-line and link share of that unsupported
    text. A news story's comments and related-story rails sit after the span; the
    paragraphs a narrower extractor missed, inside it. Columns: :data:`FEATURE_NAMES`."""
    shared_rows, agreement = agnostic_features(texts, stats, page_type)
    bags = [Counter(tokens(text)) for text in texts]
    counts = [sum(bag.values()) for bag in bags]
    found = [c for c in counts if c]
    link_bag = Counter(stats.link_bag)
    rows = []
    for i, text in enumerate(texts):
        others = [j for j in range(len(texts)) if j != i and counts[j]]
        shared = {j: sum((bags[i] & bags[j]).values()) for j in others}
        precision = [shared[j] / counts[i] for j in others if counts[i]]
        recall = [shared[j] / counts[j] for j in others]
        majority = majority_bag(bags[:i] + bags[i + 1 :])
        lines = [line for line in (tokens(line) for line in (text or "").splitlines()) if line]
        total = sum(len(line) for line in lines) or 1
        supported = [sum(1 for word in line if majority[word]) / len(line) >= SUPPORTED for line in lines]
        held = [k for k, ok in enumerate(supported) if ok]
        unsupported = [line for line, ok in zip(lines, supported, strict=True) if not ok]
        loose = sum(len(line) for line in unsupported) or 1
        if held:
            before = sum(len(line) for line in lines[: held[0]]) / total
            after = sum(len(line) for line in lines[held[-1] + 1 :]) / total
            inside = (
                sum(len(line) for k, line in enumerate(lines) if held[0] < k < held[-1] and not supported[k])
                / total
            )
        else:
            before, after, inside = 0.0, 1.0 if lines else 0.0, 0.0
        loose_bag = Counter(word for line in unsupported for word in line)
        rows.append(
            [
                *shared_rows[i],
                min((agreement[i][j] for j in others), default=0.0),
                fmean(precision) if precision else 0.0,
                fmean(recall) if recall else 0.0,
                sum(1 for c in found if c < counts[i]) / len(found) if found and counts[i] else 0.0,
                before,
                after,
                inside,
                sum(len(line) for line in unsupported if len(line) <= SHORT_LINE) / loose,
                sum((loose_bag & link_bag).values()) / loose,
            ]
        )
    return rows


@dataclass
class Table:
    """Feature rows (pages × candidates × features), true word F1 (pages × candidates)
    and each page's role."""

    features: np.ndarray
    f1: np.ndarray
    roles: np.ndarray


def table(pages: list[CachedPage], candidates: Sequence[str]) -> Table:
    """The rows and targets of ``candidates`` on ``pages``."""
    features, f1 = [], []
    for page in pages:
        texts = [page.texts[name] for name in candidates]
        features.append(candidate_agnostic_features(texts, page.stats, page.page_type))
        gold = tokens(page.gold)
        f1.append([word_prf(tokens(text), gold).f1 for text in texts])
    return Table(np.array(features), np.array(f1), np.array([page.role for page in pages]))


def evaluate(
    wcxb: list[CachedPage],
    dragnet: list[CachedPage],
    fit_on: Sequence[str],
    among: Sequence[str],
    heldout: bool,
) -> str:
    """The report (see the module docstring)."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    if among[0] != "iawce":
        raise SystemExit("--choose-among must start with iawce (the default the margin is measured against)")
    names = list(dict.fromkeys([*among, *fit_on]))
    families = {"WCXB dev": table(wcxb, names), "Dragnet": table(dragnet, names)}
    train = families["WCXB dev"]
    fit_columns = [names.index(name) for name in fit_on]
    x = train.features[train.roles == TRAIN][:, fit_columns]
    y = train.f1[train.roles == TRAIN][:, fit_columns]
    model = HistGradientBoostingRegressor(
        max_iter=200, learning_rate=0.05, max_leaf_nodes=15, min_samples_leaf=20, random_state=0
    )
    model.fit(x.reshape(-1, x.shape[-1]), y.reshape(-1))
    columns = [names.index(name) for name in among]
    roles = (TRAIN, VALIDATION, HELDOUT) if heldout else (TRAIN, VALIDATION)
    lines = [
        f"estimate fitted on WCXB dev train, rows of {', '.join(fit_on)}; choosing among {', '.join(among)}"
    ]
    for family, data in families.items():
        for role in roles:
            rows = data.roles == role
            if not rows.any():
                continue
            features, f1 = data.features[rows][:, columns], data.f1[rows][:, columns]
            estimates = np.clip(model.predict(features.reshape(-1, features.shape[-1])), 0, 1).reshape(
                f1.shape
            )
            lines.append(
                f"{family} {role} ({rows.sum()} pages): iawce {f1[:, 0].mean():.4f}"
                + (
                    f", trafilatura {f1[:, among.index('trafilatura')].mean():.4f}"
                    if "trafilatura" in among
                    else ""
                )
                + f", oracle {f1.max(axis=1).mean():.4f}"
            )
            index = np.arange(len(f1))
            for margin in MARGINS:
                best = estimates.argmax(axis=1)
                picked = np.where(estimates[index, best] - estimates[:, 0] > margin, best, 0)
                chosen = f1[index, picked]
                ranking = quality_metrics(estimates[index, picked], chosen)
                lines.append(
                    f"  margin {margin:.2f}: pick {chosen.mean():.4f} ({chosen.mean() - f1[:, 0].mean():+.4f}), "
                    f"leaves iawce on {(picked != 0).mean():.1%}, Spearman {ranking['spearman']:.3f}"
                )
    return "\n".join(lines)


def consensus_gains(pages: list[CachedPage], options: ConsensusOptions, typed: bool = True) -> np.ndarray:
    """Per page, the word F1 of the consensus's choice less iawce's (0 where it keeps
    iawce); ``typed``: only on pages iawce read as articles, as the ensemble asks it."""
    gains = []
    for page in pages:
        lead = page.texts["iawce"]
        consensus = None
        if lead and (page.page_type == ARTICLE or not typed) and not ruled_out_by_lead(lead, options):
            consensus = consensus_peer(lead, page.texts, options)
        if consensus is None:
            gains.append(0.0)
            continue
        gold = tokens(page.gold)
        gains.append(word_prf(tokens(page.texts[consensus.peer]), gold).f1 - word_prf(tokens(lead), gold).f1)
    return np.array(gains)


def consensus_report(wcxb: list[CachedPage], dragnet: list[CachedPage], heldout: bool) -> str:
    """The consensus's thresholds chosen on Dragnet validation, and the report (see the
    module docstring)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from fallback import bootstrap_interval

    splits = {
        (family, role): [page for page in pages if page.role == role]
        for family, pages in (("WCXB dev", wcxb), ("Dragnet", dragnet))
        for role in (TRAIN, VALIDATION, HELDOUT)
    }

    def options(setting: tuple[float, float, float], lead_short: float = 0.0) -> ConsensusOptions:
        agreement, margin, short = setting
        return ConsensusOptions(
            min_peer_agreement=agreement,
            margin=margin,
            min_short_share=short,
            min_lead_short_share=lead_short,
        )

    @cache
    def mean_gain(setting: tuple[float, float, float], key: tuple[str, str]) -> float:
        return float(consensus_gains(splits[key], options(setting)).mean())

    allowed = [
        setting
        for setting in CONSENSUS_GRID
        if min(mean_gain(setting, ("WCXB dev", role)) for role in (TRAIN, VALIDATION)) >= -WCXB_TOLERANCE
    ]
    if not allowed:
        raise SystemExit(f"no consensus setting keeps WCXB dev within {WCXB_TOLERANCE} of iawce")
    chosen = max(  # ties go to the setting that leaves WCXB dev better
        allowed,
        key=lambda setting: (
            mean_gain(setting, ("Dragnet", VALIDATION)),
            sum(mean_gain(setting, ("WCXB dev", role)) for role in (TRAIN, VALIDATION)),
        ),
    )
    default = ConsensusOptions()
    shipped = (default.min_peer_agreement, default.margin, default.min_short_share)
    lead_short, gate_lines = lead_gate(splits, options(chosen), default.min_lead_short_share)
    lines = [
        f"chosen on Dragnet validation (WCXB dev train and validation each within {WCXB_TOLERANCE}): "
        f"min_peer_agreement {chosen[0]}, margin {chosen[1]}, min_short_share {chosen[2]}, "
        f"min_lead_short_share {lead_short}; shipped: {shipped[0]}, {shipped[1]}, {shipped[2]}, "
        f"{default.min_lead_short_share}",
        *gate_lines,
    ]
    roles = (TRAIN, VALIDATION, HELDOUT) if heldout else (TRAIN, VALIDATION)
    rows = [
        ("shipped", options(shipped, default.min_lead_short_share), True),
        ("chosen", options(chosen, lead_short), True),
        ("shipped, any page type", options(shipped, default.min_lead_short_share), False),
    ]
    for (family, role), pages in splits.items():
        if role not in roles or not pages:
            continue
        base = fmean(word_prf(tokens(page.texts["iawce"] or ""), tokens(page.gold)).f1 for page in pages)
        lines.append(f"{family} {role} ({len(pages)} pages): iawce {base:.4f}")
        for label, setting, typed in rows:
            gains = consensus_gains(pages, setting, typed)
            low, high = bootstrap_interval(gains.tolist())
            lines.append(
                f"  {label}: {base + gains.mean():.4f} ({gains.mean():+.4f} [{low:+.4f}, {high:+.4f}]), "
                f"{(gains > 0.005).sum()} pages better, {(gains < -0.005).sum()} worse"
            )
    return "\n".join(lines)


def lead_gate(
    splits: dict[tuple[str, str], list[CachedPage]], chosen: ConsensusOptions, shipped: float
) -> tuple[float, list[str]]:
    """The largest share of :data:`LEAD_SHORT_GRID` under which no peer runs that drops
    none of the pages ``chosen`` (ungated) improves on Dragnet's validation split, and per
    share and tuning split, the gain and the share of article pages on which the peers
    would still run (the ``shipped`` share marked)."""
    fixed = consensus_gains(splits[("Dragnet", VALIDATION)], chosen) > 0
    keeping = [
        share
        for share in LEAD_SHORT_GRID
        if (
            consensus_gains(splits[("Dragnet", VALIDATION)], replace(chosen, min_lead_short_share=share))[
                fixed
            ]
            > 0
        ).all()
    ]
    lines = [
        "the lead's short-line share under which no peer runs (gain over iawce; article pages the peers run on):"
    ]
    for share in LEAD_SHORT_GRID:
        gated = replace(chosen, min_lead_short_share=share)
        cells = []
        for family, role in (
            ("Dragnet", TRAIN),
            ("Dragnet", VALIDATION),
            ("WCXB dev", TRAIN),
            ("WCXB dev", VALIDATION),
        ):
            pages = [
                page for page in splits[(family, role)] if page.texts["iawce"] and page.page_type == ARTICLE
            ]
            asked = sum(not ruled_out_by_lead(page.texts["iawce"] or "", gated) for page in pages)
            gain = consensus_gains(splits[(family, role)], gated).mean()
            cells.append(f"{family} {role} {gain:+.4f}; {asked / max(1, len(pages)):.0%}")
        mark = " (shipped)" if share == shipped else ""
        lines.append(f"  {share:.2f}{mark}: " + ", ".join(cells))
    return max(keeping, default=0.0), lines


def names(value: str) -> list[str]:
    """A comma-separated list of extractor names."""
    return [name.strip() for name in value.split(",") if name.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    collecting = commands.add_parser("collect", help="run the candidates on a WCXB-layout folder, cached")
    collecting.add_argument("dataset", type=Path)
    collecting.add_argument("--cache", type=Path, required=True, help="JSONL, kept outside the project")
    evaluating = commands.add_parser("evaluate", help="fit on WCXB dev's peers, choose on Dragnet validation")
    evaluating.add_argument("--wcxb", type=Path, required=True, help="WCXB dev's cache")
    evaluating.add_argument("--dragnet", type=Path, required=True, help="Dragnet's cache")
    evaluating.add_argument("--fit-on", default=",".join(PEERS), help=f"default {','.join(PEERS)}")
    evaluating.add_argument("--choose-among", default="iawce,trafilatura,readability")
    evaluating.add_argument("--heldout", action="store_true", help="also score the held-out splits (once)")
    agreeing = commands.add_parser(
        "consensus", help="choose the peer consensus's thresholds on Dragnet validation"
    )
    agreeing.add_argument("--wcxb", type=Path, required=True, help="WCXB dev's cache")
    agreeing.add_argument("--dragnet", type=Path, required=True, help="Dragnet's cache")
    agreeing.add_argument("--heldout", action="store_true", help="also score the held-out splits (once)")
    args = parser.parse_args(argv)
    if args.command == "collect":
        if not (args.dataset / "ground-truth").is_dir():
            raise SystemExit(f"{args.dataset}: no ground-truth/ (not a WCXB-layout folder)")
        print(f"{collect(args.dataset, args.cache)} pages in {args.cache}")
        return 0
    caches = {path: read_cache(path) for path in (args.wcxb, args.dragnet)}
    if missing := [str(path) for path, pages in caches.items() if not pages]:
        raise SystemExit(f"no cached pages in {', '.join(missing)}: run `collect` first")
    if args.command == "consensus":
        print(consensus_report(caches[args.wcxb], caches[args.dragnet], args.heldout))
        return 0
    fit_on, among = names(args.fit_on), names(args.choose_among)
    print(evaluate(caches[args.wcxb], caches[args.dragnet], fit_on, among, args.heldout))
    return 0


if __name__ == "__main__":
    sys.exit(main())
