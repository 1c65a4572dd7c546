"""benchmarks/extract.py on a missing dataset and on a tiny WCXB-shaped one."""

import gzip
import json
import sys
from pathlib import Path

import pytest

from tests.support.paths import FIXTURES, ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import extract as benchmark

EXTRACTION_FIXTURES = FIXTURES / "extraction"


def test_missing_dataset_exits_cleanly(tmp_path, capsys):
    assert benchmark.main([str(tmp_path / "absent")]) == 0
    assert "WCXB dataset not found" in capsys.readouterr().out


def make_dataset(root: Path) -> None:
    (root / "html").mkdir(parents=True)
    (root / "ground-truth").mkdir()
    pages = {
        "0001": ("article.html", "article", "gazette.example"),
        "0002": ("list.html", "listing", "gazette.example"),
        "0003": ("article.html", "forum", "forum.example"),
    }
    files = {}
    for file_id, (name, page_type, domain) in pages.items():
        html = (EXTRACTION_FIXTURES / name).read_bytes()
        (root / "html" / f"{file_id}.html.gz").write_bytes(gzip.compress(html))
        gold = (
            "More than three hundred volunteers spent Saturday morning"
            if name == "article.html"
            else "Council votes on the budget"
        )
        record = {"url": f"https://{domain}/{file_id}", "ground_truth": {"main_content": gold}}
        (root / "ground-truth" / f"{file_id}.json").write_text(json.dumps(record))
        files[file_id] = {"page_type": page_type, "domain": domain, "split": "dev"}
    unscored = {
        "url": "https://x.example/",
        "ground_truth": {"main_content": ""},
        "_internal": {"page_type": {"primary": "service"}},
    }
    (root / "html" / "0004.html.gz").write_bytes(gzip.compress(b"<p>x</p>"))
    (root / "ground-truth" / "0004.json").write_text(json.dumps(unscored))
    (root / "metadata.json").write_text(json.dumps({"files": files}))
    split = {"train": ["gazette.example"], "validation": ["x.example"], "heldout": ["forum.example"]}
    (root / "split.json").write_text(json.dumps({**split, "folds": [["gazette.example"]]}))


def test_tiny_dataset(tmp_path, capsys):
    make_dataset(tmp_path / "wcxb")
    predicted = tmp_path / "pred.json"
    predicted.write_text(json.dumps({"0001": "article", "0002": "article", "0003": "list"}))
    out = tmp_path / "results.json"
    code = benchmark.main(
        [
            str(tmp_path / "wcxb"),
            "--extractors",
            "iawce,iawce-paper",
            "--out",
            str(out),
            "--page-types",
            str(predicted),
            "--auto",
            "--split-file",
            str(tmp_path / "wcxb" / "split.json"),
            "--options",
            '{"iawce": {"article_share": 0.7}}',
        ]
    )
    assert code == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].startswith("| extractor | F1 | P | R | article | forum")
    labels = ["iawce", "iawce [predicted type]", "iawce [auto type]", "iawce-paper", "oracle"]
    for label in labels:
        assert f"| {label} |" in table
    results = json.loads(out.read_text())
    assert results["pages"] == 3 and results["unscored_empty_gold"] == 1
    article = results["per_page"]["iawce"]["0001"]
    assert article["recall"] == 1.0 and 0 < article["precision"] < 1
    assert results["summaries"]["iawce"]["listing"]["pages"] == 1
    assert results["summaries"]["iawce"]["heldout"]["pages"] == 1  # forum.example
    assert table.splitlines()[0].endswith(
        "| ms/page | median ms | p95 ms | total × trafilatura | median × trafilatura | median × plain |"
    )
    oracle = results["per_page"]["oracle"]
    for file_id, best in oracle.items():
        runs = [scores[file_id] for label, scores in results["per_page"].items() if label != "oracle"]
        assert best["f1"] == max(run["f1"] for run in runs)
        assert best["ms"] == pytest.approx(sum(run["ms"] for run in runs))
    times = sorted(page["ms"] for page in results["per_page"]["iawce"].values())
    assert results["summaries"]["iawce"]["overall"]["median_ms"] == times[1]


def test_both_trafilatura_references_the_speed_ratios_and_the_ensembles_choices(tmp_path, capsys):
    """With trafilatura in the run, plain ``trafilatura.extract`` is a second reference
    row; every row's total and median are divided by the wrapper's (the wrapper's own
    row reads 1.00), the plain row stays out of the oracle, and the ensemble's kept
    candidates are counted per page."""
    make_dataset(tmp_path / "wcxb")
    out = tmp_path / "results.json"
    split = str(tmp_path / "wcxb" / "split.json")
    code = benchmark.main(
        [
            str(tmp_path / "wcxb"),
            "--extractors",
            "ensemble,trafilatura",
            "--out",
            str(out),
            "--split-file",
            split,
        ]
    )
    assert code == 0
    table = capsys.readouterr().out
    rows = {line.split(" | ")[0].removeprefix("| "): line.split(" | ") for line in table.splitlines()}
    assert benchmark.PLAIN_TRAFILATURA in rows
    assert rows["trafilatura"][-3:-1] == ["1.00", "1.00"]
    results = json.loads(out.read_text())
    plain = results["per_page"][benchmark.PLAIN_TRAFILATURA]
    assert plain["0001"]["recall"] == 1.0
    summary = results["summaries"]["ensemble"]["overall"]
    shares = {key: value for key, value in summary.items() if key.startswith("chose ")}
    assert shares and sum(shares.values()) == pytest.approx(1.0)
    assert set(results["choices"]["ensemble"]) == {"0001", "0002", "0003"}
    assert "| ensemble | " in table.split("| extractor | candidate |")[1]
    assert summary["p95_ms"] >= summary["median_ms"]
    for file_id, best in results["per_page"]["oracle"].items():
        assert best["ms"] == pytest.approx(
            sum(results["per_page"][label][file_id]["ms"] for label in ("ensemble", "trafilatura"))
        )


def test_a_domain_outside_the_split_is_a_clear_error(tmp_path):
    make_dataset(tmp_path / "wcxb")
    with pytest.raises(SystemExit, match=r"domain gazette\.example is not in the split"):
        benchmark.main([str(tmp_path / "wcxb"), "--extractors", "iawce"])


def test_scoring_with_the_readers_comments(tmp_path, capsys):
    """--with-comments scores against the gold's main text and then its comments: iawce
    and the trafilatura wrapper asked for the comments recall them, at their defaults not."""
    root = tmp_path / "news"
    (root / "html").mkdir(parents=True)
    (root / "ground-truth").mkdir()
    story = " ".join(["The council met on Tuesday and agreed to repair the old bridge."] * 6)
    comments = [f"Comment number {i} thanks the council for the repair." for i in range(3)]
    thread = "".join(f"<div class='comment'><p>{text}</p></div>" for text in comments)
    html = f"<html><body><article><p>{story}</p></article><div id='comments'>{thread}</div></body></html>"
    (root / "html" / "0001.html.gz").write_bytes(gzip.compress(html.encode()))
    gold = {"main_content": story, "comments": "\n".join(comments)}
    record = {"url": "https://gazette.example/1", "ground_truth": gold}
    (root / "ground-truth" / "0001.json").write_text(json.dumps(record))
    files = {"0001": {"page_type": "article", "domain": "gazette.example", "split": "dev"}}
    (root / "metadata.json").write_text(json.dumps({"files": files}))
    split = {"train": ["gazette.example"], "validation": [], "heldout": [], "folds": [["gazette.example"]]}
    (root / "split.json").write_text(json.dumps(split))
    asked = {name: {"include_comments": True} for name in ("iawce", "trafilatura")}
    for name, options in (("defaults", {}), ("asked", asked)):
        out = tmp_path / f"{name}.json"
        common = [
            "--extractors",
            "iawce,trafilatura",
            "--split-file",
            str(root / "split.json"),
            "--out",
            str(out),
        ]
        assert benchmark.main([str(root), *common, "--with-comments", "--options", json.dumps(options)]) == 0
        results = json.loads(out.read_text())
        assert results["with_comments"] is True
        for extractor in ("iawce", "trafilatura"):
            recall = results["per_page"][extractor]["0001"]["recall"]
            assert recall == 1.0 if name == "asked" else recall < 0.9, (name, extractor, recall)
    capsys.readouterr()
