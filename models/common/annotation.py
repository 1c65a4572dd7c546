"""Gold text → labels on the DOM, for every learned extractor (no hand marking).

- **Leaf labels**: the tokens of all text leaves, in document order, are aligned with the
  gold tokens by an in-order sequence alignment (difflib's matching blocks). Only runs
  of at least ``min_run`` tokens count (or the whole gold when it is shorter), so a menu
  word that also occurs in the body is not matched on its own. A leaf is content (1)
  when at least half of its tokens are matched. CJK characters are one token each
  (``pipelines.evaluation.text.tokens``), so CJK aligns by character.
- **Main element**: the element whose matched tokens give the best F1 against the gold
  (2·matched / (its tokens + gold tokens)); among equals the smallest (deepest) one: the
  one element that holds the whole body and as little else as possible.
- **Elements**: every element with text: its lxml path, its tokens and matched tokens,
  from which any per-element label (coverage = matched / gold, purity = matched /
  tokens) follows. Paths are lxml's ``getpath()``, the capture boxes' ``path``.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from statistics import fmean
from typing import Any

from tqdm import tqdm

from models.common.wcxb_pages import GoldPage
from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.text import tokens
from pipelines.extraction.dom import HtmlElement, body_of, parse_html
from pipelines.extraction.leaves import TextLeaf, text_leaves

#: Shortest run of aligned tokens that counts as a match.
MIN_RUN = 3
#: The annotation command's output file, one JSON line per page.
ANNOTATIONS_FILE = "annotations.jsonl"
#: Share of a leaf's tokens that must be matched for the leaf to be content.
LEAF_SHARE = 0.5


@dataclass
class ElementStats:
    path: str
    tokens: int
    matched: int


@dataclass
class Annotation:
    """One page's labels (see the module docstring)."""

    leaves: list[TextLeaf]
    labels: list[int]
    gold_tokens: int
    main_path: str | None
    elements: list[ElementStats]
    leaf_f1: float
    main_f1: float

    def to_json(self) -> dict[str, Any]:
        """The JSONL contract's label fields (README "Annotation")."""
        paths: dict[HtmlElement, str] = {}
        leaves: list[list[Any]] = []
        if self.leaves:
            tree = self.leaves[0].owner.getroottree()
            for leaf, label in zip(self.leaves, self.labels, strict=True):
                path = paths.get(leaf.owner) or paths.setdefault(leaf.owner, tree.getpath(leaf.owner))
                leaves.append([path, leaf.node, label])
        return {
            "gold_tokens": self.gold_tokens,
            "leaf_f1": round(self.leaf_f1, 4),
            "main_f1": round(self.main_f1, 4),
            "main_path": self.main_path,
            "leaves": leaves,
            "elements": [[e.path, e.tokens, e.matched] for e in self.elements],
        }


def matched_tokens(sequence: Sequence[str], gold: Sequence[str], min_run: int = MIN_RUN) -> list[bool]:
    """For each token of ``sequence``, whether the in-order alignment with ``gold`` matched it."""
    matched = [False] * len(sequence)
    if not sequence or not gold:
        return matched
    run = min(min_run, len(gold))
    matcher = SequenceMatcher(None, sequence, gold, autojunk=False)
    for start, _, size in matcher.get_matching_blocks():
        if size >= run:
            matched[start : start + size] = [True] * size
    return matched


def annotate(root: HtmlElement, gold_text: str, min_run: int = MIN_RUN) -> Annotation:
    """Leaf labels, main element and element stats of a parsed page against its gold."""
    body = body_of(root)
    leaves = text_leaves(body)
    gold = tokens(gold_text)
    sequence = [token for leaf in leaves for token in leaf.tokens]
    matched = matched_tokens(sequence, gold, min_run)
    labels, hits, start = [], [], 0
    for leaf in leaves:
        hit = sum(matched[start : start + len(leaf.tokens)])
        start += len(leaf.tokens)
        hits.append(hit)
        labels.append(int(hit >= LEAF_SHARE * len(leaf.tokens)))
    totals: dict[HtmlElement, list[int]] = {}
    for leaf, hit in zip(leaves, hits, strict=True):
        for element in leaf.ancestors():
            counts = totals.setdefault(element, [0, 0])
            counts[0] += len(leaf.tokens)
            counts[1] += hit
            if element is body:
                break
    tree = root.getroottree()
    main, best = None, (0.0, 0)
    for element, (count, hit) in totals.items():
        score = (2 * hit / (count + len(gold)), -count)
        if hit and score > best:
            main, best = element, score
    positive = [t for leaf, label in zip(leaves, labels, strict=True) if label for t in leaf.tokens]
    main_tokens = [t for leaf in leaves if main is not None and _within(leaf, main) for t in leaf.tokens]
    return Annotation(
        leaves=leaves,
        labels=labels,
        gold_tokens=len(gold),
        main_path=tree.getpath(main) if main is not None else None,
        elements=[ElementStats(tree.getpath(e), count, hit) for e, (count, hit) in totals.items()],
        leaf_f1=word_prf(positive, gold).f1,
        main_f1=word_prf(main_tokens, gold).f1,
    )


def annotate_html(html: str, gold_text: str, min_run: int = MIN_RUN) -> Annotation | None:
    """:func:`annotate` on an HTML string; None when it holds no markup."""
    root = parse_html(html)
    return None if root is None else annotate(root, gold_text, min_run)


def _within(leaf: TextLeaf, element: HtmlElement) -> bool:
    return any(ancestor is element for ancestor in leaf.ancestors())


def write_annotations(
    pages: Iterable[GoldPage], out: Path, min_run: int = MIN_RUN, progress: bool = False
) -> dict[str, Any]:
    """Annotate ``pages`` into ``out/annotations.jsonl`` (one line per page) and write the
    ceiling summary (mean leaf and main-element word F1, overall and per WCXB page type,
    over pages with a non-empty gold) to ``out/summary.json``; returns the summary."""
    out.mkdir(parents=True, exist_ok=True)
    scores: dict[str, list[tuple[float, float]]] = defaultdict(list)
    sources: Counter[str] = Counter()
    with (out / ANNOTATIONS_FILE).open("w", encoding="utf-8") as lines:
        for page in tqdm(pages, desc="annotate", unit="page", disable=not progress):
            annotation = annotate_html(page.html, page.record.gold_text, min_run)
            if annotation is None:
                continue
            record = page.record
            line = {
                "file_id": record.file_id,
                "url": record.url,
                "domain": record.domain,
                "page_type": record.page_type,
                "source": page.source,
                **annotation.to_json(),
            }
            lines.write(json.dumps(line, ensure_ascii=False) + "\n")
            sources[page.source] += 1
            if annotation.gold_tokens:
                scores[record.page_type].append((annotation.leaf_f1, annotation.main_f1))
    groups = {"overall": [s for group in scores.values() for s in group], **scores}
    summary = {
        "sources": dict(sources),
        "min_run": min_run,
        "ceiling": {
            group: {
                "pages": len(rows),
                "leaf_f1": round(fmean(r[0] for r in rows), 4),
                "main_f1": round(fmean(r[1] for r in rows), 4),
            }
            for group, rows in groups.items()
            if rows
        },
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    return summary
