"""DOM PageRank: the sparse solve against a dense one, DensitySum, the extractor."""

from __future__ import annotations

import numpy as np
import pytest
from scrapy.settings import Settings

from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.dompagerank import DomPageRankExtractor, density_sum, dom_graph, page_rank
from pipelines.extraction.page import Page

TREE = "<body><div><p>one</p><p>two <b>three</b></p></div><ul><li>four</li></ul></body>"

GALLERY = """<html><head><title>Mountain photos</title>
<meta name="description" content="Photos of mountains in winter"></head><body>
<header><a href="/">Home</a> <a href="/a">About</a> <a href="/c">Contact</a></header>
<div class="gallery"><h1>Mountain photos</h1>
<div><img src="1.jpg"><p>Snow on the peak</p></div><div><img src="2.jpg"><p>Winter valley</p></div>
<div><img src="3.jpg"><p>Mountain lake</p></div><div><img src="4.jpg"><p>Pine forest</p></div></div>
<aside><p>Ads</p></aside><footer>Imprint</footer></body></html>"""


def test_graph_is_the_undirected_dom_with_text_leaves():
    graph = dom_graph(body_of(parse_html(TREE)))
    assert [e.tag for e in graph.elements] == ["body", "div", "p", "p", "b", "ul", "li"]
    assert [leaf.text for leaf in graph.leaves] == ["one", "two ", "three", "four"]
    laplacian = graph.laplacian.toarray()
    assert (laplacian == laplacian.T).all()
    assert np.allclose(laplacian.sum(axis=1), 0)
    assert laplacian.trace() == 2 * (len(graph.elements) + len(graph.leaves) - 1)


@pytest.mark.parametrize(("alpha", "beta"), [(0.5, 1.0), (0.1, 1.0), (2.0, 0.5)])
def test_sparse_solve_matches_the_dense_inverse(alpha, beta):
    graph = dom_graph(body_of(parse_html(TREE)))
    u = np.zeros(graph.laplacian.shape[0])
    u[len(graph.elements) :] = [1.0, 2.0, 0.5, -3.0]
    dense = np.linalg.inv(beta * graph.laplacian.toarray() + alpha * np.eye(len(u))) @ u
    assert np.allclose(page_rank(graph.laplacian, u, alpha, beta), np.maximum(0.0, dense))


def test_density_sum_adds_children_with_density_tags():
    graph = dom_graph(body_of(parse_html(TREE)))
    f = np.arange(1.0, graph.laplacian.shape[0] + 1)
    g = density_sum(graph, f)
    # body: itself + div (2) + ul is a DensitySum tag (6); div: itself + p (3) + p (4); p[2]: b is not.
    assert g.tolist()[:4] == [1 + 2 + 6, 2 + 3 + 4, 3, 4]


def test_gallery_main_element_is_the_gallery():
    root = parse_html(GALLERY)
    for prior in ("text-uniform", "text-length", "title"):
        extractor = DomPageRankExtractor(DomPageRankExtractor.Options(prior=prior, media=1.0))
        assert extractor.main_element(root).get("class") == "gallery", prior
    extraction = DomPageRankExtractor().extract(Page(GALLERY, "https://x.example/"))
    assert extraction.extractor == "dom-pagerank" and extraction.title == "Mountain photos"
    assert "Pine forest" in extraction.text and "Imprint" not in extraction.text


def test_pages_without_text_give_none():
    assert DomPageRankExtractor().extract(Page("<html><body><div></div></body></html>")) is None
    assert DomPageRankExtractor().extract(Page("   ")) is None


def test_options_come_from_settings_and_are_checked():
    import settings as project_settings

    defaults = Settings()
    defaults.setmodule(project_settings)
    assert DomPageRankExtractor.from_settings(defaults).options == DomPageRankExtractor.Options()
    defaults.set("PAGESIGHT_EXTRACTOR_OPTIONS", {"dom-pagerank": {"prior": "pixels"}})
    with pytest.raises(ValueError, match="prior must be one of"):
        DomPageRankExtractor.from_settings(defaults)
