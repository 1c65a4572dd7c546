"""The line merge's lexicon: which terms it keeps, what it learns, how it is stored, and
the merge's lexical columns."""

from __future__ import annotations

import numpy as np
import pytest

from models.quality.features import PageStats, candidate_features
from models.quality.lexicon import Lexicon, fit_lexicon, line_terms
from models.quality.merge import candidate_lines, lexical_columns
from pipelines.evaluation.text import tokens

STORIES = [
    "the council agreed to repair the old stone bridge",
    "a storm closed the harbour for two days",
    "the museum opened a new wing for local painters",
    "farmers met to discuss the price of grain",
]
CHROME = ["free shipping and free returns", "add to cart", "customer reviews"]


def fitted(min_domains: int = 3) -> Lexicon:
    """Four sites, each with every story (gold) and every chrome line (not gold), plus a
    chrome line only one site has."""
    lines, labels, domains = [], [], []
    for site in range(4):
        for text, gold in [*((s, True) for s in STORIES), *((c, False) for c in CHROME)]:
            lines.append(text)
            labels.append(gold)
            domains.append(f"site{site}.example")
    lines.append("unique widget banner")
    labels.append(False)
    domains.append("site0.example")
    terms = [line_terms(tokens(line)) for line in lines]
    return fit_lexicon(terms, np.array(labels), np.ones(len(lines)), domains, c=1.0, min_domains=min_domains)


def test_line_terms_are_words_and_neighbouring_pairs():
    assert line_terms(["add", "to", "cart"]) == {"add", "to", "cart", "add to", "to cart"}
    assert len(line_terms([f"w{i}" for i in range(100)])) == 40 + 39


def test_chrome_scores_below_stories_and_one_sites_terms_are_not_kept():
    lexicon = fitted()
    assert lexicon.evidence(tokens("free shipping on every order")) < lexicon.evidence(
        tokens("the council met on the bridge")
    )
    assert "shipping" in lexicon.terms and "widget" not in lexicon.terms
    assert lexicon.evidence(["unseen", "words"]) == 0.0 and lexicon.known_words(["unseen", "words"]) == 0
    assert lexicon.known_words(tokens("free shipping in Oslo")) == 2


def test_too_few_domains_leave_the_weighted_prior():
    lexicon = fitted(min_domains=5)
    assert lexicon.terms == {}
    share = len(STORIES) / (len(STORIES) + len(CHROME) + 0.25)
    assert lexicon.bias == pytest.approx(np.log(share / (1 - share)))
    assert lexicon.evidence(tokens("add to cart")) == 0.0


def test_stored_and_read_back():
    lexicon = fitted()
    arrays = lexicon.to_arrays("merge.full.")
    assert arrays["merge.full.lexicon_weights"].dtype == np.float16
    read = Lexicon.from_arrays(arrays, "merge.full.", lexicon.bias)
    assert read.terms == lexicon.terms
    for line in [*STORIES, *CHROME]:
        assert read.evidence(tokens(line)) == pytest.approx(lexicon.evidence(tokens(line)), abs=1e-6)
    arrays["merge.full.lexicon_weights"] = arrays["merge.full.lexicon_weights"][:-1]
    with pytest.raises(ValueError, match="terms and"):
        Lexicon.from_arrays(arrays, "merge.full.", lexicon.bias)


def test_lexical_columns_score_each_line_and_its_candidates_neighbours():
    page = PageStats(words=40, link_words=0, link_bag={})
    texts = ["\n".join(STORIES[:3]), STORIES[3]]
    lines = candidate_lines(texts, page, candidate_features(texts, ["a", "b"], page, "article"))
    assert [line.source for line in lines] == [0, 0, 0, 1]
    words = sum(len(line.words) for line in lines)
    columns = lexical_columns(lines, [1.0, 2.0, 6.0, -4.0], [3, 0, 2, 1])
    np.testing.assert_allclose(columns[:, 0], [1.0, 2.0, 6.0, -4.0])
    np.testing.assert_allclose(columns[:, 1], [3.0, 3.0, 3.0, -4.0])  # the other candidate's line apart
    np.testing.assert_allclose(columns[:, 2], 6 / words)  # the page's known share, on every line
    # a page the lexicon cannot read: the columns the classifier also learned from
    assert not lexical_columns(lines, [0.0] * 4, [0] * 4).any()
