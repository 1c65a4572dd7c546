"""Gold readers: our JSONL, WCXB folders, ScrapingHub ground-truth.json, and errors."""

import json
from pathlib import Path

import pytest

from pipelines.evaluation.gold import (
    FORMAT_JSONL,
    FORMAT_SCRAPINGHUB,
    FORMAT_WCXB,
    GoldFormatError,
    load_gold,
)
from tests.support.paths import FIXTURES, SHARED_DATASETS

EVALUATION_FIXTURES = FIXTURES / "evaluation"
WCXB_DEV = SHARED_DATASETS / "wcxb-dev"


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_gold_jsonl_fixture():
    gold = load_gold(EVALUATION_FIXTURES / "gold.jsonl")
    assert gold.format == FORMAT_JSONL and len(gold) == 6
    bridge = gold.get("http://ALPHA.example/news/harbor-bridge/#top")
    assert bridge is not None and bridge.site == "alpha" and bridge.page_type == "article"
    assert bridge.with_snippets and bridge.without_snippets == [
        "Subscribe to our newsletter",
        "Most read",
    ]
    assert bridge.source.endswith("gold.jsonl line 1")


def test_list_page_text_comes_from_items_when_absent():
    listing = load_gold(EVALUATION_FIXTURES / "gold.jsonl").get("https://alpha.example/news/")
    assert listing.text.split("\n\n")[0] == (
        "Harbor bridge reopens after two years of repairs\n"
        "The harbor bridge reopened to traffic on Monday morning."
    )
    assert len(listing.items) == 3


def test_gold_matches_feed_records_by_url_then_canonical_url():
    gold = load_gold(EVALUATION_FIXTURES / "gold.jsonl")
    assert gold.match({"url": "https://alpha.example/news"}).title == "News"
    record = {
        "url": "https://alpha.example/amp/7",
        "canonical_url": "https://beta.example/article/1",
    }
    assert gold.match(record).language == "zh"
    assert gold.match({"url": "https://alpha.example/about"}) is None


def test_bad_json_line_names_file_and_line(tmp_path):
    path = _write_lines(
        tmp_path / "gold.jsonl",
        ['{"url": "https://a.example/1", "text": "one"}', "", '{"url": "https://a.example/2", '],
    )
    with pytest.raises(GoldFormatError, match=r"gold\.jsonl line 3: not valid JSON"):
        load_gold(path)


def test_gold_line_that_is_not_utf8(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_bytes(b'{"url": "https://a.example/1", "text": "x"}\n{"url": "\xff"}\n')
    with pytest.raises(GoldFormatError, match=r"gold\.jsonl line 2: not UTF-8"):
        load_gold(path)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"text": "no url"}', 'line 2: missing "url"'),
        ('{"url": "", "text": "empty url"}', 'line 2: missing "url"'),
        ('{"url": "https://a.example/2"}', 'line 2: missing "text"'),
        ('["https://a.example/2", "text"]', "line 2: expected a JSON object, got list"),
        ('{"url": "https://a.example/2", "text": "t", "with": "one"}', '"with" must be a list'),
        ('{"url": "https://a.example/2", "text": "t", "items": [1]}', '"items" must be a list'),
        ('{"url": "https://a.example/2", "text": "t", "page_type": 3}', '"page_type" must be'),
        ('{"url": "http://A.example/1/", "text": "t"}', "line 2: URL .* is already the gold of"),
    ],
)
def test_invalid_gold_lines_are_reported_with_their_line(tmp_path, line, message):
    path = _write_lines(tmp_path / "gold.jsonl", ['{"url": "https://a.example/1", "text": "x"}', line])
    with pytest.raises(GoldFormatError, match=message):
        load_gold(path)


def test_wcxb_folder_with_metadata():
    gold = load_gold(EVALUATION_FIXTURES / "wcxb")
    assert gold.format == FORMAT_WCXB
    assert [page.source.rsplit("/", 1)[-1] for page in gold.pages] == ["0001.json", "0002.json"]
    soup = gold.get("https://www.gamma.example/recipes/lentil-soup")
    assert (soup.site, soup.page_type, soup.author) == ("gamma.example", "article", "Ana Lima")
    assert soup.with_snippets == ["simmer them with onion, carrot and cumin"]
    desks = gold.get("https://shop.delta.example/c/desks")
    assert desks.text == "" and desks.page_type == "collection" and desks.author is None
    reasons = {Path(s.source).name: s.reason for s in gold.skipped}
    assert reasons["0003.json"] == "no URL, cannot be matched"
    assert reasons["0004.json"].startswith("same URL as") and "0001.json" in reasons["0004.json"]


def test_wcxb_folder_without_metadata_and_with_a_broken_file(tmp_path):
    truth = tmp_path / "ground-truth"
    truth.mkdir()
    page = {"url": "https://a.example/1", "ground_truth": {"main_content": "Text."}}
    (truth / "0001.json").write_text(json.dumps(page), encoding="utf-8")
    gold = load_gold(tmp_path)
    assert gold.pages[0].site == "a.example" and gold.pages[0].page_type is None
    (truth / "0002.json").write_text('{"url": "https://a.example/2",\n "ground_truth": {', "utf-8")
    with pytest.raises(GoldFormatError, match=r"0002\.json line 2: not valid JSON"):
        load_gold(tmp_path)


def test_scrapinghub_ground_truth():
    gold = load_gold(EVALUATION_FIXTURES / "scrapinghub-ground-truth.json")
    assert gold.format == FORMAT_SCRAPINGHUB and len(gold) == 2
    solar = gold.get("https://epsilon.example/2019/05/solar-farm")
    assert solar.text.startswith("A solar farm") and solar.page_type is None


def test_scrapinghub_entry_without_url(tmp_path):
    path = tmp_path / "ground-truth.json"
    path.write_text(json.dumps({"x1": {"articleBody": "Body."}}), encoding="utf-8")
    with pytest.raises(GoldFormatError, match='id x1: missing "url"'):
        load_gold(path)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("gold.txt", "url,text\n", "unknown gold format"),
        ("gold.json", '[{"url": "https://a.example/"}]', "unknown gold format"),
        ("gold.json", '{"a": {"url": ', r"gold\.json line 1: not valid JSON"),
    ],
)
def test_unknown_or_broken_gold_files(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(GoldFormatError, match=message):
        load_gold(path)


def test_gold_folder_without_ground_truth_and_missing_path(tmp_path):
    with pytest.raises(GoldFormatError, match="must contain ground-truth"):
        load_gold(tmp_path)
    with pytest.raises(GoldFormatError, match="no such gold file or folder"):
        load_gold(tmp_path / "absent.jsonl")


@pytest.mark.skipif(not WCXB_DEV.is_dir(), reason="WCXB dev set not present")
def test_real_wcxb_dev_set_loads_every_file():
    gold = load_gold(WCXB_DEV)
    files = len(list((WCXB_DEV / "ground-truth").glob("*.json")))
    assert len(gold) + len(gold.skipped) == files
    assert len(gold) > 0.95 * files
    assert {page.page_type for page in gold.pages} >= {"article", "listing", "collection"}
