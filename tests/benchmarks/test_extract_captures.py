"""benchmarks/extract_captures.py on two fixture captures of a tiny WCXB-shaped folder:
scores, wall and CPU ms per page (mean and median), the ratio to iawce, the load."""

import io
import json
import sys
from pathlib import Path
from statistics import median

import pytest
import torch
from PIL import Image

from models.common.splits import HELDOUT, TRAIN, DomainSplit
from tests.support.element_pages import layout_boxes, layout_page, write_capture
from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import extract_captures as benchmark

DOMAINS = {"0001": "gazette.test", "0002": "herald.test"}


def make_pages(root: Path) -> Path:
    """A WCXB folder (gold of two articles) and a feed of their captures; returns the feed."""
    (root / "ground-truth").mkdir(parents=True)
    shot = io.BytesIO()
    Image.new("RGB", (1200, 1660), "white").save(shot, format="PNG")
    (root / "shot.png").write_bytes(shot.getvalue())
    lines, files = [], {}
    for seed, (file_id, domain) in enumerate(DOMAINS.items()):
        html = layout_page(seed)
        line = write_capture(root, f"https://{domain}/{file_id}.html", html, layout_boxes(html))
        lines.append({**line, "screenshot": {"uri": (root / "shot.png").as_uri()}})
        gold = {"url": line["url"], "ground_truth": {"main_content": "River council volunteers"}}
        (root / "ground-truth" / f"{file_id}.json").write_text(json.dumps(gold))
        files[file_id] = {"page_type": "article", "domain": domain}
    (root / "metadata.json").write_text(json.dumps({"files": files}))
    feed = root / "feed.jsonl"
    feed.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return feed


def test_scores_and_times_beside_iawce(tmp_path, monkeypatch, capsys):
    feed = make_pages(tmp_path)
    split = DomainSplit({"gazette.test": HELDOUT, "herald.test": TRAIN}, {"herald.test": 0}, 1)
    monkeypatch.setattr("models.element.data.load_split", lambda: split)
    out = tmp_path / "results.json"
    argv = [str(feed), str(tmp_path), "--extractors", "iawce,vision-element", "--role", "all"]
    threads = torch.get_num_threads()
    try:
        assert benchmark.main([*argv, "--threads", "1", "--out", str(out)]) == 0
    finally:
        torch.set_num_threads(threads)  # --threads sets the process's
    table = capsys.readouterr().out.splitlines()
    assert table[0].endswith("| ms/page | median ms | median CPU ms | × iawce |")
    assert table[2].startswith("| iawce | 2 |") and table[2].endswith("| 1.00 |")
    assert table[3].startswith("| vision-element | 2 |")
    report = json.loads(out.read_text())
    assert report["threads"] == 1 and set(report["load_average"]) == {"before", "after"}
    for name in ("iawce", "vision-element"):
        pages = report["per_page"][name]
        assert set(pages) == set(DOMAINS) and all(page["cpu_ms"] > 0 for page in pages.values())
        overall = report["summaries"][name]["overall"]
        assert overall["median_ms"] == pytest.approx(median(page["ms"] for page in pages.values()))
        assert overall["median_cpu_ms"] == pytest.approx(median(page["cpu_ms"] for page in pages.values()))
    assert report["per_page"]["iawce"]["0001"]["recall"] == 1.0  # the story holds the gold's words
