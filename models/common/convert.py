"""Convert a checkpoint whose header is one ``format`` string ending in its version
(``pagesight-element-classifier/1``, the element classifier's and the vision model's style
before :mod:`models.common.checkpoint`) to the one header: ``format`` and an integer
``format_version``. Only the header changes; the weights and arrays are copied as they
are, so the model predicts exactly as before::

    .venv/bin/python -m models.common.convert CHECKPOINT [CHECKPOINT ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from models.common.checkpoint import save_torch_checkpoint, write_npz_checkpoint


def split_header(meta: dict[str, Any]) -> bool:
    """Rewrite ``meta``'s ``name/N`` format as ``format`` + ``format_version`` in place;
    False when it has the one header already."""
    name, slash, version = str(meta.get("format", "")).rpartition("/")
    if not slash or "format_version" in meta:
        return False
    meta["format"], meta["format_version"] = name, int(version)
    return True


def convert(path: Path) -> bool:
    """Convert the checkpoint at ``path`` in place (atomically); False when there was
    nothing to convert."""
    if path.suffix == ".npz":
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            arrays = {name: data[name] for name in data.files if name != "meta"}
        if not split_header(meta):
            return False
        write_npz_checkpoint(path, meta, arrays)
        return True
    import torch

    payload = torch.load(path, map_location="cpu", weights_only=True)
    if not split_header(payload):
        return False
    # The header first, as every checkpoint has it.
    save_torch_checkpoint(path, {key: payload.pop(key) for key in ("format", "format_version")} | payload)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoints", nargs="+", type=Path)
    for path in parser.parse_args(argv).checkpoints:
        print(f"{path}: {'converted' if convert(path) else 'has the one header already'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
