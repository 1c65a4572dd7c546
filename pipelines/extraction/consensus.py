"""Peer consensus: when two independent extractors agree on an article's story and the
lead candidate's reading holds more, mostly in short lines neither of them has, the
peers' story is the page's.

The extra short lines are what a reader skips: menus, related-story rails, tag clouds,
comment headers ("(Score:5, Insightful)", "by … writes:"). Long lines the peers lack
are left alone: on a forum thread they are the replies, which the gold of WCXB dev keeps
and two extractors built for articles drop. The ensemble asks this only of a page typed
article, and only when its pick is the lead (:mod:`pipelines.extraction.ensemble`).

Measured with iawce as the lead, trafilatura and readability as the peers, no trusted page
type, word F1 (``benchmarks/choice.py consensus``, which chose the thresholds below on
Dragnet's validation split, among the settings that keep each of WCXB dev's training and
validation splits within 0.002 of iawce; no rule was tuned on Dragnet's validation split):

| split | iawce | with the consensus | paired 95 % interval | pages better / worse |
|---|---|---|---|---|
| Dragnet train (797) | 0.8679 | 0.8844 | +0.011 to +0.022 | 44 / 0 |
| Dragnet validation (265) | 0.8634 | 0.8822 | +0.010 to +0.029 | 15 / 0 |
| WCXB dev train (961) | 0.8995 | 0.8999 | -0.002 to +0.003 | 8 / 11 |
| WCXB dev validation (186) | 0.8746 | 0.8739 | -0.002 to 0.000 | 0 / 2 |

Asked on every page type, it also fires on WCXB's collection and listing pages, whose
product names are short lines (WCXB dev validation -0.0035). Without the short-line test
(any extra text) the families trade: Dragnet +0.048 / +0.036, WCXB dev -0.011 / -0.007
(benchmarks/HISTORY.md, "Peer consensus in the ensemble"). Which peer is taken matters
little: the closer to the lead, the longer, trafilatura or readability always were all
within 0.0007 of each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.text import tokens


@dataclass(frozen=True)
class ConsensusOptions:
    """``enabled``: whether the ensemble asks; ``peers``: the two extractors whose
    agreement counts; ``min_peer_agreement``: their word F1 with each other at least;
    ``margin``: the lead's word F1 with the closer peer at most the peers' agreement less
    this; ``min_short_share``: of the words in the lead's lines that the peers lack
    (under ``covered_share`` of a line's tokens among the peers' words), the share in
    lines of fewer than ``short_line_tokens`` tokens at least; ``min_lead_short_share``:
    the share of all the lead's words in such short lines at least, before any peer runs
    (:func:`ruled_out_by_lead`)."""

    enabled: bool = True
    peers: tuple[str, str] = ("trafilatura", "readability")
    min_peer_agreement: float = 0.6
    margin: float = 0.1
    min_short_share: float = 0.4
    short_line_tokens: int = 10
    covered_share: float = 0.5
    min_lead_short_share: float = 0.05


@dataclass(frozen=True)
class Consensus:
    """The peer whose text replaces the lead's, and the peers' word F1 with each other:
    the extraction's quality estimate. On Dragnet's validation split, the ensemble's
    estimate's Spearman correlation with the true F1 is 0.494 with the quality model's
    estimate for the peer, 0.556 with this agreement (no page type: 0.507, 0.562)."""

    peer: str
    agreement: float


def consensus_peer(lead: str, peers: Mapping[str, str | None], options: ConsensusOptions) -> Consensus | None:
    """The peer (of ``options.peers``) whose text should replace ``lead``'s, or None: the
    peers agree, the lead stands apart from both, and the words it adds are mostly in
    short lines."""
    first, second = options.peers
    peer_tokens = {name: tokens(peers.get(name) or "") for name in options.peers}
    if not peer_tokens[first] or not peer_tokens[second]:
        return None
    lead_tokens = tokens(lead)
    agreement = word_prf(peer_tokens[first], peer_tokens[second]).f1
    closeness = {name: word_prf(lead_tokens, toks).f1 for name, toks in peer_tokens.items()}
    if agreement < options.min_peer_agreement or max(closeness.values()) > agreement - options.margin:
        return None
    if (
        _short_share(lead, set(peer_tokens[first]) | set(peer_tokens[second]), options)
        < options.min_short_share
    ):
        return None
    return Consensus(max(peer_tokens, key=closeness.__getitem__), agreement)


def ruled_out_by_lead(lead: str, options: ConsensusOptions) -> bool:
    """Whether the lead's text alone rules the consensus out, so that no peer need run:
    under ``min_lead_short_share`` of its words sit in short lines. Short lines the peers
    lack are what the consensus removes, and a lead with almost none has little to remove.
    Not exact (words the peers lack in the few short lines can still be most of what it
    adds), so the share is chosen on Dragnet's validation split: the largest that drops
    none of the pages the consensus improves there (``benchmarks/choice.py consensus``).
    At 0.05 the consensus's gain is unchanged on both families' training and validation
    splits, and its peers run on 38-41 % of Dragnet's article pages instead of all (71-75 %
    of WCXB dev's); at 0.1, 24-26 %, and Dragnet validation loses 0.0007."""
    total = short = 0
    for line in lead.splitlines():
        count = len(tokens(line))
        total += count
        if count < options.short_line_tokens:
            short += count
    return short < options.min_lead_short_share * total


def ruled_out_by_first_peer(lead: str, first: str | None, options: ConsensusOptions) -> bool:
    """Whether the first peer's text alone rules the consensus out, so that the second
    need not run: it found no words, or the lead is within ``margin`` of it (no agreement
    between the peers can then exceed the lead's closeness by the margin). Exact: it
    changes no outcome of :func:`consensus_peer`."""
    first_tokens = tokens(first or "")
    return not first_tokens or word_prf(tokens(lead), first_tokens).f1 > 1.0 - options.margin


def _short_share(lead: str, peer_vocabulary: set[str], options: ConsensusOptions) -> float:
    """Of the words in ``lead``'s lines that the peers' words do not cover, the share in
    short lines."""
    extra = short = 0
    for line in lead.splitlines():
        line_tokens = tokens(line)
        if not line_tokens:
            continue
        if sum(token in peer_vocabulary for token in line_tokens) >= options.covered_share * len(line_tokens):
            continue
        extra += len(line_tokens)
        if len(line_tokens) < options.short_line_tokens:
            short += len(line_tokens)
    return short / extra if extra else 0.0
