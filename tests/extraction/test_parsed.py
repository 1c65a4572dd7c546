"""The page parsed once (``Page.parsed``): shared by the extractors that run on one page,
never edited by them, and giving the same extractions as a page parsed afresh."""

import pytest
from lxml import etree

from pipelines.extraction import ARTICLE, LIST, Page, build_extractor
from pipelines.extraction.denoise import denoise
from pipelines.extraction.dom import parse_html
from pipelines.extraction.options import IawceOptions
from pipelines.extraction.pagetype import guess_page_type, tells_a_story
from tests.support.paths import FIXTURES

EXTRACTION_FIXTURES = FIXTURES / "extraction"
ARTICLE_URL = "https://gazette.example/news/2024/river-cleanup"
CHEAP = ("iawce", "iawce-paper", "dom-pagerank")


def fixture(name: str) -> str:
    return (EXTRACTION_FIXTURES / name).read_text(encoding="utf-8")


def markup(root: etree._Element) -> bytes:
    return etree.tostring(root, encoding="utf-8")


def test_a_page_is_parsed_once_with_its_base_and_metadata():
    page = Page(fixture("article.html"), ARTICLE_URL, ARTICLE)
    parsed = page.parsed
    assert parsed is not None and page.parsed is parsed
    assert parsed.base == ARTICLE_URL
    assert parsed.metadata is parsed.metadata
    assert parsed.metadata.title == "River cleanup draws hundreds"
    assert Page("  ", ARTICLE_URL).parsed is None


@pytest.mark.parametrize(
    ("name", "page_type"), [("article.html", ARTICLE), ("list.html", LIST), ("list.html", None)]
)
def test_extractors_sharing_a_page_find_what_they_find_alone_and_leave_its_tree(name, page_type):
    html = fixture(name)
    shared = Page(html, ARTICLE_URL, page_type)
    parsed = shared.parsed
    assert parsed is not None
    untouched = markup(parsed.root)
    for extractor in CHEAP:
        alone = build_extractor(extractor).extract(Page(html, ARTICLE_URL, page_type))
        assert build_extractor(extractor).extract(shared) == alone
        assert alone is not None
    assert shared.parsed is parsed and markup(parsed.root) == untouched


def test_a_denoised_tree_is_a_copy_made_once_per_page_type():
    page = Page(fixture("article.html"), ARTICLE_URL, ARTICLE)
    parsed = page.parsed
    assert parsed is not None
    options = IawceOptions()
    tree = parsed.denoised(ARTICLE, options)
    assert tree is parsed.denoised(ARTICLE, options) and tree.page_type == ARTICLE
    assert tree.root is not parsed.root
    expected = parse_html(page.html)
    assert expected is not None
    denoise(expected, ARTICLE)
    assert markup(tree.root) == markup(expected)
    assert tree.lengths is tree.lengths


def test_an_unknown_type_is_guessed_on_the_list_denoised_tree():
    page = Page(fixture("list.html"), ARTICLE_URL)
    parsed = page.parsed
    assert parsed is not None
    tree = parsed.denoised(None, IawceOptions())
    assert tree.page_type == LIST and tree is parsed.denoised(LIST, IawceOptions())


def test_a_retyped_page_shares_the_parse():
    page = Page(fixture("list.html"), ARTICLE_URL)
    parsed = page.parsed
    typed = page.with_page_type(LIST)
    assert (typed.page_type, page.page_type) == (LIST, None)
    assert typed.parsed is parsed and typed.html is page.html
    fresh = Page(fixture("list.html"), ARTICLE_URL).with_page_type(LIST)
    assert "parsed" not in fresh.__dict__ and fresh.parsed is not None


#: A news article under link blocks no markup names (a 2012 portal's menus): more than
#: half of its text is link text, so the list guess alone calls it a list.
STORY_UNDER_MENUS = (
    "<html><body><div>"
    + "".join(
        f"<div><a href='/s{block}/{i}'>Section {block} topic {i} with more words here</a></div>"
        for block in range(4)
        for i in range(8)
    )
    + "</div><div><h1>Council reopens the ferry pier</h1>"
    + "".join(
        f"<p>The harbour board met on Monday, paragraph {i}, and agreed after a long debate that the "
        "ferry pier should reopen in spring once the repairs to its timber deck are done.</p>"
        for i in range(6)
    )
    + "</div></body></html>"
)


def test_a_story_under_link_menus_is_read_as_an_article_not_a_list():
    page = Page(STORY_UNDER_MENUS, ARTICLE_URL)
    parsed = page.parsed
    assert parsed is not None
    as_list = parsed.denoised(LIST, IawceOptions())
    assert guess_page_type(as_list.body) == LIST  # the link share alone says list
    assert parsed.denoised(None, IawceOptions()).page_type == ARTICLE
    extraction = build_extractor("iawce").extract(page)
    assert extraction is not None and extraction.page_type == ARTICLE
    assert "agreed after a long debate" in extraction.text and "Section 2 topic" not in extraction.text


def test_a_link_list_with_short_teasers_stays_a_list():
    page = Page(fixture("list.html"), ARTICLE_URL)
    parsed = page.parsed
    assert parsed is not None
    article = parsed.denoised(ARTICLE, IawceOptions())
    assert not tells_a_story(article.body, article.lengths)
