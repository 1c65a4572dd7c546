"""benchmarks/crawl_extract.py on a tiny WCXB-shaped set: two whole crawls (real Chromium),
one per extractor, scored against the gold."""

import json
import sys

import pytest

from tests.benchmarks.test_extract import make_dataset
from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import crawl_extract as benchmark


@pytest.mark.e2e
def test_both_extractors_crawl_the_same_pages_and_only_the_ensemble_estimates(tmp_path, capsys):
    make_dataset(tmp_path / "wcxb")
    out = tmp_path / "crawl-extract.json"
    argv = [str(tmp_path / "wcxb"), "--role", "train", "--rounds", "1", "--extractors", "iawce,ensemble"]
    argv += ["--split-file", str(tmp_path / "wcxb" / "split.json"), "--out", str(out)]
    assert benchmark.main(argv) == 0
    report = json.loads(out.read_text())
    assert report["pages"] == 2  # gazette.example's article and list page
    for name in ("iawce", "ensemble"):
        (run,) = report["runs"][name]
        assert (run["lines"], run["ok"]) == (2, 2), name
        assert run["word_f1"] > 0 and run["median_extract_ms"] > 0, name
        assert report["summary"][name]["pages_per_s"] > 0
    assert report["summary"]["iawce"]["throughput_ratio"] == 1.0
    assert (report["summary"]["iawce"]["with_quality"], report["summary"]["ensemble"]["with_quality"]) == (
        0,
        1,
    )
    assert "| ensemble |" in capsys.readouterr().out


def test_a_role_without_pages_is_a_clear_error(tmp_path):
    make_dataset(tmp_path / "wcxb")
    argv = [
        str(tmp_path / "wcxb"),
        "--role",
        "validation",
        "--split-file",
        str(tmp_path / "wcxb" / "split.json"),
    ]
    with pytest.raises(SystemExit, match="no validation page with HTML and gold"):
        benchmark.main(argv)
