"""Tune DOM PageRank's α (β fixed at 1: only α/β matters), prior and media weight on the
train domains of the one split (``models/common/splits.py``), by mean word F1 of the main
element's text leaves against the gold (pages with a gold text).

    .venv/bin/python benchmarks/tune_dompagerank.py ../shared/datasets/wcxb-dev [--every 2] [--out tune.json]

``--every N`` takes every N-th train page (the tuning is CPU-bound). One sparse LU
factorization per page and α serves every prior.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections import defaultdict
from pathlib import Path
from statistics import fmean

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import splu

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from models.common.splits import TRAIN, load_split
from pipelines.artifacts import read_local_artifact
from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.text import tokens
from pipelines.evaluation.wcxb import read_wcxb
from pipelines.extraction import decode_html
from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.dompagerank import DomGraph, DomPageRankExtractor, density_sum, dom_graph

ALPHAS = (0.01, 0.05, 0.1, 0.5, 1.0, 5.0)
PRIORS = (("text-uniform", 0.5), ("text-length", 0.5), ("title", 0.5), ("title", 0.9))
MEDIA = (0.0, 1.0)

Setting = tuple[float, str, float, float]  # alpha, prior, gamma, media


def leaf_spans(graph: DomGraph) -> list[tuple[int, int]]:
    """Per element, the range of its text leaves (a subtree's leaves are contiguous)."""
    position = {element: i for i, element in enumerate(graph.elements)}
    first = [len(graph.leaves)] * len(graph.elements)
    last = [-1] * len(graph.elements)
    for number, leaf in enumerate(graph.leaves):
        for element in leaf.ancestors():
            i = position.get(element)
            if i is None:
                break
            first[i] = min(first[i], number)
            last[i] = max(last[i], number)
    return list(zip(first, last, strict=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--every", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    split = load_split()
    records = [r for r in read_wcxb(args.dataset) if r.has_html and r.gold_text.strip()]
    records = [r for r in records if split.role(r.domain) == TRAIN][:: args.every]
    scores: dict[Setting, list[float]] = defaultdict(list)
    by_type: dict[Setting, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for count, record in enumerate(records, 1):
        root = parse_html(decode_html(read_local_artifact(record.html_path)))
        if root is None:
            continue
        graph = dom_graph(body_of(root))
        gold = tokens(record.gold_text)
        spans = leaf_spans(graph)
        priors = {
            (prior, gamma, media): DomPageRankExtractor(
                DomPageRankExtractor.Options(prior=prior, gamma=gamma, media=media)
            ).prior(graph, root)
            for (prior, gamma), media in itertools.product(PRIORS, MEDIA)
        }
        identity = sparse.identity(graph.laplacian.shape[0], format="csc")
        for alpha in ALPHAS:
            solver = splu((graph.laplacian + alpha * identity).tocsc())
            for key, u in priors.items():
                f1 = 0.0
                if u.any():
                    best = int(np.argmax(density_sum(graph, np.maximum(0.0, solver.solve(u)))))
                    first, last = spans[best]
                    words = [t for leaf in graph.leaves[first : last + 1] for t in leaf.tokens]
                    f1 = word_prf(words, gold).f1
                setting = (alpha, *key)
                scores[setting].append(f1)
                by_type[setting][record.known_page_type].append(f1)
        if count % 50 == 0:
            print(f"{count}/{len(records)} pages", file=sys.stderr)
    ranked = sorted(scores, key=lambda k: fmean(scores[k]), reverse=True)
    print("| alpha | prior | gamma | media | train word F1 |\n|---|---|---|---|---|")
    for alpha, prior, gamma, media in ranked[:12]:
        f1 = fmean(scores[(alpha, prior, gamma, media)])
        print(f"| {alpha} | {prior} | {gamma} | {media} | {f1:.3f} |")
    if args.out:
        rows = [
            {
                "alpha": k[0],
                "prior": k[1],
                "gamma": k[2],
                "media": k[3],
                "f1": fmean(scores[k]),
                "by_type": {t: fmean(v) for t, v in by_type[k].items()},
            }
            for k in ranked
        ]
        args.out.write_text(json.dumps({"pages": len(records), "rows": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
