"""Styled generated sites (crawler/styled): text from training domains only, labels by
the generator's URL scheme, split roles by theme, local stylesheets, and the manifest's
role column."""

import importlib.util
import json
import re
import subprocess
import sys
import urllib.request

import pytest

from crawler.dataset import LabeledPage, serve_static_folder, styled_pages, write_manifest
from crawler.styled import THEMES, build_sites, read_styled_pages
from crawler.styled.generator import training_posts
from models.common.splits import ROLES, load_split
from models.pagetype.data import read_manifest
from tests.support.paths import ROOT

TEXT = "A sentence of real gold text about the subject of this post, long enough. " * 12


@pytest.fixture(scope="module")
def wcxb_folder(tmp_path_factory):
    """Four training-domain articles, one held-out-domain article, one training listing."""
    split = load_split()
    train, heldout = split.domains("train"), split.domains("heldout")
    pages = [(f"000{i}", train[i], "article") for i in range(4)]
    pages += [("0005", heldout[0], "article"), ("0006", train[5], "listing")]
    root = tmp_path_factory.mktemp("wcxb")
    (root / "ground-truth").mkdir()
    for file_id, domain, page_type in pages:
        truth = {"title": f"Title {file_id}", "main_content": f"{TEXT}\n{TEXT}"}
        (root / "ground-truth" / f"{file_id}.json").write_text(
            json.dumps(
                {
                    "url": f"https://{domain}/{file_id}",
                    "ground_truth": truth,
                    "_internal": {"page_type": {"primary": page_type}},
                }
            )
        )
    return root


def test_posts_come_from_training_articles_only(wcxb_folder):
    posts = training_posts(wcxb_folder, seed=1)
    assert sorted(p.slug.rsplit("-", 1)[1] for p in posts) == ["0000", "0001", "0002", "0003"]
    assert {p.title for p in posts} == {"Title 0000", "Title 0001", "Title 0002", "Title 0003"}


def test_themes_split_by_theme():
    assert {t.role for t in THEMES} == set(ROLES)
    assert len({t.name for t in THEMES}) == len(THEMES)
    roles_of_theme: dict[tuple[str, str], set[str]] = {}
    for theme in THEMES:
        roles_of_theme.setdefault((theme.generator, theme.theme), set()).add(theme.role)
    # a held-out theme is never trained on, not even in another palette
    assert all(len(roles) == 1 for roles in roles_of_theme.values())


@pytest.mark.parametrize("theme", THEMES, ids=[t.name for t in THEMES])
def test_a_styled_site_is_built_labelled_and_local(theme, wcxb_folder, tmp_path):
    if importlib.util.find_spec(theme.generator) is None:
        pytest.skip(f"{theme.generator} is not installed (pip install -r requirements-data.txt)")
    pages = build_sites(wcxb_folder, tmp_path, themes=[theme], sites_per_theme=1, posts_per_site=4)
    site = f"{theme.name}-1.styled.test"
    assert read_styled_pages(tmp_path) == pages
    assert {(p.site, p.theme, p.role) for p in pages} == {(site, theme.name, theme.role)}
    articles = [p for p in pages if p.label == "article"]
    listings = [p for p in pages if p.label == "listing"]
    # every post is an article page, named by its WCXB file id; the home page lists them
    assert sorted(re.search(r"-(\d{4})", p.path).group(1) for p in articles) == [
        "0000",
        "0001",
        "0002",
        "0003",
    ]
    assert f"{site}/" in {p.path for p in listings}
    assert len(listings) >= 3  # home, archive, category pages
    sites = tmp_path / "sites"
    for page in pages:
        html_file = sites / (page.path + "index.html" if page.path.endswith("/") else page.path)
        html = html_file.read_text(encoding="utf-8")
        # every page shows its posts (Furo rendered ABlog's pages as an error page)
        assert "Title 000" in html, page.path
        if page.label == "article":
            assert "A sentence of real gold text" in html, page.path
        stylesheets = re.findall(r'<link[^>]+rel="stylesheet"[^>]*>', html)
        assert stylesheets, page.path
        for link in stylesheets:
            href = re.search(r'href="([^"?#]+)', link).group(1)
            if href.startswith("https://fonts.googleapis.com/"):
                continue  # Pyramid's web font: the capture aborts it, the theme's own CSS is local
            assert not re.match(r"(https?:)?//", href), f"{page.path}: external stylesheet {href}"
            assert (html_file.parent / href).resolve().is_file(), f"{page.path}: missing {href}"
    # served from the folder as a crawl sees it, with the theme's role in the manifest
    with serve_static_folder(sites) as base_url:
        labelled = styled_pages(tmp_path, base_url)
        with urllib.request.urlopen(labelled[0].url, timeout=10) as response:
            assert response.status == 200
    assert {(p.role, p.source) for p in labelled} == {(theme.role, f"styled-{theme.name}")}


def test_the_manifest_carries_the_role(tmp_path):
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "shot.png").write_bytes(b"png")
    page = LabeledPage("http://127.0.0.1:1/s/", "listing", "s.styled.test", "styled-x", "heldout")
    feed = tmp_path / "feed.jsonl"
    record = {"url": page.url, "status": "ok", "screenshot": {"uri": f"file://{tmp_path}/store/shot.png"}}
    feed.write_text(json.dumps(record) + "\n")
    write_manifest([page], [feed], tmp_path)
    (entry,) = read_manifest(tmp_path)
    assert (entry.label, entry.site, entry.role) == ("listing", "s.styled.test", "heldout")


@pytest.mark.e2e
def test_capture_dataset_captures_styled_sites_with_roles(wcxb_folder, tmp_path):
    if importlib.util.find_spec("pelican") is None:
        pytest.skip("pelican is not installed (pip install -r requirements-data.txt)")
    theme = next(t for t in THEMES if t.generator == "pelican")
    sites = tmp_path / "styled"
    pages = build_sites(wcxb_folder, sites, themes=[theme], sites_per_theme=1, posts_per_site=2)
    out = tmp_path / "ds"
    done = subprocess.run(
        [sys.executable, "-m", "scrapy", "capture-dataset", "--styled", str(sites), "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{len(pages)} screenshots of {len(pages)} pages" in done.stdout
    records = read_manifest(out)
    assert sorted(r.label for r in records) == sorted(p.label for p in pages)
    assert {(r.site, r.role, r.source) for r in records} == {
        (f"{theme.name}-1.styled.test", theme.role, f"styled-{theme.name}")
    }
    assert all(r.boxes is not None for r in records)
