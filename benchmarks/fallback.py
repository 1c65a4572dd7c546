"""The page-type fallback on one gold family: what reading an uncertain page costs.

    .venv/bin/python benchmarks/fallback.py ../shared/datasets/dragnet --split train
    .venv/bin/python benchmarks/fallback.py ../shared/datasets/wcxb-dev --split validation

With no trusted page type (raw HTML, ``scrapy extract``, a crawl below
``PAGESIGHT_CLASSIFIER_MIN_SCORE``), the extraction guesses the type from the HTML
(``pipelines.extraction.pagetype``): the list guess, then the story test that can overrule
it. For every page of the split this prints how many the list guess calls lists, how many
of those the story test reads as articles, and iawce's word F1 change that reading makes
(the page read as an article against read as a list), with a paired bootstrap 95 %
interval over the split's pages, and the F1 of both readings on the pages guessed lists.

Splits: a folder with its own ``splits.json`` of file ids (Dragnet) is split by it; else
by the project's domain split of WCXB dev (``models/common/splits.py``). Pages whose gold text
is empty are left out.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import fmean

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from models.common.splits import ROLES, UnknownDomain, load_split
from pipelines.evaluation.metrics import word_prf
from pipelines.evaluation.text import tokens
from pipelines.evaluation.wcxb import WcxbRecord, own_split, read_wcxb
from pipelines.extraction import ARTICLE, LIST, Extractor, Page, build_extractor
from pipelines.extraction.encoding import decode_html
from pipelines.extraction.options import IawceOptions
from pipelines.extraction.pagetype import guess_page_type

BOOTSTRAP_DRAWS = 4000


def split_records(root: Path, role: str) -> list[WcxbRecord]:
    """The folder's pages of one split role (its own ``splits.json``, else the domain split)."""
    own, split, records = own_split(root), load_split(), []
    for record in read_wcxb(root):
        try:
            record_role = own.get(record.file_id) if own is not None else split.role(record.domain)
        except UnknownDomain:
            continue
        if record_role == role:
            records.append(record)
    return records


def bootstrap_interval(deltas: list[float], seed: int = 0) -> tuple[float, float]:
    """Paired bootstrap 95 % interval of the mean of per-page differences."""
    rng = random.Random(seed)
    means = sorted(fmean(rng.choices(deltas, k=len(deltas))) for _ in range(BOOTSTRAP_DRAWS))
    return means[int(0.025 * BOOTSTRAP_DRAWS)], means[int(0.975 * BOOTSTRAP_DRAWS) - 1]


@dataclass(frozen=True)
class PageRow:
    """One page: iawce's word F1 read as a list and as an article when the list guess
    called it a list (else None), and whether the story test reads it as an article."""

    file_id: str
    page_type: str | None
    f1_as_list: float | None = None
    f1_as_article: float | None = None
    story: bool = False

    @property
    def delta(self) -> float:
        """What the story test changes on this page."""
        if not self.story or self.f1_as_list is None or self.f1_as_article is None:
            return 0.0
        return self.f1_as_article - self.f1_as_list


def page_row(record: WcxbRecord, iawce: Extractor, options: IawceOptions) -> PageRow | None:
    gold = tokens(record.gold_text)
    html = decode_html(gzip.decompress(record.html_path.read_bytes()), None)
    page = Page(html=html, url=record.url or "http://page.invalid/")
    parsed = page.parsed
    if not gold or parsed is None:
        return None
    if guess_page_type(parsed.denoised(LIST, options).body, options) != LIST:
        return PageRow(record.file_id, record.page_type)
    f1 = {}
    for reading in (LIST, ARTICLE):
        extraction = iawce.extract(page.with_page_type(reading))
        f1[reading] = word_prf(tokens(extraction.text if extraction else ""), gold).f1
    story = parsed.denoised(None, options).page_type == ARTICLE
    return PageRow(record.file_id, record.page_type, f1[LIST], f1[ARTICLE], story)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "dataset", type=Path, help="a WCXB-style folder (html/, ground-truth/, metadata.json)"
    )
    parser.add_argument("--split", choices=ROLES, default="train")
    parser.add_argument("--out", type=Path, help="write the summary and per-page rows as JSON here")
    args = parser.parse_args()
    options, iawce = IawceOptions(), build_extractor("iawce")
    rows = [
        row for record in split_records(args.dataset, args.split) if (row := page_row(record, iawce, options))
    ]
    deltas = [row.delta for row in rows]
    guessed = [row for row in rows if row.f1_as_list is not None]
    low, high = bootstrap_interval(deltas)
    summary = {
        "dataset": args.dataset.name,
        "split": args.split,
        "pages": len(rows),
        "guessed_list": len(guessed),
        "read_as_article": sum(row.story for row in guessed),
        "word_f1_change": round(fmean(deltas), 4),
        "interval_95": [round(low, 4), round(high, 4)],
        "guessed_list_f1_as_list": round(fmean(row.f1_as_list or 0.0 for row in guessed), 4)
        if guessed
        else None,
        "guessed_list_f1_as_article": round(fmean(row.f1_as_article or 0.0 for row in guessed), 4)
        if guessed
        else None,
    }
    print(json.dumps(summary))
    if args.out:
        document = {"summary": summary, "pages": [asdict(row) for row in rows]}
        args.out.write_text(json.dumps(document, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
