"""`scrapy evaluate` end to end, as a user runs it from the project folder."""

import json
import subprocess
import sys

from tests.support.paths import FIXTURES, ROOT

EVALUATION_FIXTURES = FIXTURES / "evaluation"


def _evaluate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "scrapy", "evaluate", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_evaluate_writes_the_report(tmp_path):
    out = tmp_path / "report"
    result = _evaluate(
        str(EVALUATION_FIXTURES / "feed.jsonl"),
        "--gold",
        str(EVALUATION_FIXTURES / "gold.jsonl"),
        "--out",
        str(out),
        "--correct",
        "20",
        "--complete",
        "5",
    )
    assert result.returncode == 0, result.stderr
    assert "pagesight: 6 pages, 2 failed; word F1" in result.stdout
    assert {p.name for p in out.iterdir()} == {"report.json", "report.md", "report.html", "plots"}
    report = json.loads((out / "report.json").read_text("utf-8"))
    assert (report["config"]["correct_distance"], report["config"]["complete_distance"]) == (20, 5)
    assert report["summary"]["pages"] == 6


def test_evaluate_reads_thresholds_from_settings(tmp_path):
    result = _evaluate(
        str(EVALUATION_FIXTURES / "feed.jsonl"),
        "--gold",
        str(EVALUATION_FIXTURES / "gold.jsonl"),
        "--out",
        str(tmp_path),
        "-s",
        "PAGESIGHT_EVAL_CORRECT_DISTANCE=25",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads((tmp_path / "report.json").read_text("utf-8"))["config"]["correct_distance"] == 25


def test_bad_gold_line_stops_with_file_and_line(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"url": "https://a.example/", "text": "t"}\n{"url": \n', encoding="utf-8")
    result = _evaluate(str(EVALUATION_FIXTURES / "feed.jsonl"), "--gold", str(gold), "--out", str(tmp_path))
    assert result.returncode == 2
    assert f"{gold} line 2: not valid JSON" in result.stderr
    assert not (tmp_path / "report.json").exists()


def test_usage_errors(tmp_path):
    no_gold = _evaluate(str(EVALUATION_FIXTURES / "feed.jsonl"))
    assert no_gold.returncode == 2 and "--gold" in no_gold.stderr
    bad_thresholds = _evaluate(
        str(EVALUATION_FIXTURES / "feed.jsonl"),
        "--gold",
        str(EVALUATION_FIXTURES / "gold.jsonl"),
        "--complete",
        "40",
    )
    assert bad_thresholds.returncode == 2 and "complete=40, correct=30" in bad_thresholds.stderr
    missing_feed = _evaluate(str(tmp_path / "none.jsonl"), "--gold", str(EVALUATION_FIXTURES / "gold.jsonl"))
    assert missing_feed.returncode == 2 and "no such feed file" in missing_feed.stderr
    unknown = _evaluate(
        str(EVALUATION_FIXTURES / "feed.jsonl"),
        "--gold",
        str(EVALUATION_FIXTURES / "gold.jsonl"),
        "--compare",
        "iawce,nope",
    )
    assert (
        unknown.returncode == 2
        and "unknown extractor 'nope'; known extractors: boilernet, dom-pagerank" in unknown.stderr
    )
    assert "Traceback" not in unknown.stderr


def test_evaluate_scores_several_feeds_together_each_url_once(tmp_path):
    """The workers' feeds of a distributed crawl: split the fixture feed in two and give
    the second a recrawled copy of a line of the first; the report is the one feed's."""
    lines = (EVALUATION_FIXTURES / "feed.jsonl").read_text("utf-8").splitlines()
    recrawled = {**json.loads(lines[0]), "recrawled": True, "text": "a different text"}
    (tmp_path / "a.jsonl").write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("\n".join([*lines[3:], json.dumps(recrawled)]) + "\n", encoding="utf-8")
    gold = str(EVALUATION_FIXTURES / "gold.jsonl")
    one = _evaluate(str(EVALUATION_FIXTURES / "feed.jsonl"), "--gold", gold, "--out", str(tmp_path / "one"))
    assert one.returncode == 0, one.stderr
    two = _evaluate(
        str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"), "--gold", gold, "--out", str(tmp_path / "two")
    )
    assert two.returncode == 0, two.stderr
    assert "pagesight: 6 pages, 2 failed; word F1" in two.stdout
    summaries = [
        json.loads((tmp_path / name / "report.json").read_text("utf-8"))["summary"] for name in ("one", "two")
    ]
    assert summaries[0] == summaries[1]


def test_evaluate_prints_the_page_kinds_confusion_when_gold_and_feed_have_kinds(tmp_path):
    lines = (EVALUATION_FIXTURES / "feed.jsonl").read_text("utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    for record in records:
        record["page_kind"] = "listing" if record.get("page_type") == "list" else "article"
    feed = tmp_path / "feed.jsonl"
    feed.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    result = _evaluate(
        str(feed), "--gold", str(EVALUATION_FIXTURES / "gold.jsonl"), "--out", str(tmp_path / "r")
    )
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text("utf-8"))
    kinds = report["page_kinds"]
    assert set(kinds["confusion"]["gold"]) == {"article", "listing"}
    assert f"Page kinds: Kind accuracy {kinds['accuracy']:.3f} over {kinds['pages']} pages" in result.stdout
    assert "| gold kind |" in result.stdout and "| recall |" in result.stdout
