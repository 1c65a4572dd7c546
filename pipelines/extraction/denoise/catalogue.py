"""The denoiser's step catalogue, written from :data:`~.steps.STEPS` (their order, names,
page types and the first line of each step's docstring), so that the steps are described
in one place: ``python -m pipelines.extraction.denoise.catalogue`` writes
``docs/denoise-steps.md`` (or the path given); a test fails when the committed file is stale.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from pipelines.extraction.denoise.steps import STEPS

#: Where the catalogue is committed.
CATALOGUE_PATH = Path(__file__).resolve().parents[3] / "docs" / "denoise-steps.md"


def catalogue() -> str:
    """The catalogue as Markdown: one row per step, in the order :func:`~.steps.denoise` runs them."""
    lines = [
        "# Denoising steps",
        "",
        "Written from `pipelines.extraction.denoise.steps.STEPS` by",
        "`python -m pipelines.extraction.denoise.catalogue`: edit the steps' docstrings, not this file.",
        "`denoise()` runs the steps of a page's type in this order and counts what each removed",
        "under its name; the thresholds are `DenoiseOptions`' (`pipelines/extraction/denoise/options.py`),",
        "the words and patterns in `pipelines/extraction/denoise/vocabulary.py`.",
        "",
        "| # | Name | Page types | Function | What it removes |",
        "|---|---|---|---|---|",
    ]
    for number, step in enumerate(STEPS, 1):
        function = f"`{step.function.__module__.rpartition('.')[2]}.{step.function.__name__}`"
        summary = (inspect.getdoc(step.function) or "").splitlines()[0].replace("``", "`")
        lines.append(f"| {number} | {step.name} | {', '.join(step.page_types)} | {function} | {summary} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Write the catalogue to ``argv[0]``, else to :data:`CATALOGUE_PATH`."""
    path = Path(argv[0]) if argv else CATALOGUE_PATH
    path.write_text(catalogue(), encoding="utf-8")
    print(f"wrote {path} ({len(STEPS)} steps)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
