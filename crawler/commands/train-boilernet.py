"""``scrapy train-boilernet``: train BoilerNet on annotated WCXB dev (:mod:`models.boilernet.train`).

torch is imported only once this command runs, so other commands start without it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError
from scrapy.utils.log import configure_logging

from crawler.commands import use_help_formatter


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False

    def syntax(self) -> str:
        return "--data DATA [--gold WCXB] (--out PATH | --oof PATH --oof-only) [--oof PATH] [options]"

    def short_desc(self) -> str:
        return "Train the BoilerNet leaf labeller on annotated WCXB dev"

    def long_desc(self) -> str:
        return (
            "DATA is a WCXB folder (raw HTML) or a capture feed of its pages (rendered HTML); "
            "GOLD the WCXB folder (default: DATA). Trains on the split's train domains, picks "
            "the epoch and calibrates the threshold on its validation domains, reports on its "
            "held-out domains; --oof also writes out-of-fold leaf probabilities of the "
            "training domains (one model per fold; --oof-folds and --oof-only write some "
            "folds in a short job)."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        super().add_options(parser)
        group = parser.add_argument_group(title="Training")
        group.add_argument("--data", required=True, metavar="DATA", help="WCXB folder or capture feed")
        group.add_argument("--gold", metavar="WCXB", help="WCXB folder with the gold (default: DATA)")
        group.add_argument("--out", metavar="PATH", help="checkpoint to write (.pt)")
        group.add_argument("--oof", metavar="PATH", help="write out-of-fold predictions (JSONL) here")
        group.add_argument(
            "--oof-folds", metavar="F,F", default="", help="only these folds' predictions (default: all)"
        )
        group.add_argument(
            "--oof-only", action="store_true", help="write the --oof predictions only (no final model)"
        )
        group.add_argument(
            "--prepared", metavar="PATH", help="labelled-pages cache (pickle) to read or write"
        )
        group.add_argument(
            "--words", type=int, default=1000, help="word vocabulary, 0 = tags only (default: 1000)"
        )
        group.add_argument("--tags", type=int, default=50, help="tag vocabulary (default: 50)")
        group.add_argument(
            "--leaf-features",
            action="store_true",
            help="add the leaves' numeric features (length, link shares, position, ...) to the "
            "word and tag bags (not the seed's input)",
        )
        group.add_argument(
            "--repetition-features",
            action="store_true",
            help="with --leaf-features, add how often the leaf's text and its ancestor tags recur "
            "on the page (REPETITION_FEATURES; not the seed's input)",
        )
        group.add_argument(
            "--f1-loss",
            type=float,
            default=0.0,
            metavar="WEIGHT",
            help="add WEIGHT x (1 - soft word F1 of each training window) to the loss (default: 0, none)",
        )
        group.add_argument(
            "--attributes",
            type=int,
            default=0,
            help="add a bag of the ancestors' class/id words over a vocabulary of this size "
            "(default: 0, none: the seed's input)",
        )
        group.add_argument(
            "--loss-weights",
            choices=("balanced", "tokens", "page-tokens"),
            default="balanced",
            help="balanced classes (default, the seed's), each leaf by its token count, or by its "
            "share of its page's tokens (every page weighs the same)",
        )
        group.add_argument(
            "--select",
            choices=("leaf-f1", "word-f1"),
            default="leaf-f1",
            help="keep the epoch with the best validation content-leaf F1 (default, the seed's) "
            "or page word F1",
        )
        group.add_argument(
            "--flags",
            default="",
            metavar="NAMES",
            help="0/1 leaf inputs, comma-separated: list_page (the page type is list), "
            "denoised_away (iawce's denoiser removes the leaf), iawce_region (the leaf lies in the region "
            "iawce extracts) (default: none, the seed's input; the shipped model uses all three)",
        )
        group.add_argument("--dense", type=int, default=256, help="dense width (default: 256, the seed's)")
        group.add_argument("--hidden", type=int, default=256, help="BiLSTM width (default: 256, the seed's)")
        group.add_argument("--epochs", type=int, default=8, help="default: 8")
        group.add_argument(
            "--fold-epochs", type=int, default=3, help="epochs of each fold model (default: 3)"
        )
        group.add_argument("--batch-size", type=int, default=16, help="default: 16")
        group.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default: 1e-3)")
        group.add_argument("--window", type=int, default=256, help="training window in leaves (default: 256)")
        group.add_argument("--threads", type=int, default=1, help="torch CPU threads (default: 1)")
        group.add_argument("--seed", type=int, default=0, help="default: 0")
        group.add_argument(
            "--seeds",
            type=int,
            default=1,
            metavar="K",
            help="train K networks (seeds SEED .. SEED+K-1) and ship them as one seed ensemble: "
            "their probabilities are averaged and the threshold calibrated for the mean; the "
            "--oof models too (default: 1)",
        )
        group.add_argument("--limit", type=int, default=0, help="first N pages only (a smoke run)")

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if args:
            raise UsageError(f"unexpected arguments: {' '.join(args)}")
        if opts.oof_only and not opts.oof:
            raise UsageError("--oof-only needs --oof PATH")
        if not opts.oof_only and not opts.out:
            raise UsageError("--out PATH is required (unless --oof-only)")
        if opts.seeds < 1:
            raise UsageError(f"--seeds wants 1 or more networks: {opts.seeds}")
        try:
            oof_folds = tuple(int(f) for f in opts.oof_folds.split(",") if f.strip())
        except ValueError:
            raise UsageError(f"--oof-folds wants fold numbers like 0,1: {opts.oof_folds!r}") from None
        configure_logging(self.settings)
        from models.boilernet.train import BoilerNetTrainConfig, train_boilernet
        from pipelines.evaluation.wcxb import WcxbFormatError

        config = BoilerNetTrainConfig(
            data=Path(opts.data),
            gold=Path(opts.gold) if opts.gold else None,
            out=Path(opts.out) if opts.out else None,
            oof=Path(opts.oof) if opts.oof else None,
            oof_folds=oof_folds,
            oof_only=opts.oof_only,
            prepared=Path(opts.prepared) if opts.prepared else None,
            words=opts.words,
            tags=opts.tags,
            leaf_features=opts.leaf_features,
            repetition=opts.repetition_features,
            f1_loss=opts.f1_loss,
            attributes=opts.attributes,
            flags=tuple(name.strip() for name in opts.flags.split(",") if name.strip()),
            loss_weights=opts.loss_weights,
            select=opts.select,
            dense=opts.dense,
            hidden=opts.hidden,
            epochs=opts.epochs,
            fold_epochs=opts.fold_epochs,
            batch_size=opts.batch_size,
            lr=opts.lr,
            window=opts.window,
            threads=opts.threads,
            seed=opts.seed,
            seeds=opts.seeds,
            limit=opts.limit,
            progress=sys.stderr.isatty(),
            # Scrapy has taken the command name out of sys.argv.
            command=" ".join(["scrapy", "train-boilernet", *sys.argv[1:]]),
        )
        try:
            result = train_boilernet(config)
        except (ValueError, WcxbFormatError, OSError) as exc:
            raise UsageError(str(exc), print_help=False) from exc
        if result is not None:
            print(result.report())
