"""The line merge's lexicon (issue 14): a logistic model of "this line belongs to the gold
main content" over the words and word pairs of a line, learned from the candidate lines of
the training domains.

The merge's other line features describe shape and agreement (length, link words, votes,
position); none of them reads what a line says, so a product page's "Free 90-day returns"
or "4.4 stars out of 1935 reviews", which every candidate keeps, looked like its
description. Only terms that occur on at least ``min_domains`` training domains are kept,
so what is learned are words of page furniture shared across sites, not a site's own
vocabulary. Prediction is a dictionary lookup and a sum (numpy only); fitting uses
scikit-learn's logistic regression on the L2-normalised binary term vector.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: A line's first words that give its terms (a long paragraph's later words add nothing).
TERM_WORDS = 40
#: The checkpoint's arrays of a lexicon, after its prefix.
LEXICON_ARRAYS = ("lexicon_terms", "lexicon_weights")


def line_terms(words: Sequence[str]) -> set[str]:
    """A line's terms: its first :data:`TERM_WORDS` words and the pairs of neighbours
    among them (joined by a space; words are ``tokens``' lowercased ``\\w+`` runs)."""
    first = words[:TERM_WORDS]
    return {*first, *(f"{a} {b}" for a, b in itertools.pairwise(first))}


@dataclass
class Lexicon:
    """Each kept term's weight and the bias: a line's log-odds of being gold is the bias
    plus the sum of its known terms' weights over the square root of their count."""

    terms: dict[str, int]
    weights: np.ndarray
    bias: float

    def evidence(self, words: Sequence[str]) -> float:
        """What the line's known terms add to the bias (0 when it has none)."""
        known = [self.terms[term] for term in line_terms(words) if term in self.terms]
        return float(self.weights[known].sum()) / math.sqrt(len(known)) if known else 0.0

    def known_words(self, words: Sequence[str]) -> int:
        """How many of the words are terms of the lexicon."""
        return sum(1 for word in words if word in self.terms)

    def to_arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """The terms (newline-joined UTF-8, in index order) and their weights (fp16)."""
        ordered = sorted(self.terms, key=self.terms.__getitem__)
        encoded = "\n".join(ordered).encode("utf-8")
        return {
            f"{prefix}lexicon_terms": np.frombuffer(encoded, dtype=np.uint8),
            f"{prefix}lexicon_weights": self.weights.astype(np.float16),
        }

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray], prefix: str, bias: float) -> Lexicon:
        """The inverse of :meth:`to_arrays`; ``ValueError`` when terms and weights differ
        in number."""
        text = arrays[f"{prefix}lexicon_terms"].tobytes().decode("utf-8")
        terms = text.split("\n") if text else []
        weights = arrays[f"{prefix}lexicon_weights"].astype(np.float32)
        if len(terms) != len(weights):
            raise ValueError(f"a lexicon of {len(terms)} terms and {len(weights)} weights")
        return cls({term: i for i, term in enumerate(terms)}, weights, bias)


def fit_lexicon(
    term_sets: Sequence[set[str]],
    labels: np.ndarray,
    weights: np.ndarray,
    domains: Sequence[str],
    *,
    c: float,
    min_domains: int,
) -> Lexicon:
    """A :class:`Lexicon` fitted on lines given as their :func:`line_terms` (``labels``: in
    the gold; ``weights``: each line's sample weight; ``domains``: its page's domain),
    with terms seen on at least ``min_domains`` domains and inverse regularisation
    strength ``c``."""
    from scipy.sparse import csr_matrix
    from sklearn.linear_model import LogisticRegression

    seen_on: dict[str, set[str]] = defaultdict(set)
    for terms, domain in zip(term_sets, domains, strict=True):
        for term in terms:
            seen_on[term].add(domain)
    kept = sorted(term for term, where in seen_on.items() if len(where) >= min_domains)
    index = {term: i for i, term in enumerate(kept)}
    if not kept or len(set(labels.tolist())) < 2:  # nothing to learn: the weighted prior
        share = float(np.clip(np.average(labels, weights=weights), 1e-3, 1 - 1e-3))
        return Lexicon({}, np.zeros(0, dtype=np.float32), math.log(share / (1 - share)))
    rows, columns, values = [], [], []
    for row, terms in enumerate(term_sets):
        known = [index[term] for term in terms if term in index]
        if not known:
            continue
        rows += [row] * len(known)
        columns += known
        values += [1.0 / math.sqrt(len(known))] * len(known)
    matrix = csr_matrix((values, (rows, columns)), shape=(len(term_sets), len(kept)))
    model = LogisticRegression(C=c, max_iter=500, solver="liblinear")
    model.fit(matrix, labels, sample_weight=weights)
    stored = model.coef_[0].astype(np.float16).astype(np.float32)  # as the checkpoint keeps them
    return Lexicon(index, stored, float(model.intercept_[0]))
