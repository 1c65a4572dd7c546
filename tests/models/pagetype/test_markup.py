"""The ``markup`` page statistics: schema.org types, og:type, code, forms and prices."""

from __future__ import annotations

import json

import numpy as np
import pytest
from lxml import html as lxml_html

from models.pagetype.layout import page_statistics, statistics_names
from models.pagetype.markup import MARKUP_STATISTICS, markup_statistics, schema_types

PRODUCT_PAGE = f"""<!DOCTYPE html><html><head>
<meta property="og:type" content="product.item">
<script type="application/ld+json">{
    json.dumps(
        {
            "@context": "https://schema.org",
            "@graph": [
                {"@type": "Organization", "name": "Shop"},
                {"@type": ["Product", "Thing"], "offers": {"@type": "Offer", "price": "19.99"}},
            ],
        }
    )
}</script>
<script type="application/ld+json">{{ not json</script>
</head><body>
<h1>Kettle</h1><p>Now only $19.99, was 24,50 €.</p>
<form><input type="text" name="q"><input type="search"><input type="hidden"><select></select>
<textarea></textarea><button>Add</button></form>
<script>var price = "$5";</script>
</body></html>"""

FORUM_PAGE = """<html><head><meta property="og:type" content="website"><link rel="next" href="?page=2"></head>
<body><div itemscope itemtype="https://schema.org/DiscussionForumPosting http://schema.org/Comment/">
<time>Mon</time><blockquote>quoted</blockquote><p>Use <code>ls</code> then:</p><pre><code>ls -l</code></pre>
</div></body></html>"""


def values(html: str) -> dict[str, float]:
    return dict(zip(MARKUP_STATISTICS, markup_statistics(html).tolist(), strict=True))


def test_schema_types_come_from_json_ld_graphs_and_microdata():
    root = lxml_html.document_fromstring(PRODUCT_PAGE)
    assert sorted(schema_types(root)) == ["offer", "organization", "product", "thing"]
    forum = lxml_html.document_fromstring(FORUM_PAGE)
    assert sorted(schema_types(forum)) == ["comment", "discussionforumposting"]


def test_a_product_page_declares_its_kind_its_fields_and_its_prices():
    found = values(PRODUCT_PAGE)
    assert found["schema_product"] == 1.0 and found["schema_forum"] == 0.0
    assert found["schema_service"] == 0.0  # Organization is every publisher's, no kind's
    assert found["og_product"] == 1.0 and found["og_article"] == 0.0
    assert found["forms"] == pytest.approx(np.log1p(1))
    assert found["typed_inputs"] == pytest.approx(np.log1p(1))  # text, not search or hidden
    assert found["selects"] == found["textareas"] == found["buttons"] == pytest.approx(np.log1p(1))
    assert found["prices"] == pytest.approx(np.log1p(2))  # the script's "$5" is not text
    assert found["code_blocks"] == 0.0 and found["rel_next"] == 0.0


def test_a_forum_page_declares_posts_code_quotes_and_a_next_page():
    found = values(FORUM_PAGE)
    assert found["schema_forum"] == 1.0 and found["schema_product"] == 0.0
    assert found["og_website"] == 1.0
    assert found["code_blocks"] == pytest.approx(np.log1p(1))
    assert found["inline_code"] == pytest.approx(np.log1p(1))  # the one outside <pre>
    assert found["time_elements"] == found["blockquotes"] == pytest.approx(np.log1p(1))
    assert found["rel_next"] == 1.0 and found["prices"] == 0.0


@pytest.mark.parametrize("html", ["", "   ", "\x00"])
def test_no_html_reads_as_nothing_declared(html):
    assert not markup_statistics(html).any()


def test_the_markup_group_reads_the_html_given_beside_the_boxes():
    names = statistics_names(("url", "markup"))
    assert names[-len(MARKUP_STATISTICS) :] == MARKUP_STATISTICS
    with_html = page_statistics([], 1366, "https://a.example/p/kettle", ("url", "markup"), PRODUCT_PAGE)
    without = page_statistics([], 1366, "https://a.example/p/kettle", ("url", "markup"))
    assert with_html[-len(MARKUP_STATISTICS) :].tolist() == markup_statistics(PRODUCT_PAGE).tolist()
    assert not without[-len(MARKUP_STATISTICS) :].any()


def test_long_runs_of_digits_are_read_in_one_pass():
    """The price pattern never restarts inside a number: a page of 40,000 digits or of
    thousands of comma-separated decimals took 35 and 11 s with a backtracking one."""
    assert values("<html><body><p>" + "1" * 40_000 + "</p></body></html>")["prices"] == 0.0
    decimals = ",".join(["12.5"] * 6_000) + " €"
    assert values(f"<html><body><p>{decimals}</p></body></html>")["prices"] == pytest.approx(np.log1p(1))


def test_an_xml_declaration_is_read_past():
    declared = "<?xml version='1.0' encoding='utf-8'?>" + PRODUCT_PAGE.removeprefix("<!DOCTYPE html>")
    assert values(declared) == values(PRODUCT_PAGE)
