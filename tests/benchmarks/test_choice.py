"""benchmarks/choice.py: the candidate-agnostic features, and collect + evaluate on a tiny
WCXB-layout folder with its own file-id split (as Dragnet's)."""

import gzip
import json
import sys
from pathlib import Path

import pytest

from tests.support.paths import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))

import choice

from models.quality.features import PageStats

STORY = [
    "The council approved the new library budget after a long evening debate on Tuesday",
    "Residents spoke for and against the plan that doubles the opening hours next year",
    "The mayor said the vote showed the town cares about reading and about its children",
]
COMMENTS = ["Reply", "Jane 5 May", "Great news for our town", "Reply", "Tom 6 May", "About time"]
PAGE = PageStats(words=200, link_words=20, link_bag={"reply": 2})

AFTER, INSIDE = choice.FEATURE_NAMES.index("after"), choice.FEATURE_NAMES.index("inside")


def test_a_comment_tail_sits_after_the_lines_the_others_hold():
    with_comments = "\n".join([*STORY, *COMMENTS])
    rows = choice.candidate_agnostic_features(
        [with_comments, "\n".join(STORY), "\n".join(STORY)], PAGE, "article"
    )
    assert len(rows[0]) == len(choice.FEATURE_NAMES)
    assert rows[0][AFTER] > 0.2 and rows[0][INSIDE] == 0
    assert rows[1][AFTER] == 0


def test_a_paragraph_the_others_missed_sits_inside():
    middle = "A table of opening hours for each weekday follows with morning and evening times listed"
    wider = "\n".join([STORY[0], middle, STORY[1], STORY[2]])
    rows = choice.candidate_agnostic_features([wider, "\n".join(STORY), "\n".join(STORY)], PAGE, "article")
    assert rows[0][INSIDE] > 0.1 and rows[0][AFTER] == 0


def test_the_features_never_name_a_candidate():
    texts = ["\n".join([*STORY, *COMMENTS]), "\n".join(STORY), None]
    rows = choice.candidate_agnostic_features(texts, PAGE, "article")
    swapped = choice.candidate_agnostic_features([texts[1], texts[0], None], PAGE, "article")
    assert rows[0] == swapped[1] and rows[1] == swapped[0]
    assert rows[2][0] == 1.0  # empty


def make_dataset(root: Path) -> None:
    fixtures = ROOT / "tests" / "fixtures" / "extraction"
    (root / "html").mkdir(parents=True)
    (root / "ground-truth").mkdir()
    roles = {"train": ["a1", "a2"], "validation": ["b1"], "heldout": ["c1"]}
    files = {}
    for role, ids in roles.items():
        for file_id in ids:
            html = (fixtures / "article.html").read_bytes()
            (root / "html" / f"{file_id}.html.gz").write_bytes(gzip.compress(html))
            gold = "More than three hundred volunteers spent Saturday morning"
            record = {"url": f"https://{file_id}.example/", "ground_truth": {"main_content": gold}}
            (root / "ground-truth" / f"{file_id}.json").write_text(json.dumps(record))
            files[file_id] = {"page_type": "article", "domain": f"{file_id}.example", "split": role}
    (root / "metadata.json").write_text(json.dumps({"files": files}))
    (root / "splits.json").write_text(json.dumps(roles))


def test_collect_then_evaluate(tmp_path, capsys):
    make_dataset(tmp_path / "news")
    cache = tmp_path / "cache.jsonl"
    assert choice.main(["collect", str(tmp_path / "news"), "--cache", str(cache)]) == 0
    assert choice.main(["collect", str(tmp_path / "news"), "--cache", str(cache)]) == 0  # nothing new
    pages = choice.read_cache(cache)
    assert sorted(page.file_id for page in pages) == ["a1", "a2", "b1", "c1"]
    assert set(pages[0].texts) == set(choice.CANDIDATES) and pages[0].stats.words > 0
    capsys.readouterr()
    assert choice.main(["evaluate", "--wcxb", str(cache), "--dragnet", str(cache)]) == 0
    report = capsys.readouterr().out
    assert "Dragnet validation (1 pages)" in report and "WCXB dev train (2 pages)" in report
    assert "heldout" not in report
    assert report.count("margin 0.20") == 4
    assert choice.main(["evaluate", "--wcxb", str(cache), "--dragnet", str(cache), "--heldout"]) == 0
    assert "Dragnet heldout (1 pages)" in capsys.readouterr().out


def test_evaluate_needs_both_caches(tmp_path):
    with pytest.raises(SystemExit, match="run `collect` first"):
        choice.main(["evaluate", "--wcxb", str(tmp_path / "a"), "--dragnet", str(tmp_path / "b")])


def cached(file_id: str, role: str, lead: str, peer: str) -> choice.CachedPage:
    """A page whose gold is ``peer``'s text, which both peers found."""
    texts = {name: peer for name in choice.CANDIDATES} | {"iawce": lead}
    return choice.CachedPage(file_id, role, "article", PAGE, peer, texts, {})


def test_the_lead_gate_keeps_every_page_the_consensus_fixes_on_dragnet_validation():
    story = "\n".join(STORY)
    # Beside the story, one long line and one short line the peers lack: 8 of the lead's
    # 61 words sit in short lines (a share of 0.13), and the consensus removes both.
    lead = f"{story}\nZebra quilts vanish gracefully beneath purple lanterns tonight near harbours\nKayak regatta tickets on sale Nov 3 2012"
    splits = {
        (family, role): [cached(f"{family}{role}", role, lead, story)]
        for family in ("Dragnet", "WCXB dev")
        for role in ("train", "validation")
    }
    chosen = choice.ConsensusOptions(min_lead_short_share=0.0)
    assert choice.consensus_gains(splits[("Dragnet", "validation")], chosen)[0] > 0
    share, lines = choice.lead_gate(splits, chosen, shipped=0.05)
    assert share == 0.1  # 0.15 would drop the page
    assert (
        choice.consensus_gains(
            splits[("Dragnet", "validation")], choice.replace(chosen, min_lead_short_share=0.15)
        )[0]
        == 0
    )
    assert any(line.startswith("  0.05 (shipped): Dragnet train +0.") for line in lines)
    assert "Dragnet validation +0.0000; 0%" in lines[-1]  # 0.3: no peer runs, no gain
