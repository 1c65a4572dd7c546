"""The one domain-disjoint split of WCXB dev that every trainer, tuner and benchmark reads.

``models/splits/wcxb-dev.json`` (committed) assigns every domain to ``train``,
``validation`` or ``heldout``, and every training domain to one of ``k`` folds for
out-of-fold predictions (a model trained on folds != f predicts the pages of fold f).
Held-out domains are the ones the earlier extraction benchmark held out (one domain in
five by MD5 of the domain), so no tuned number so far has seen them; validation domains
are dealt from the rest, per majority page type, so every split has every type.

Regenerate (deterministic) with ``python -m models.common.splits ../shared/datasets/wcxb-dev``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from models.common.shipped import shipped_file
from pipelines.evaluation.wcxb import read_wcxb
from pipelines.urls import normalize_site

SPLIT_FILE = shipped_file("models", "splits/wcxb-dev.json")
TRAIN, VALIDATION, HELDOUT = "train", "validation", "heldout"
ROLES = (TRAIN, VALIDATION, HELDOUT)
HELDOUT_SHARE = 5
VALIDATION_SHARE = 0.15
FOLDS = 5


class UnknownDomain(KeyError):
    """A domain the split does not know (not part of WCXB dev)."""


@dataclass(frozen=True)
class DomainSplit:
    """Role and fold of each WCXB dev domain."""

    roles: dict[str, str]
    folds: dict[str, int]
    k: int

    def role(self, domain: str) -> str:
        try:
            return self.roles[normalize_site(domain)]
        except KeyError:
            raise UnknownDomain(domain) from None

    def fold(self, domain: str) -> int | None:
        """The fold of a training domain; None for validation and held-out domains."""
        return self.folds.get(normalize_site(domain))

    def domains(self, role: str) -> list[str]:
        return sorted(d for d, r in self.roles.items() if r == role)


@cache
def load_split(path: Path = SPLIT_FILE) -> DomainSplit:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    roles = {domain: role for role in ROLES for domain in data[role]}
    folds = {domain: index for index, fold in enumerate(data["folds"]) for domain in fold}
    return DomainSplit(roles, folds, len(data["folds"]))


def make_split(root: Path) -> dict[str, Any]:
    """Deal WCXB dev's domains into the split (see the module docstring)."""
    records = read_wcxb(root)
    types_of: dict[str, Counter[str]] = defaultdict(Counter)
    for record in records:
        types_of[record.domain][record.page_type or ""] += 1
    digest = {d: int(hashlib.md5(d.encode("utf-8")).hexdigest(), 16) for d in types_of}
    heldout = sorted(d for d in types_of if digest[d] % HELDOUT_SHARE == 0)
    rest = [d for d in types_of if digest[d] % HELDOUT_SHARE]
    by_type: dict[str, list[str]] = defaultdict(list)
    for domain in rest:
        by_type[types_of[domain].most_common(1)[0][0]].append(domain)
    validation, train = [], []
    for page_type in sorted(by_type):
        domains = sorted(by_type[page_type], key=lambda d: digest[d] // HELDOUT_SHARE)
        cut = max(1, round(len(domains) * VALIDATION_SHARE)) if len(domains) >= 3 else 0
        validation += domains[:cut]
        train += domains[cut:]
    folds: list[list[str]] = [[] for _ in range(FOLDS)]
    for index, domain in enumerate(sorted(train, key=lambda d: (digest[d] >> 8) % 1_000_003)):
        folds[index % FOLDS].append(domain)
    pages = Counter(record.domain for record in records)
    return {
        "dataset": "wcxb-dev",
        "rule": __doc__.split("\n\n")[1].replace("\n", " "),
        "pages": {
            role: sum(pages[d] for d in ds)
            for role, ds in ((TRAIN, train), (VALIDATION, validation), (HELDOUT, heldout))
        },
        TRAIN: sorted(train),
        VALIDATION: sorted(validation),
        HELDOUT: heldout,
        "folds": [sorted(fold) for fold in folds],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wcxb", type=Path, help="the WCXB dev folder")
    parser.add_argument("--out", type=Path, default=SPLIT_FILE)
    args = parser.parse_args()
    split = make_split(args.wcxb)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(split, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{args.out}: {split['pages']}")


if __name__ == "__main__":
    main()
