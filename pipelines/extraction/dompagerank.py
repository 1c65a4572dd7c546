"""The ``dom-pagerank`` extractor (seed 004): semi-supervised PageRank with Laplacian
regularization over the DOM, then DensitySum.

- G: the DOM under ``<body>`` as an undirected graph over elements and text leaves
  (:func:`pipelines.extraction.leaves.text_leaves`); A its adjacency, L = D − A.
- f = max(0, (βL + αI)⁻¹ u), one sparse solve (scipy.sparse; no dense inverse). Only
  α/β matters for the argmax below (scaling both scales f).
- u, the prior: ``text-uniform`` (1 per text leaf), ``text-length`` (its tokens, 0
  under nav/aside), or ``title`` ((1 − γ) + γ·(sim(leaf, title) + sim(leaf,
  description)), sim the cosine of token counts); ``media`` adds that weight to every
  img/video element.
- DensitySum: g_i = f_i + Σ f_j over the children j tagged h1–h6, p, div, table, map,
  section, article or ul (the seed's code); the main content is argmax g, rendered.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Self

import numpy as np
from numpy.typing import NDArray

from pipelines.config import SettingsLike
from pipelines.evaluation.text import tokens
from pipelines.extraction.dom import HtmlElement, body_of, is_element
from pipelines.extraction.leaves import IGNORED_TAGS, TextLeaf, text_leaves
from pipelines.extraction.page import Extraction, Page
from pipelines.extraction.pagetype import guess_page_type
from pipelines.extraction.registry import configured_options, register
from pipelines.extraction.result import extraction_with
from pipelines.extraction.textformat import render_blocks

if TYPE_CHECKING:  # scipy is imported when the extractor is built: other crawls never load it
    from scipy import sparse

logger = logging.getLogger(__name__)

PRIORS = ("text-uniform", "text-length", "title")
DENSITY_TAGS = frozenset(
    {"h1", "h2", "h3", "h4", "h5", "h6", "p", "div", "table", "map", "section", "article", "ul"}
)
MEDIA_TAGS = frozenset({"img", "video"})
#: text-length gives no weight to text under these.
NAVIGATION_TAGS = frozenset({"nav", "aside"})


@dataclass
class DomGraph:
    """The page's nodes (elements first, then text leaves), its Laplacian, and the
    DensitySum matrix (element i × node j: 1 where j is a child of i with a DensitySum tag)."""

    elements: list[HtmlElement]
    leaves: list[TextLeaf]
    laplacian: sparse.csr_matrix
    density: sparse.csr_matrix


def dom_graph(body: HtmlElement) -> DomGraph:
    """The undirected graph of ``body``'s elements (outside ignored tags) and text leaves."""
    from scipy import sparse

    elements: list[HtmlElement] = []
    index: dict[HtmlElement, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    stack = [body]
    while stack:
        element = stack.pop()
        index[element] = len(elements)
        elements.append(element)
        parent = element.getparent()
        if element is not body and parent in index:
            rows.append(index[parent])
            cols.append(index[element])
        stack.extend(c for c in reversed(element) if is_element(c) and c.tag not in IGNORED_TAGS)
    leaves = [leaf for leaf in text_leaves(body) if leaf.owner in index]
    for number, leaf in enumerate(leaves, start=len(elements)):
        rows.append(index[leaf.owner])
        cols.append(number)
    size = len(elements) + len(leaves)
    ones = np.ones(len(rows))
    adjacency = sparse.coo_matrix((ones, (rows, cols)), shape=(size, size)).tocsr()
    adjacency = adjacency + adjacency.T
    laplacian = sparse.diags(np.asarray(adjacency.sum(axis=1)).ravel()) - adjacency
    pairs = [
        (p, c)
        for p, c in zip(rows, cols, strict=True)
        if c < len(elements) and elements[c].tag in DENSITY_TAGS
    ]
    density = sparse.coo_matrix(
        (np.ones(len(pairs)), ([p for p, _ in pairs], [c for _, c in pairs])), shape=(len(elements), size)
    ).tocsr()
    return DomGraph(elements, leaves, laplacian.tocsr(), density)


def page_rank(laplacian: sparse.spmatrix, prior: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """f = max(0, (βL + αI)⁻¹ u) by one sparse solve."""
    from scipy import sparse
    from scipy.sparse.linalg import spsolve

    system = (beta * laplacian + alpha * sparse.identity(laplacian.shape[0], format="csr")).tocsc()
    solution: NDArray[np.float64] = spsolve(system, prior)
    return np.maximum(0.0, solution)


def density_sum(graph: DomGraph, weights: np.ndarray) -> np.ndarray:
    """g_i = f_i + Σ f_j over the children j of element i with a DensitySum tag."""
    children: NDArray[np.float64] = graph.density @ weights
    return weights[: len(graph.elements)] + children


def _cosine(first: Counter[str], second: Counter[str]) -> float:
    dot = sum(count * second[token] for token, count in first.items() if token in second)
    norm = math.sqrt(sum(c * c for c in first.values()) * sum(c * c for c in second.values()))
    return dot / norm if norm else 0.0


def _meta_description(root: HtmlElement) -> str:
    for meta in root.iter("meta"):
        if (meta.get("name") or meta.get("property") or "").lower() in ("description", "og:description"):
            return meta.get("content") or ""
    return ""


@register
class DomPageRankExtractor:
    """The main element by DOM PageRank + DensitySum, rendered."""

    name: ClassVar[str] = "dom-pagerank"

    @dataclass(frozen=True)
    class Options:
        """Tuned on WCXB dev's train domains (README "DOM PageRank")."""

        alpha: float = 0.01
        beta: float = 1.0
        prior: str = "text-length"
        #: γ of the title prior.
        gamma: float = 0.5
        #: Prior weight of each img/video element (0: none).
        media: float = 1.0

        def __post_init__(self) -> None:
            if self.prior not in PRIORS:
                raise ValueError(f"dom-pagerank prior must be one of {', '.join(PRIORS)}, got {self.prior!r}")
            if self.alpha <= 0 or self.beta < 0:
                raise ValueError(f"dom-pagerank needs alpha > 0 and beta >= 0, got {self.alpha}, {self.beta}")

    def __init__(self, options: Options | None = None) -> None:
        self.options = options or self.Options()

    @classmethod
    def from_settings(cls, settings: SettingsLike | None = None) -> Self:
        """Defaults, with any ``PAGESIGHT_EXTRACTOR_OPTIONS["dom-pagerank"]`` overrides;
        ValueError on a bad value. Loads the solver (scipy) now, not on the first page."""
        import scipy.sparse.linalg  # noqa: F401

        return cls(configured_options(cls.name, cls.Options(), settings))

    def prior(self, graph: DomGraph, root: HtmlElement) -> np.ndarray:
        """u over the graph's nodes for the configured variant."""
        options = self.options
        u = np.zeros(len(graph.elements) + len(graph.leaves))
        offset = len(graph.elements)
        if options.prior == "text-uniform":
            u[offset:] = 1.0
        elif options.prior == "text-length":
            for number, leaf in enumerate(graph.leaves, start=offset):
                if not any(e.tag in NAVIGATION_TAGS for e in leaf.ancestors()):
                    u[number] = len(leaf.tokens)
        else:
            title = Counter(tokens(root.findtext(".//title") or ""))
            description = Counter(tokens(_meta_description(root)))
            for number, leaf in enumerate(graph.leaves, start=offset):
                words = Counter(leaf.tokens)
                similarity = _cosine(words, title) + _cosine(words, description)
                u[number] = (1 - options.gamma) + options.gamma * similarity
        if options.media:
            for number, element in enumerate(graph.elements):
                if element.tag in MEDIA_TAGS:
                    u[number] += options.media
        return u

    def main_element(self, root: HtmlElement) -> HtmlElement | None:
        """argmax of DensitySum over the body's elements; None without any prior weight."""
        graph = dom_graph(body_of(root))
        u = self.prior(graph, root)
        if not u.any():
            return None
        weights = page_rank(graph.laplacian, u, self.options.alpha, self.options.beta)
        return graph.elements[int(np.argmax(density_sum(graph, weights)))]

    def extract(self, page: Page) -> Extraction | None:
        parsed = page.parsed
        if parsed is None:
            logger.info("dom-pagerank found nothing on %s: the document has no markup", page.url or "<page>")
            return None
        page_type = page.page_type or guess_page_type(body_of(parsed.root))
        main = self.main_element(parsed.root)
        blocks = render_blocks(main, parsed.base) if main is not None else []
        if not blocks:
            logger.info("dom-pagerank found no weighted text on %s", page.url or "<page>")
            return None
        return extraction_with(self.name, page_type, parsed.metadata, blocks)
