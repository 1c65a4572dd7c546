"""Screenshot datasets captured through the crawler: sources, serving, manifest, and an
end-to-end `scrapy capture-dataset` on a tiny WCXB-style folder."""

import gzip
import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from crawler.dataset import (
    LabeledPage,
    abort_external_requests,
    demo_seed_roles,
    failed_pages,
    gold_pages,
    serve_html_folder,
    wcxb_pages,
    write_manifest,
)
from models.common.splits import DomainSplit, UnknownDomain
from tests.support.paths import ROOT

ARTICLE_HTML = (
    "<html><head><title>A</title></head><body>" + "<p>Long paragraph of text.</p>" * 150 + "</body></html>"
)
LIST_HTML = (
    "<html><head><title>L</title></head><body><ul>"
    + "".join(f"<li><a href='/item{i}'>Item {i}</a></li>" for i in range(40))
    + "</ul></body></html>"
)


@pytest.fixture()
def wcxb_folder(tmp_path):
    root = tmp_path / "wcxb"
    (root / "html").mkdir(parents=True)
    (root / "ground-truth").mkdir()
    pages = {"0001": ("article", "news.example", ARTICLE_HTML), "0002": ("listing", "", LIST_HTML)}
    files = {}
    for file_id, (page_type, domain, html) in pages.items():
        (root / "html" / f"{file_id}.html.gz").write_bytes(gzip.compress(html.encode("utf-8")))
        (root / "ground-truth" / f"{file_id}.json").write_text(
            json.dumps(
                {
                    "url": f"https://www.shop-{file_id}.example/x",
                    "ground_truth": {},
                    "_internal": {"page_type": {"primary": page_type}},
                }
            )
        )
        files[file_id] = {"split": "dev", "page_type": page_type, "domain": domain}
    # metadata.json misses files: the page type comes from the ground truth
    del files["0002"]["page_type"]
    (root / "metadata.json").write_text(json.dumps({"files": files}))
    return root


def test_wcxb_pages_are_labelled_and_sited(wcxb_folder):
    pages = wcxb_pages(wcxb_folder, "http://127.0.0.1:1")
    assert [(p.url, p.label, p.site, p.source) for p in pages] == [
        ("http://127.0.0.1:1/0001.html", "article", "news.example", "wcxb"),
        # no domain in metadata: the host of the original URL
        ("http://127.0.0.1:1/0002.html", "listing", "shop-0002.example", "wcxb"),
    ]


def test_wcxb_pages_of_one_split_role(wcxb_folder, monkeypatch):
    import crawler.dataset

    split = DomainSplit({"news.example": "validation", "shop-0002.example": "train"}, {}, 5)
    monkeypatch.setattr(crawler.dataset, "load_split", lambda: split)
    assert [p.url for p in wcxb_pages(wcxb_folder, "http://127.0.0.1:1", "validation")] == [
        "http://127.0.0.1:1/0001.html"
    ]
    assert len(wcxb_pages(wcxb_folder, "http://127.0.0.1:1", "train")) == 1
    monkeypatch.setattr(crawler.dataset, "load_split", lambda: DomainSplit({}, {}, 5))
    with pytest.raises(UnknownDomain):
        wcxb_pages(wcxb_folder, "http://127.0.0.1:1", "validation")


def test_gold_pages_and_bad_gold_line(tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        '{"url": "http://a.example/1", "site": "a", "page_type": "list"}\n{"url": "http://b.example/2"}\n'
    )
    (page,) = gold_pages(gold)
    assert (page.url, page.label, page.site) == ("http://a.example/1", "list", "a")
    assert gold_pages(gold, source="demo-11", role="train")[0].role == "train"
    gold.write_text('{"url": "http://a.example/1"}\nnot json\n')
    with pytest.raises(ValueError, match=r"gold.jsonl:2: not a gold line"):
        gold_pages(gold)


def test_demo_seeds_carry_their_split_roles():
    assert demo_seed_roles("11:train, 12:train,13:validation,2026") == [
        (11, "train"),
        (12, "train"),
        (13, "validation"),
        (2026, None),
    ]
    for bad in ("11:test", "x:train", ":train"):
        with pytest.raises(ValueError, match="a demo seed is SEED or SEED:ROLE"):
            demo_seed_roles(bad)


def test_archive_server_serves_gzipped_html(wcxb_folder):
    with serve_html_folder(wcxb_folder / "html") as base:
        with urllib.request.urlopen(f"{base}/0001.html") as response:
            assert response.headers["Content-Type"] == "text/html; charset=utf-8"
            assert response.read().decode() == ARTICLE_HTML
        for missing in ("9999.html", "x" * 300 + ".html"):  # absent; too long a file name
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(f"{base}/{missing}")
            assert answer.value.code == 404


def test_archive_server_can_withhold_the_charset(wcxb_folder):
    """Render fidelity serves pages as many small sites do: bare text/html."""
    with (
        serve_html_folder(wcxb_folder / "html", declare_charset=False) as base,
        urllib.request.urlopen(f"{base}/0001.html") as response,
    ):
        assert response.headers["Content-Type"] == "text/html"
        assert response.read().decode() == ARTICLE_HTML


def test_external_requests_are_aborted():
    assert abort_external_requests(SimpleNamespace(url="https://cdn.example/x.css"))
    assert not abort_external_requests(SimpleNamespace(url="http://127.0.0.1:8000/a.css"))
    assert not abort_external_requests(SimpleNamespace(url="data:image/png;base64,AA=="))


def _feed_line(url: str, status: str, out: Path) -> str:
    artifacts = {
        name: {"uri": (out / "store" / name / "x").as_uri()} for name in ("screenshot", "html", "boxes")
    }
    return json.dumps({"url": url, "status": status, "error": None, **(artifacts if status == "ok" else {})})


def test_failed_pages_are_retried_and_the_retry_line_wins(tmp_path):
    pages = [LabeledPage(f"http://127.0.0.1:1/{n}.html", "article", "a.example", "wcxb") for n in range(4)]
    first, retry = tmp_path / "capture-feed.jsonl", tmp_path / "capture-feed-retry1.jsonl"
    statuses = ("ok", "error", "skipped")
    first.write_text(
        "".join(_feed_line(p.url, s, tmp_path) + "\n" for p, s in zip(pages[:3], statuses, strict=True))
    )
    # an error and a page the crawl never reported are retried; skipped pages are not
    assert failed_pages(pages, [first]) == [pages[1], pages[3]]
    retry.write_text(_feed_line(pages[1].url, "ok", tmp_path) + "\n")
    assert failed_pages(pages, [first, retry]) == [pages[3]]
    outcomes = write_manifest(pages, [first, retry], tmp_path)
    assert dict(outcomes) == {"ok": 2, "skipped": 1, "missing": 1}
    lines = [json.loads(line) for line in (tmp_path / "manifest.jsonl").read_text().splitlines()]
    assert [line["url"] for line in lines] == [pages[0].url, pages[1].url]
    assert {k: lines[0][k] for k in ("image", "html", "boxes")} == {
        "image": "store/screenshot/x",
        "html": "store/html/x",
        "boxes": "store/boxes/x",
    }


def test_capture_dataset_command_end_to_end(wcxb_folder, tmp_path):
    out = tmp_path / "ds"
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "capture-dataset", "--wcxb", str(wcxb_folder), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 screenshots of 2 pages" in done.stdout
    lines = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    assert sorted((entry["label"], entry["site"]) for entry in lines) == [
        ("article", "news.example"),
        ("listing", "shop-0002.example"),
    ]
    heights = {}
    for entry in lines:
        assert json.loads((out / entry["boxes"]).read_text())
        assert gzip.decompress((out / entry["html"]).read_bytes()).startswith(b"<html")
        with Image.open(out / entry["image"]) as image:
            assert image.size[0] == 1366
            heights[entry["label"]] = image.size[1]
    # cut at the crawl's PAGESIGHT_MAX_SCREENSHOT_HEIGHT (8000), not at a 2048 px top
    assert 2048 < heights["article"] <= 8000


def test_capture_dataset_needs_a_source(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "capture-dataset", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "give at least one source" in done.stderr


def test_capture_dataset_refuses_a_bad_demo_role(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "capture-dataset",
            "--demo",
            "--demo-seeds",
            "11:test",
            "--out",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--demo-seeds: '11:test': a demo seed is SEED or SEED:ROLE" in done.stderr
