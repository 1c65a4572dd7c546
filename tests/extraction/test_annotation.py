"""Gold text → DOM labels (models.common.annotation) on hand-made pages."""

from __future__ import annotations

import gzip
import json

from models.common.annotation import ANNOTATIONS_FILE, annotate_html, matched_tokens, write_annotations
from models.common.wcxb_pages import read_gold_pages
from pipelines.extraction.dom import parse_html
from pipelines.extraction.leaves import text_leaves

MENU_PAGE = """<html><head><title>Weather news</title><script>var weather = 1;</script></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/w">Weather</a></li><li><a href="/s">Sports</a></li></ul></nav>
<div id="main"><h1>Storm reaches the coast</h1>
<p>The weather service warned that the storm will reach the coast tonight.</p>
<p>Sports events in the region were cancelled for the <b>whole</b> weekend.</p></div>
<footer>Weather and sports, every day.</footer></body></html>"""
MENU_GOLD = (
    "Storm reaches the coast\n\nThe weather service warned that the storm will reach the coast "
    "tonight.\n\nSports events in the region were cancelled for the whole weekend."
)


def labelled(html: str, gold: str) -> dict[str, int]:
    annotation = annotate_html(html, gold)
    return {
        leaf.text.strip(): label for leaf, label in zip(annotation.leaves, annotation.labels, strict=True)
    }


def test_leaves_are_text_nodes_in_order_without_script_text():
    root = parse_html("<body><p>one <b>tw</b>o<script>x = 1</script> three</p><button>Go</button></body>")
    leaves = text_leaves(root)
    assert [leaf.text.strip() for leaf in leaves] == ["one", "tw", "o", "three"]
    assert [(leaf.owner.tag, leaf.node) for leaf in leaves] == [("p", 0), ("b", 0), ("p", 1), ("p", 2)]
    assert [element.tag for element in leaves[1].ancestors()] == ["b", "p", "body", "html"]


def test_menu_words_repeating_body_words_stay_boilerplate():
    labels = labelled(MENU_PAGE, MENU_GOLD)
    assert labels["Weather"] == 0 and labels["Sports"] == 0 and labels["Home"] == 0
    assert labels["Weather and sports, every day."] == 0
    assert labels["Storm reaches the coast"] == 1
    assert labels["whole"] == 1  # an inline leaf inside a matched run
    assert labels["weekend."] == 1


def test_main_element_is_the_smallest_holding_the_gold():
    annotation = annotate_html(MENU_PAGE, MENU_GOLD)
    assert annotation.main_path == "/html/body/div"
    assert annotation.leaf_f1 == 1.0 and annotation.main_f1 == 1.0
    stats = {e.path: (e.tokens, e.matched) for e in annotation.elements}
    assert stats["/html/body/div"][0] == stats["/html/body/div"][1] == annotation.gold_tokens
    assert stats["/html/body"][1] == annotation.gold_tokens > stats["/html/body"][0] / 2


def test_nested_blocks_pick_the_inner_block_and_label_only_its_leaves():
    html = (
        "<body><div id='outer'><div class='related'><p>Read also: the best soup recipes of the year</p></div>"
        "<div id='inner'><section><p>Boil the water and add the salt.</p><p>Cook the pasta for nine minutes.</p>"
        "</section></div><p>Read also: soup</p></div></body>"
    )
    gold = "Boil the water and add the salt.\n\nCook the pasta for nine minutes."
    annotation = annotate_html(html, gold)
    assert annotation.main_path == "/html/body/div/div[2]/section"
    assert annotation.labels == [0, 1, 1, 0]


def test_cjk_aligns_by_character():
    html = (
        "<body><ul><li>首页</li><li>新闻</li></ul><div><p>今天东京的天气很好。</p>"
        "<p>新闻发布会在下午举行。</p></div><p>版权所有</p></body>"
    )
    gold = "今天东京的天气很好。新闻发布会在下午举行。"
    annotation = annotate_html(html, gold)
    assert annotation.labels == [0, 0, 1, 1, 0]
    assert annotation.main_path == "/html/body/div"


def test_short_runs_do_not_count_unless_the_gold_is_short():
    assert matched_tokens(["a", "b", "x", "c", "d", "e"], ["b", "c", "d", "e"]) == [
        False,
        False,
        False,
        True,
        True,
        True,
    ]
    assert matched_tokens(["menu", "hello"], ["hello"]) == [False, True]
    assert matched_tokens([], ["a"]) == [] and matched_tokens(["a"], []) == [False]


def write_wcxb(root, pages):
    (root / "html").mkdir(parents=True)
    (root / "ground-truth").mkdir()
    for file_id, (html, gold) in pages.items():
        (root / "html" / f"{file_id}.html.gz").write_bytes(gzip.compress(html.encode("utf-8")))
        truth = {"url": f"https://example.com/{file_id}", "ground_truth": {"main_content": gold}}
        truth["_internal"] = {"page_type": {"primary": "article"}}
        (root / "ground-truth" / f"{file_id}.json").write_text(json.dumps(truth), encoding="utf-8")


def test_annotations_file_follows_the_contract(tmp_path):
    write_wcxb(tmp_path / "wcxb", {"0001": (MENU_PAGE, MENU_GOLD)})
    summary = write_annotations(read_gold_pages(tmp_path / "wcxb"), tmp_path / "out")
    [line] = (tmp_path / "out" / ANNOTATIONS_FILE).read_text(encoding="utf-8").splitlines()
    record = json.loads(line)
    assert record["file_id"] == "0001" and record["source"] == "wcxb-html"
    assert record["main_path"] == "/html/body/div"
    assert ["/html/body/nav/ul/li[2]/a", 0, 0] in record["leaves"]
    assert ["/html/body/div/p[2]/b", 0, 1] in record["leaves"]
    assert ["/html/body/div", 27, 27] in record["elements"]
    assert summary["ceiling"]["article"] == {"pages": 1, "leaf_f1": 1.0, "main_f1": 1.0}


def test_captures_join_gold_by_file_id(tmp_path):
    write_wcxb(tmp_path / "wcxb", {"0001": (MENU_PAGE, MENU_GOLD), "0002": ("<p>x</p>", "x")})
    store = tmp_path / "captures" / "store"
    store.mkdir(parents=True)
    (store / "a.html.gz").write_bytes(gzip.compress(MENU_PAGE.encode("utf-8")))
    (store / "a.json").write_text(json.dumps([{"path": "/html/body/div", "w": 800}]), encoding="utf-8")
    line = {
        "url": "http://127.0.0.1:8000/0001.html",
        "html": {"uri": (store / "a.html.gz").as_uri()},
        "boxes": {"uri": (store / "a.json").as_uri()},
    }
    broken = {"url": "http://127.0.0.1:8000/0002.html", "error": "timeout"}
    (tmp_path / "captures" / "feed.jsonl").write_text(
        json.dumps(line) + "\n" + json.dumps(broken) + "\n", encoding="utf-8"
    )
    [page] = read_gold_pages(tmp_path / "captures", tmp_path / "wcxb")
    assert page.record.file_id == "0001" and page.source == "capture"
    assert page.boxes == [{"path": "/html/body/div", "w": 800}]
