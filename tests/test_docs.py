"""The docs: the settings reference is current."""

from __future__ import annotations

from pathlib import Path

from settings.reference import read_sections, reference

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def test_settings_reference_is_current() -> None:
    """docs/settings.md is what ``python -m settings.reference`` writes today."""
    committed = (DOCS / "settings.md").read_text(encoding="utf-8")
    assert committed == reference(), "stale: python -m settings.reference > docs/settings.md"


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
