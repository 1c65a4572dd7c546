"""Golden output (issue 63): every registered extractor's output, the page types (the
shipped classifiers on stored captures, the HTML fallback) and the quality estimates on
the fast set (the demo web, tests/fixtures/extraction, tests/fixtures/golden/captures)
hash as committed in tests/fixtures/golden/expected.json.

When behaviour is meant to change, regenerate the expected hashes and commit them with
the change:

    .venv/bin/python benchmarks/golden.py fixtures --hashes tests/fixtures/golden/expected.json

The run is the command itself, in its own process: other tests register extractors and
set torch's threads in this one.
"""

from __future__ import annotations

import subprocess
import sys

from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import golden

REGENERATE = ".venv/bin/python benchmarks/golden.py fixtures --hashes tests/fixtures/golden/expected.json"


def test_the_fast_set_gives_the_committed_hashes():
    run = subprocess.run(
        [sys.executable, "benchmarks/golden.py", "fixtures", "--expected", str(golden.FIXTURE_HASHES)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, (
        f"{run.stdout}{run.stderr[-3000:]}\nBehaviour changed. If meant, regenerate the expected "
        f"hashes: {REGENERATE}; to see the fields, run main's checkout with --records "
        "before.jsonl and this one with --expected before.jsonl"
    )
    assert "identical to" in run.stdout


def golden_line(page: str, text: str, quality: float) -> str:
    record = {
        "page": page,
        "url": f"http://site.test/{page}",
        "page_type": "article",
        "html_page_type": "article",
        "classifiers": {},
        "extractions": {
            "iawce": {"text": "Story", "quality": None},
            "ensemble": {"text": text, "quality": quality},
        },
    }
    return golden.canonical(golden.rounded(record))


def test_a_difference_names_the_extractor_the_page_and_the_field(tmp_path):
    before = [golden_line("a", "Story", 0.912345), golden_line("b", "Other", 0.5)]
    records = tmp_path / "before.jsonl"
    records.write_text("".join(line + "\n" for line in before), encoding="utf-8")
    hashes = tmp_path / "hashes.json"
    hashes.write_text(golden.canonical(golden.hashes(before)), encoding="utf-8")
    # rounding to 4 places: a change in the fifth place is no difference
    assert golden.differences([golden_line("a", "Story", 0.91234), before[1]], records) == []

    after = [golden_line("a", "Story", 0.9124), before[1]]
    found = golden.differences(after, records)
    assert "part ensemble differs" in found
    assert "part iawce differs" not in found and "part page-types differs" not in found
    assert "1 of 2 pages differ" in found
    assert "page a" in found and "  extractions.ensemble.quality: 0.9123 -> 0.9124" in found
    assert "page b" not in found
    from_hashes = golden.differences(after, hashes)  # no records: the page, not its fields
    assert "page a" in from_hashes and not any(line.startswith("  ") for line in from_hashes)
