"""Where the tests find the project: its root, the test fixtures, the shared datasets."""

from __future__ import annotations

from pathlib import Path

#: The project's root (the folder holding scrapy.cfg).
ROOT = Path(__file__).resolve().parents[2]
#: The committed test fixtures.
FIXTURES = ROOT / "tests" / "fixtures"
#: The shared datasets beside the clone (CI has ../shared there too).
SHARED_DATASETS = ROOT.parent / "shared" / "datasets"
