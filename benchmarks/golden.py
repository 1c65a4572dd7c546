"""Golden output: what PageSight makes of a fixed set of pages, as canonical JSON lines
and SHA-256 hashes, so that a refactor can be shown to change no behaviour (issue 63).

    .venv/bin/python benchmarks/golden.py fixtures [--expected tests/fixtures/golden/expected.json]
    .venv/bin/python benchmarks/golden.py wcxb [--dataset ../shared/datasets/wcxb-dev] \\
        [--split validation] [--expected benchmarks/results/golden-wcxb-validation.json]
    ... [--records RUN.jsonl] [--hashes HASHES.json] [--limit N]

Per page, one line (keys sorted, every float rounded to 4 places): the output
(``Extraction.to_dict()``: text, Markdown, title, items, metadata, page type and the
quality estimate) of every registered extractor, given the page's known type (WCXB's
true type mapped to article/list, the demo web's gold type; none for fixture files and
captures); the HTML fallback's page type (``iawce`` given no type); and, for a stored
capture, each shipped page-type checkpoint's label and probability on its screenshot and
boxes. Hashes: one of all lines, one per extractor and one of the page types (so a
difference names what changed), and one per page.

``--expected`` compares with a hashes file, or with an earlier run's ``--records``
(then the first differing pages are shown field by field); it exits 1 on a difference.
To compare a change with main: run main's checkout with ``--records before.jsonl``, the
change with ``--expected before.jsonl``.

Pages: ``fixtures`` (the fast set, ``tests/e2e/test_golden_output.py``) is the demo web
(seed 2026, 4 articles a site: its 73 gold pages, as served), ``tests/fixtures/extraction``
and the stored captures of ``tests/fixtures/golden/captures``; ``wcxb`` is WCXB dev's raw
HTML of one role of the project's split (``models/common/splits.py``; validation: 186 pages),
which has no captures, so the element classifier and the vision model find nothing there
and no classifier runs.

Determinism: torch runs on one thread (``PAGESIGHT_CLASSIFIER_THREADS``); two runs in
separate processes (different ``PYTHONHASHSEED``) gave the same lines, on both sets.

Cost (CPU time, 2-core machine): the fast set 14 s; WCXB validation 166 s (19 min of wall
time at load average 11). Its hashes are ``benchmarks/results/golden-wcxb-validation.json``,
regenerated with each change meant to change behaviour (last: the ensemble's peer
consensus, on 2 pages).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scrapy.settings import Settings

import settings as project_settings
from crawler.demo import build_web
from models.common.splits import ROLES, VALIDATION, load_split
from models.pagetype.classifier import PageTypeClassifier
from pipelines.artifacts import read_local_artifact
from pipelines.evaluation.scoring import extraction_page_type, page_type_mapping
from pipelines.evaluation.wcxb import read_wcxb
from pipelines.extraction import Extractor, Page, available_extractors, build_extractor, decode_html
from pipelines.extraction.metadata import page_address

PLACES = 4
FIXTURES = ROOT / "tests" / "fixtures"
#: Stored captures of the fast set: ``captures.jsonl`` names each one's files.
CAPTURES = FIXTURES / "golden" / "captures"
FIXTURE_HASHES = FIXTURES / "golden" / "expected.json"
WCXB_DEV = ROOT.parent / "shared" / "datasets" / "wcxb-dev"
DEMO_SEED, DEMO_ARTICLES_PER_SITE = 2026, 4
#: The shipped page-type checkpoints run on every capture.
CLASSIFIER_CHECKPOINTS = (
    "models/checkpoints/pagenet-article-list.pt",
    "models/checkpoints/lenet5-article-list.pt",
)
#: The extractor whose page type, given none, is the HTML fallback's.
FALLBACK_EXTRACTOR = "iawce"
PAGE_TYPES_PART = "page-types"
#: Differing pages shown field by field.
SHOWN_PAGES = 5


@dataclass(frozen=True)
class GoldenPage:
    """One input: its HTML and URL, its known page type, and a capture's boxes and screenshot."""

    key: str
    html: str
    url: str
    page_type: str | None = None
    boxes: list[dict[str, Any]] | None = None
    screenshot: bytes | None = None


def project_defaults() -> Settings:
    """The project's settings at their defaults."""
    return Settings(
        {name: getattr(project_settings, name) for name in dir(project_settings) if name.isupper()}
    )


def demo_pages(settings: Settings) -> Iterator[GoldenPage]:
    """The demo web's gold pages (raw HTML as served), with their gold page type."""
    mapping = page_type_mapping(settings)
    for site in build_web(DEMO_SEED, DEMO_ARTICLES_PER_SITE):
        base = f"http://{site.spec.name}.demo.test"
        for path, page in sorted(site.pages.items()):
            if page.gold is not None:
                yield GoldenPage(
                    f"demo/{site.spec.name}{path}",
                    decode_html(page.body, None),
                    base + path,
                    extraction_page_type(mapping, page.gold["page_type"]),
                )


def html_fixture_pages() -> Iterator[GoldenPage]:
    """The extraction fixtures (no page type: the extractors decide)."""
    for path in sorted((FIXTURES / "extraction").glob("*.html")):
        yield GoldenPage(
            f"fixture/{path.name}", decode_html(path.read_bytes(), None), f"http://fixture.test/{path.name}"
        )


def capture_pages() -> Iterator[GoldenPage]:
    """Stored captures: rendered HTML, element boxes and screenshot (no page type).

    The fast set's four are demo web pages (an English and a Chinese list, a Chinese and
    a Japanese article) captured by ``scrapy capture-dataset --demo``, their screenshots
    reduced to 64 colours (29-109 KB instead of 140-826 KB)."""
    with (CAPTURES / "captures.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            entry = json.loads(line)
            yield GoldenPage(
                f"capture/{entry['name']}",
                read_local_artifact(CAPTURES / entry["html"]).decode("utf-8"),
                entry["url"],
                boxes=json.loads(read_local_artifact(CAPTURES / entry["boxes"])),
                screenshot=(CAPTURES / entry["screenshot"]).read_bytes(),
            )


def fixture_pages(settings: Settings) -> list[GoldenPage]:
    """The fast set: the demo web, the extraction fixtures and the stored captures."""
    return [*demo_pages(settings), *html_fixture_pages(), *capture_pages()]


def wcxb_pages(root: Path, role: str, settings: Settings) -> list[GoldenPage]:
    """WCXB dev's raw pages of one role of the project's split, with their true type."""
    split, mapping = load_split(), page_type_mapping(settings)
    return [
        GoldenPage(
            f"wcxb/{record.file_id}",
            decode_html(read_local_artifact(record.html_path)),
            record.url,
            extraction_page_type(mapping, record.page_type),
        )
        for record in read_wcxb(root)
        if split.role(record.domain) == role
    ]


def rounded(value: Any) -> Any:
    """``value`` with every float rounded to :data:`PLACES` (-0.0 as 0.0)."""
    if isinstance(value, float):
        return round(value, PLACES) + 0.0
    if isinstance(value, dict):
        return {key: rounded(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(item) for item in value]
    return value


def canonical(value: Any) -> str:
    """One JSON line: keys sorted, no spaces, non-ASCII as is."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class Golden:
    """Every registered extractor and every shipped page-type checkpoint, loaded once."""

    def __init__(self, extractors: dict[str, Extractor], classifiers: dict[str, PageTypeClassifier]):
        self.extractors = extractors
        self.classifiers = classifiers

    @classmethod
    def from_settings(cls, settings: Settings) -> Golden:
        """A missing peer package or checkpoint stops the run: its output would be missing."""
        extractors = {name: build_extractor(name, settings) for name in available_extractors()}
        classifiers = {}
        for checkpoint in CLASSIFIER_CHECKPOINTS:
            checkpoint_settings = settings.copy()
            checkpoint_settings.set("PAGESIGHT_CLASSIFIER_CHECKPOINT", str(ROOT / checkpoint))
            classifiers[Path(checkpoint).stem] = PageTypeClassifier.from_settings(checkpoint_settings)
        return cls(extractors, classifiers)

    def record(self, page: GoldenPage) -> dict[str, Any]:
        """The page's golden line (before rounding)."""
        extractions: dict[str, dict[str, Any] | None] = {}
        for name, extractor in self.extractors.items():
            given = Page(page.html, page.url, page.page_type, page.boxes, page.screenshot)
            try:
                found = extractor.extract(given)
            except Exception as error:  # the contract says never; the golden line says when
                extractions[name] = {"error": f"{type(error).__name__}: {error}"}
            else:
                extractions[name] = found.to_dict() if found is not None else None
        fallback = self.extractors[FALLBACK_EXTRACTOR].extract(Page(page.html, page.url))
        classified = {}
        if page.screenshot is not None and page.boxes is not None:
            address = page_address(page.html, page.url)
            for name, classifier in self.classifiers.items():
                label, score = classifier.predict_page(page.screenshot, page.boxes, address)
                classified[name] = {"label": label, "score": score}
        return {
            "page": page.key,
            "url": page.url,
            "page_type": page.page_type,
            "html_page_type": fallback.page_type if fallback is not None else None,
            "classifiers": classified,
            "extractions": extractions,
        }


def golden_lines(golden: Golden, pages: Iterable[GoldenPage]) -> Iterator[str]:
    """The canonical line of each page, in order."""
    for page in pages:
        yield canonical(rounded(golden.record(page)))


def hashes(lines: list[str]) -> dict[str, Any]:
    """SHA-256 of all lines, per part (each extractor's outputs, the page types) and per
    page (its line's first 16 hex digits)."""
    parts: dict[str, Any] = {}
    page_hashes = {}
    for line in lines:
        record = json.loads(line)
        key = record["page"]
        page_types = {name: record[name] for name in ("page_type", "html_page_type", "classifiers")}
        outputs = {PAGE_TYPES_PART: page_types} | record["extractions"]
        for part, output in outputs.items():
            parts.setdefault(part, hashlib.sha256()).update((canonical({key: output}) + "\n").encode("utf-8"))
        page_hashes[key] = hashlib.sha256(line.encode("utf-8")).hexdigest()[:16]
    overall = hashlib.sha256("".join(line + "\n" for line in lines).encode("utf-8")).hexdigest()
    return {
        "pages": len(lines),
        "sha256": overall,
        "parts": {part: digest.hexdigest() for part, digest in sorted(parts.items())},
        "page_hashes": page_hashes,
    }


def field_differences(before: Any, after: Any, where: str = "") -> Iterator[str]:
    """Where two records differ: ``path: before -> after`` (long values cut)."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(before.keys() | after.keys()):
            yield from field_differences(before.get(key), after.get(key), f"{where}.{key}" if where else key)
    elif before != after:
        yield f"{where}: {json.dumps(before, ensure_ascii=False)[:160]} -> {json.dumps(after, ensure_ascii=False)[:160]}"


def differences(lines: list[str], expected: Path) -> list[str]:
    """What differs from ``expected`` (a hashes file, or the records of an earlier run):
    the parts, then the first pages (field by field when records are given); [] when
    nothing does."""
    actual = hashes(lines)
    before_lines = None
    if expected.suffix == ".jsonl":
        before_lines = expected.read_text(encoding="utf-8").splitlines()
        reference = hashes(before_lines)
    else:
        reference = json.loads(expected.read_text(encoding="utf-8"))
    if reference["sha256"] == actual["sha256"]:
        return []
    found = [f"overall sha256 {reference['sha256']} expected, {actual['sha256']} now"]
    for part in sorted(reference["parts"].keys() | actual["parts"].keys()):
        if reference["parts"].get(part) != actual["parts"].get(part):
            found.append(f"part {part} differs")
    old, new = reference["page_hashes"], actual["page_hashes"]
    changed = [key for key in new if key in old and old[key] != new[key]]
    found += [f"page {key} is new" for key in new if key not in old]
    found += [f"page {key} is gone" for key in old if key not in new]
    found.append(f"{len(changed)} of {len(new)} pages differ")
    records = {json.loads(line)["page"]: json.loads(line) for line in before_lines or []}
    current = {json.loads(line)["page"]: json.loads(line) for line in lines}
    for key in changed[:SHOWN_PAGES]:
        found.append(f"page {key}")
        if key in records:
            found += [f"  {line}" for line in field_differences(records[key], current[key])]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "pages", choices=("fixtures", "wcxb"), help="the fast set or WCXB dev's pages of one role"
    )
    parser.add_argument(
        "--dataset", type=Path, default=WCXB_DEV, help="WCXB dev folder (default: %(default)s)"
    )
    parser.add_argument(
        "--split", choices=ROLES, default=VALIDATION, help="role of the split (wcxb; default: %(default)s)"
    )
    parser.add_argument("--limit", type=int, default=0, help="first N pages only")
    parser.add_argument("--records", type=Path, help="write the golden lines (JSONL) here")
    parser.add_argument("--hashes", type=Path, help="write the hashes (JSON) here")
    parser.add_argument("--expected", type=Path, help="compare with this hashes file or records (JSONL)")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    settings = project_defaults()
    pages = (
        fixture_pages(settings)
        if args.pages == "fixtures"
        else wcxb_pages(args.dataset, args.split, settings)
    )
    if args.limit:
        pages = pages[: args.limit]
    golden = Golden.from_settings(settings)
    lines = []
    for index, line in enumerate(golden_lines(golden, pages), 1):
        lines.append(line)
        if index % 50 == 0:
            print(f"{index}/{len(pages)} pages, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    result = hashes(lines)
    if args.records:
        args.records.parent.mkdir(parents=True, exist_ok=True)
        args.records.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    if args.hashes:
        args.hashes.parent.mkdir(parents=True, exist_ok=True)
        args.hashes.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{result['pages']} pages in {time.perf_counter() - started:.0f} s: sha256 {result['sha256']}")
    for part, digest in result["parts"].items():
        print(f"  {part:<20} {digest}")
    if args.expected:
        found = differences(lines, args.expected)
        print("\n".join(found) if found else f"identical to {args.expected}")
        return 1 if found else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
