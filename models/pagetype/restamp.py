"""Re-stamp a shipped page-type card in :mod:`models.common.card`'s schema, with the
feature version its checkpoint reads (the page-type models read no denoised page)::

    .venv/bin/python -m models.pagetype.restamp CHECKPOINT --command "..." --why "..."

No re-measure: the caller states (``--why``) how the inputs are known to be the ones it
was trained on (e.g. the feature code unchanged since, and the golden output identical);
the card keeps that in its ``restamped`` section, with the date, command, data, metrics
and torch version of the old card.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

from models.common.card import read_card
from models.pagetype.classifier import page_type_versions, read_checkpoint, write_page_type_card

#: Sections of an old card that the schema does not name, kept as they are.
KEPT = ("sees", "training_device", "seconds", "benchmark")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--command", required=True, help="the command that trained it, if the card lacks it")
    parser.add_argument("--why", required=True, help="how its inputs are known to be those it was trained on")
    args = parser.parse_args(argv)
    old = read_card(args.checkpoint)
    meta, _ = read_checkpoint(args.checkpoint)
    extra = {key: old[key] for key in KEPT if key in old}
    extra["restamped"] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python -m models.pagetype.restamp " + " ".join(sys.argv[1:] if argv is None else argv),
        "why": args.why,
    }
    versions = {**page_type_versions(), **old.get("versions", {})}
    path = write_page_type_card(
        args.checkpoint,
        meta,
        old.get("command") or args.command,
        old["data"],
        extra,
        versions,
        old.get("date") or old.get("trained_at"),
    )
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
