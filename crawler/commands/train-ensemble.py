"""``scrapy train-ensemble``: train the ``ensemble`` extractor's quality estimate on WCXB dev.

The work happens in :mod:`models.quality.data` (candidates, cached) and
:mod:`models.quality.train` (fit, size, threshold, measure); this module maps options
onto them and writes the checkpoint and its model card.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.log import configure_logging

from crawler.commands import use_help_formatter
from models.quality.model import FORMAT, QualityEstimate
from models.quality.train import MAX_ESCALATED_SHARE
from pipelines.extraction.ensemble import SHIPPED_CHECKPOINT


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False

    def syntax(self) -> str:
        return "--wcxb DIR --cache CANDIDATES.jsonl [--out PATH] [--limit N]"

    def short_desc(self) -> str:
        return "Train the ensemble extractor's quality estimate (predicted word F1 per candidate)"

    def long_desc(self) -> str:
        return (
            "Runs every candidate extractor on the WCXB dev pages not yet in the --cache JSONL "
            "(at most --limit new pages this run, so a long collection can be split), then fits "
            "the estimate and the line-level merge of each stage's candidates on the train domains "
            "of the one split, sizes them on the validation domains, chooses there the default "
            "(pick or merge) and the cascade's confidence threshold together, within "
            "--max-escalated-share, and reports the held-out domains (the card's metrics)."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        super().add_options(parser)
        group = parser.add_argument_group(title="Training")
        group.add_argument(
            "--wcxb", required=True, metavar="DIR", help="WCXB dev folder (html/, ground-truth/)"
        )
        group.add_argument(
            "--cache", required=True, metavar="PATH", help="candidate texts cache (JSONL): reused, extended"
        )
        group.add_argument(
            "--out", metavar="PATH", help="checkpoint (default: PAGESIGHT_ENSEMBLE_CHECKPOINT)"
        )
        group.add_argument(
            "--limit", type=int, default=0, help="run the candidates on at most N new pages (default: all)"
        )
        group.add_argument(
            "--collect-only", action="store_true", help="extend the cache and stop (no training)"
        )
        group.add_argument(
            "--max-escalated-share",
            type=float,
            default=MAX_ESCALATED_SHARE,
            metavar="SHARE",
            help="most validation pages the full stage (the peers) may run on, the default "
            f"ensemble's cost (default: {MAX_ESCALATED_SHARE})",
        )
        group.add_argument("--seed", type=int, default=0, help="default: 0")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if args:
            raise UsageError(f"unexpected arguments: {' '.join(args)}")
        configure_logging(self.settings)
        from tqdm import tqdm

        from models.common.splits import load_split
        from models.quality.data import collect_candidates
        from models.quality.train import FULL_CANDIDATES, TrainConfig, train_quality
        from pipelines.evaluation.wcxb import read_wcxb
        from pipelines.extraction import Page, build_extractor

        assert self.settings is not None
        settings = self.settings
        out = Path(opts.out or settings.get("PAGESIGHT_ENSEMBLE_CHECKPOINT") or SHIPPED_CHECKPOINT)

        def candidate(name: str) -> Any:
            extractor = build_extractor(name, settings)

            def text(html: str, url: str, page_type: str) -> str | None:
                found = extractor.extract(Page(html, url, page_type))
                return found.text if found else None

            return text

        try:
            records = read_wcxb(opts.wcxb)
            pages = collect_candidates(
                records,
                {name: candidate(name) for name in FULL_CANDIDATES},
                load_split(),
                settings,
                Path(opts.cache),
                opts.limit,
                lambda todo: tqdm(todo, desc="candidates", unit="page", disable=not sys.stderr.isatty()),
            )
            if opts.collect_only:
                print(f"{len(pages)} pages in {opts.cache}")
                return
            gold = {r.file_id: r.gold_text for r in records}
            estimate, metrics = train_quality(
                pages, gold, TrainConfig(seed=opts.seed, max_escalated_share=opts.max_escalated_share)
            )
        except (ValueError, OSError) as exc:
            raise UsageError(str(exc), print_help=False) from None
        estimate.meta["args"] = {"wcxb": opts.wcxb, "cache": opts.cache, "seed": opts.seed}
        estimate.meta["trained_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        estimate.save(out)
        card = out.with_name(out.name.removesuffix(".npz") + ".card.json")
        card.write_text(json.dumps(model_card(out, estimate), indent=1, ensure_ascii=False) + "\n")
        print(json.dumps(metrics, indent=1))
        print(f"Checkpoint: {out} (card: {card})")


def model_card(checkpoint: Path, estimate: QualityEstimate) -> dict[str, Any]:
    """The checkpoint's model card: file, data, split, candidates, metrics, command."""
    data = checkpoint.read_bytes()
    return {
        "checkpoint": {
            "file": checkpoint.name,
            "bytes": len(data),
            "md5": hashlib.md5(data).hexdigest(),
            "format": FORMAT,
        },
        "model": "quality estimate: per stage, HistGradientBoostingRegressor of a candidate's word F1; "
        "line merge: per stage, HistGradientBoostingClassifier of a line's membership in the gold, "
        "its last three columns from a lexicon (logistic regression over the line's words and word "
        "pairs seen on >= config.lexicon_min_domains training domains, cross-fitted by fold in training; "
        "every training line also shown with those columns zero, as a language the lexicon does not know)",
        "stages": {name: stage.candidates for name, stage in estimate.stages.items()},
        "features": {name: stage.trees.features for name, stage in estimate.stages.items()},
        "merge_features": {name: merge.trees.features for name, merge in estimate.merges.items()},
        "target": "the candidate's bag-of-words F1 against WCXB's gold main_content",
        "extraction_quality": "pick: the picked candidate's estimate; merge: its mean with the kept "
        "lines' word-weighted mean probability of being in the gold",
        "split": "models/splits/wcxb-dev.json: fit on train domains, size, pick or merge and the "
        "cascade threshold chosen on validation domains, metrics on held-out domains",
        **{
            key: estimate.meta[key]
            for key in ("config", "confident", "choice", "fast_choice", "args", "scikit_learn", "trained_at")
        },
        "metrics": estimate.meta["metrics"],
        "command": "scrapy train-ensemble " + " ".join(sys.argv[1:]),
    }
