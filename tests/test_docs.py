"""The README and docs/: short, current, and free of one machine's folders and work log."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from settings.reference import read_sections, reference
from tests.support.paths import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.rglob("*.md"))]
#: Folders of one machine, which a reader elsewhere does not have.
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:work|tmp|home)/")
#: Work-log narrative: it belongs in benchmarks/HISTORY.md, not in what describes the code.
WORK_LOG = re.compile(r"\b(?:sessions? \d+|entry \d+|we tried)\b", re.IGNORECASE)
LINK = re.compile(r"\]\((?!https?://|#|mailto:)(?P<target>[^)#\s]+)")
#: A stat key in the crawl's code (every "pagesight/..." string there is one); an
#: f-string's fields are values.
STAT = re.compile(r'"(pagesight/[^"]+)"')


def _name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_settings_reference_is_current() -> None:
    """docs/settings.md is what ``python -m settings.reference`` writes today."""
    committed = (DOCS / "settings.md").read_text(encoding="utf-8")
    assert committed == reference(), (
        "stale: run `make docs` (python -m settings.reference > docs/settings.md)"
    )


def test_settings_reference_gives_the_code_defaults() -> None:
    text = reference()
    assert 'PAGESIGHT_EXTRACTOR = "ensemble"' in text
    assert "## Extraction (pipelines.extract.ExtractPipeline)" in text
    assert "- `hang`: a linked page sends headers and half its HTML" in text


def test_a_comment_covers_the_assignments_below_it() -> None:
    source = (
        "A = 1\n"
        "# --- Capture ----\n"
        "# Width, px.\n"
        "WIDTH = 1366\n"
        "HEIGHT = 768\n"
        "\n"
        "# A note of the section.\n"
        "\n"
        "PLAIN = {\n"
        '    "x": 1,\n'
        "}\n"
    )
    sections = read_sections(source)
    assert [section.title for section in sections] == ["Project", "Capture"]
    assert [(g.comment, g.assignments) for g in sections[1].groups] == [
        (["Width, px."], ["WIDTH = 1366", "HEIGHT = 768"]),
        (["A note of the section."], []),
        ([], ['PLAIN = {\n    "x": 1,\n}']),
    ]


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= 400, f"README.md has {lines} lines; details belong in docs/"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_no_machine_paths_or_work_log(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    paths = [m.group(0) for m in MACHINE_PATH.finditer(text)]
    log = [m.group(0) for m in WORK_LOG.finditer(text)]
    assert not paths, f"{_name(page)} names a machine's folders: {paths}"
    assert not log, f"{_name(page)} reads as a work log: {log}"


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_relative_links_resolve(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = [m["target"] for m in LINK.finditer(text) if not (page.parent / m["target"]).exists()]
    assert not missing, f"{_name(page)} links to missing files: {missing}"


def test_ci_runs_the_readmes_test_command() -> None:
    """.ci/run calls ``make test``, the test command the README gives."""
    assert "make test    #" in README.read_text(encoding="utf-8")
    assert re.search(r"^make test$", (ROOT / ".ci" / "run").read_text(encoding="utf-8"), re.M)


def test_architecture_names_every_stat() -> None:
    """Each stat the crawl counts appears in docs/architecture.md (a field as ``<…>``)."""
    documented = (DOCS / "architecture.md").read_text(encoding="utf-8")
    sources = [*(ROOT / "crawler").rglob("*.py"), *(ROOT / "pipelines").rglob("*.py")]
    keys = {m.group(1) for path in sources for m in STAT.finditer(path.read_text(encoding="utf-8"))}
    assert len(keys) > 30
    missing = [
        key
        for key in sorted(keys)
        if not re.search(re.sub(r"\\\{[^}]*\\\}", "<[^>]+>", re.escape(key)), documented)
    ]
    assert not missing, f"docs/architecture.md does not name these stats: {missing}"


def _percent(value: float) -> str:
    return f"{100 * value:.1f} %"


#: Numbers each model page quotes from its shipped checkpoint's card: (page, card, field
#: path, how the page writes it). A card re-stamped with other metrics fails here until
#: its page says the new numbers.
CARD_NUMBERS = [
    ("pagetype", "pagenet-article-list", "metrics.heldout.accuracy", "{:.3f}"),
    ("pagetype", "pagenet-article-list", "metrics.heldout.by_source.wcxb.accuracy", "{:.3f}"),
    ("pagetype", "pagenet-article-list", "metrics.heldout.by_source.styled.accuracy", "{:.3f}"),
    ("pagetype", "pagenet-article-list", "metrics.heldout.ece", "{:.3f}"),
    ("pagetype", "pagenet-article-list", "metrics.fusion.branches.screenshot.weight", "{:.3f}"),
    ("pagetype", "pagenet-article-list", "metrics.fusion.branches.statistics.weight", "{:.3f}"),
    ("pagetype", "lenet5-article-list", "metrics.test.accuracy", "{:.3f}"),
    ("pagetype", "pagenet-page-kind", "metrics.heldout.accuracy", "{:.3f}"),
    ("pagetype", "pagenet-page-kind", "metrics.heldout.ece", "{:.3f}"),
    ("boilernet", "boilernet", "threshold", "{:.1f}"),
    ("boilernet", "boilernet", "metrics.validation.pages.overall.f1", "{:.3f}"),
    ("boilernet", "boilernet", "metrics.heldout.pages.overall.f1", "{:.3f}"),
    ("boilernet", "boilernet", "benchmark.heldout_word_f1.boilernet.overall", "{:.4f}"),
    ("boilernet", "boilernet", "out_of_fold.word_f1_at_threshold", "{:.4f}"),
    ("element", "element-classifier", "metrics.heldout.overall.accuracy", "{:.3f}"),
    ("element", "element-classifier", "metrics.heldout.overall.f1", "{:.3f}"),
    ("element", "element-classifier", "metrics.validation.overall.f1", "{:.3f}"),
    ("element", "element-classifier", "metrics.oof.overall.accuracy", "{:.3f}"),
    ("vision_element", "vision-element", "metrics.heldout.overall.auc", "{:.3f}"),
    ("vision_element", "vision-element", "metrics.heldout.overall.top1", _percent),
    ("vision_element", "vision-element", "metrics.heldout.overall.top1_iou50", _percent),
    ("vision_element", "vision-element", "metrics.heldout.overall.word_f1", "{:.3f}"),
    ("vision_element", "vision-element", "metrics.oof.overall.top1", _percent),
    ("quality", "ensemble-quality", "confident", "{:.2f}"),
    ("quality", "ensemble-quality", "metrics.merge.full.heldout_f1", "{:.4f}"),
    ("quality", "ensemble-quality", "metrics.merge.cheap.heldout_f1", "{:.4f}"),
    ("quality", "ensemble-quality", "metrics.full.heldout.spearman", "{:.4f}"),
    ("quality", "ensemble-quality", "metrics.cascade.heldout.quartile_gap", "{:.4f}"),
    ("quality", "ensemble-quality", "metrics.merge.full.lexicon_terms", "{:,}"),
]


@pytest.mark.parametrize(
    ("page", "card", "field", "written"), CARD_NUMBERS, ids=[f"{row[0]}:{row[2]}" for row in CARD_NUMBERS]
)
def test_model_pages_quote_their_cards(
    page: str, card: str, field: str, written: str | Callable[[float], str]
) -> None:
    value: Any = json.loads((ROOT / "models" / "checkpoints" / f"{card}.card.json").read_text())
    for key in field.split("."):
        value = value[key]
    text = written.format(value) if isinstance(written, str) else written(value)
    assert text in (DOCS / "models" / f"{page}.md").read_text(encoding="utf-8"), (
        f"docs/models/{page}.md does not give {card}.card.json's {field} ({text})"
    )
