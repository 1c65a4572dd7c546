"""Unrelated-pair calibration of the Hamming thresholds.

A threshold means little on its own: an extraction of page A should be far from the
gold of an unrelated page B of the same site. For each extracted page we measure the
distance to the gold of up to ``pairs_per_page`` other pages of its site (the next ones
in gold order, wrapping around); pairs whose two gold texts have the same fingerprint
are not unrelated and are left out. The share of these pairs below a threshold is how
often that threshold would call an unrelated page correctly/completely extracted.

Sets with one page per site (WCXB) have no same-site pairs; ``same_site=False`` pairs
pages across the whole set instead, which still shows how far unrelated texts are.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pipelines.evaluation.fingerprint import hamming_distance


def unrelated_distances(
    rows: Sequence[Mapping[str, Any]], pairs_per_page: int, *, same_site: bool = True
) -> list[list[int]]:
    """For each row (per-page scores with ``site``, ``extracted_simhash`` and
    ``gold_simhash``), the distances from its extraction to other pages' gold: pages of
    its site, or of any site when ``same_site`` is false."""
    by_site: dict[str, list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        if row.get("gold_simhash"):
            by_site[row["site"] if same_site else ""].append(index)
    result: list[list[int]] = [[] for _ in rows]
    for members in by_site.values():
        gold_prints = [int(rows[i]["gold_simhash"], 16) for i in members]
        for position, index in enumerate(members):
            extracted = rows[index].get("extracted_simhash")
            if not extracted:
                continue
            extracted_print = int(extracted, 16)
            own_gold = gold_prints[position]
            others = [
                gold_prints[(position + step) % len(members)]
                for step in range(1, min(pairs_per_page, len(members) - 1) + 1)
            ]
            result[index] = [
                hamming_distance(extracted_print, other) for other in others if other != own_gold
            ]
    return result


@dataclass
class UnrelatedPairs:
    """Per-row distances to other pages' gold: same site, and any site."""

    same_site: list[list[int]]
    any_site: list[list[int]]

    @classmethod
    def of(cls, rows: Sequence[Mapping[str, Any]], pairs_per_page: int) -> UnrelatedPairs:
        return cls(
            unrelated_distances(rows, pairs_per_page),
            unrelated_distances(rows, pairs_per_page, same_site=False),
        )

    def subset(self, indexes: Sequence[int]) -> UnrelatedPairs:
        """The pairs of the rows at ``indexes``."""
        return UnrelatedPairs([self.same_site[i] for i in indexes], [self.any_site[i] for i in indexes])
