"""iawce and iawce-paper end to end on small pages whose right answer is known."""

import json
import logging

import pytest

from pipelines.extraction import LIST, Page, build_extractor
from pipelines.extraction.denoise import denoise
from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.options import IawceOptions
from pipelines.extraction.pagetype import guess_page_type
from tests.support.paths import FIXTURES

EXTRACTION_FIXTURES = FIXTURES / "extraction"
ARTICLE_URL = "https://gazette.example/news/2024/river-cleanup"
ARTICLE_TEXT = (
    "River cleanup draws hundreds\n\n"
    "More than three hundred volunteers spent Saturday morning pulling rubbish out of the Avon, the largest "
    "turnout since the annual cleanup began eleven years ago. Organisers said the group filled two skips "
    "before lunch.\n\n"
    "Plastic, tyres and a shopping trolley\n\n"
    "Most of what came out of the water was plastic packaging, but teams working near the old mill also "
    "recovered fourteen car tyres, a rusted bicycle frame and a shopping trolley that had to be lifted out "
    "with ropes.\n\n"
    "The council has promised to install two new litter traps upstream of the town centre before the summer, "
    "and the organisers hope the next cleanup in September will find the river noticeably cleaner."
)


def fixture(name: str) -> str:
    return (EXTRACTION_FIXTURES / name).read_text(encoding="utf-8")


def test_iawce_article():
    found = build_extractor("iawce").extract(Page(fixture("article.html"), ARTICLE_URL, "article"))
    assert found is not None
    assert found.text == ARTICLE_TEXT
    assert found.markdown.startswith("# River cleanup draws hundreds\n\nMore than")
    assert "\n\n## Plastic, tyres and a shopping trolley\n\n" in found.markdown
    assert (found.extractor, found.page_type, found.items) == ("iawce", "article", [])
    assert found.title == "River cleanup draws hundreds"
    assert found.author == "Dana Whitfield"
    assert found.published == "2024-03-05T09:30:00+00:00"
    assert found.language == "en-GB"
    assert found.canonical_url == ARTICLE_URL
    assert json.loads(json.dumps(found.to_dict()))["text"] == ARTICLE_TEXT


def test_paper_article_keeps_the_papers_rule():
    # The article's children are h1, p, h2, p, p: the two longest paragraphs differ by
    # less than the standard deviation, so the paper recurses into the longest, a leaf,
    # whose parent (the article) is the answer.
    found = build_extractor("iawce-paper").extract(Page(fixture("article.html"), ARTICLE_URL, "article"))
    assert found is not None and found.text == ARTICLE_TEXT


def test_invisible_boxes_change_the_result():
    html = fixture("article.html")
    root = parse_html(html)
    paragraph = root.findall(".//article/p")[2]
    boxes = [{"tag": "p", "path": root.getroottree().getpath(paragraph), "visible": False}]
    found = build_extractor("iawce").extract(Page(html, ARTICLE_URL, "article", boxes))
    assert found is not None
    assert "litter traps" not in found.text and "shopping trolley" in found.text


@pytest.mark.parametrize("name", ["iawce", "iawce-paper"])
def test_list_page_items(name):
    found = build_extractor(name).extract(Page(fixture("list.html"), "https://gazette.example/news/", LIST))
    assert found is not None
    assert [item.title for item in found.items] == [
        "River cleanup draws hundreds",
        "Council votes on the budget",
        "Old bridge closed for repairs",
        "Derby ends in a draw",
    ]
    assert found.items[1].url == "https://gazette.example/news/2024/budget"
    assert (
        found.items[1].text
        == "Councillors approved a small rise in council tax after a four hour debate on Tuesday."
    )
    items_text = "\n\n".join(f"{item.title}\n{item.text}" for item in found.items)
    assert found.text.endswith(items_text)
    assert "### [Derby ends in a draw](https://sport.example/derby)" in found.markdown


def test_iawce_other_type_reads_an_article_as_a_list_and_a_list_as_an_article():
    other = build_extractor("iawce-other-type")
    as_article = other.extract(Page(fixture("list.html"), "https://gazette.example/news/", LIST))
    as_list = build_extractor("iawce").extract(
        Page(fixture("list.html"), "https://gazette.example/news/", LIST)
    )
    assert as_article is not None and as_list is not None
    assert (as_article.extractor, as_article.page_type, as_article.items) == (
        "iawce-other-type",
        "article",
        [],
    )
    assert as_article.text != as_list.text and "Councillors approved" in as_article.text
    found = other.extract(Page(fixture("article.html"), ARTICLE_URL, "article"))
    assert found is not None and found.page_type == "list"
    guessed = other.extract(Page(fixture("article.html"), ARTICLE_URL))  # iawce guesses an article
    assert guessed is not None and guessed.page_type == "list"


def test_improved_list_drops_the_buttons_every_card_repeats():
    cards = "".join(
        f'<div class="card"><h3><a href="/p/{i}">Walnut desk model {i}</a></h3><p>Solid wood, {100 + i} cm wide.</p>'
        '<span class="cta">View Details</span><label>Compare</label></div>'
        for i in range(6)
    )
    html = f"<html><body><h1>Desks</h1><div class='grid'>{cards}</div></body></html>"
    found = build_extractor("iawce").extract(Page(html, "https://shop.example/desks", LIST))
    assert len(found.items) == 6 and "Solid wood, 103 cm wide." in found.text
    assert "View Details" not in found.text and "Compare" not in found.text
    assert all(item.text == f"Solid wood, {100 + i} cm wide." for i, item in enumerate(found.items))


def test_improved_list_drops_controls_labels_that_few_cards_repeat():
    """Two of six cards are in stock; the grid ends in a "Load more" div."""
    cards = "".join(
        f'<div class="card"><h3><a href="/p/{i}">Walnut desk model {i}</a></h3><p>Solid wood, {100 + i} cm wide.</p>'
        + ("<div class='buy'>Add to cart</div>" if i < 2 else "<p>Sold out</p>" if i == 2 else "")
        + "</div>"
        for i in range(6)
    )
    grid = f"<div class='grid'>{cards}<div class='more'>Load more</div></div>"
    found = build_extractor("iawce").extract(
        Page(f"<html><body>{grid}</body></html>", "https://shop.example/", LIST)
    )
    assert len(found.items) == 6 and found.text.endswith("Walnut desk model 5\nSolid wood, 105 cm wide.")
    assert "Add to cart" not in found.text and "Load more" not in found.text
    assert [item.text for item in found.items[1:3]] == [
        "Solid wood, 101 cm wide.",
        "Solid wood, 102 cm wide.\nSold out",
    ]


def test_improved_list_text_gives_a_block_of_several_lines_once():
    """A sponsored pitch (two lines) sits between the cards twice; a one-line note
    that the page prints twice stays."""
    ad = "<div class='promo'><b>Standing desks, 20% off</b><br>This week only at Desk Depot.</div>"
    cards = "".join(
        f'<div class="card"><h3><a href="/p/{i}">Walnut desk model {i}</a></h3><p>Solid wood, {100 + i} cm wide.</p></div>'
        + (ad if i in (1, 3) else "<p class='note'>Free delivery.</p>" if i in (0, 4) else "")
        for i in range(6)
    )
    html = f"<html><body><h1>Desks</h1><div class='grid'>{cards}</div></body></html>"
    found = build_extractor("iawce").extract(Page(html, "https://shop.example/desks", LIST))
    assert len(found.items) == 6 and found.text.count("Walnut desk model") == 6
    assert found.text.count("Standing desks, 20% off\nThis week only at Desk Depot.") == 1
    assert found.text.count("Free delivery.") == 2


def test_improved_list_text_keeps_the_lists_heading():
    found = build_extractor("iawce").extract(
        Page(fixture("list.html"), "https://gazette.example/news/", LIST)
    )
    assert found.text.startswith("Latest news\n\nRiver cleanup draws hundreds\nVolunteers filled")
    assert "Obituaries" not in found.text  # the menu is gone


def test_page_type_fallback():
    iawce = build_extractor("iawce")
    assert iawce.extract(Page(fixture("article.html"))).page_type == "article"
    links = "".join(f'<li><a href="/topic/{i}">Topic number {i}</a></li>' for i in range(30))
    directory = f"<html><body><h1>All topics</h1><ul>{links}</ul></body></html>"
    assert iawce.extract(Page(directory)).page_type == "list"
    cards = "".join(
        f'<div class="card"><a href="/s/{i}">Story {i} headline</a><p>A short summary of story {i}.</p></div>'
        for i in range(6)
    )
    root = parse_html(f"<html><body><h1>News</h1>{cards}<p>{'Long closing words ' * 5}</p></body></html>")
    denoise(root, LIST)
    assert guess_page_type(body_of(root), IawceOptions()) == "list"


@pytest.mark.parametrize("name", ["iawce", "iawce-paper"])
@pytest.mark.parametrize(
    "html",
    [
        "",
        "   ",
        "<html></html>",
        "<?xml version='1.0' encoding='utf-8'?><html><body></body></html>",
        "<script>only()</script>",
        "\x00\x01 binary junk \xff",
        "<div><p>unclosed <b>tags <i>everywhere",
        "<" * 1000,
        "<div>" * 3000 + "deep text",
    ],
)
def test_bad_html_never_raises(name, html, caplog):
    caplog.set_level(logging.INFO, logger="pipelines.extraction")
    for page_type in ("article", "list", None):
        found = build_extractor(name).extract(Page(html, "https://e.example/", page_type))
        if found is None:
            assert "found no" in caplog.text or "found nothing" in caplog.text
        else:
            assert found.text


def test_nothing_found_is_none_with_a_logged_reason(caplog):
    caplog.set_level(logging.INFO, logger="pipelines.extraction")
    assert build_extractor("iawce").extract(Page("", "https://e.example/empty")) is None
    assert "iawce found nothing on https://e.example/empty: the document has no markup" in caplog.text
    assert (
        build_extractor("iawce").extract(
            Page("<html><body><div></div></body></html>", "https://e.example/blank", "article")
        )
        is None
    )
    assert "iawce found no article content on https://e.example/blank" in caplog.text


def test_a_page_whose_body_holds_nothing_is_its_description():
    """An app shell (a Discourse topic read without its scripts) shows no text; its
    description meta is what the server said the page holds."""
    head = '<meta property="og:description" content="Social summary"><meta name="description" content=" Which  telescope first? ">'
    html = f"<html><head>{head}</head><body><section id='splash'><div></div></section></body></html>"
    for page_type in ("article", "list", None):
        found = build_extractor("iawce").extract(Page(html, "https://forum.example/t/1", page_type))
        assert found is not None and found.text == "Which telescope first?"
    og_only = html.replace('<meta name="description" content=" Which  telescope first? ">', "")
    assert (
        build_extractor("iawce").extract(Page(og_only, "https://forum.example/t/1")).text == "Social summary"
    )


def test_chinese_article():
    paragraphs = "".join(f"<p>{'城市交通正在发生变化，新的地铁线路今天开通。' * 4}</p>" for _ in range(3))
    html = f'<html lang="zh-CN"><body><nav><a href="/">首页</a></nav><main><h1>地铁新线开通</h1>{paragraphs}</main></body></html>'
    found = build_extractor("iawce").extract(Page(html, "https://zh.example/a", "article"))
    assert found.text.split("\n\n")[0] == "地铁新线开通"
    assert found.text.count("城市交通") == 12 and "首页" not in found.text
    assert found.language == "zh-CN"


def test_threads_get_the_same_results():
    # The extract pipeline runs extractors in a thread pool.
    from concurrent.futures import ThreadPoolExecutor

    pages = [
        Page(fixture(name), "https://gazette.example/", page_type)
        for name in ("article.html", "list.html")
        for page_type in ("article", "list", None)
    ] * 8
    iawce = build_extractor("iawce")
    serial = [iawce.extract(page).to_dict() for page in pages]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert [found.to_dict() for found in pool.map(iawce.extract, pages)] == serial


def test_a_story_beside_a_heavy_menu_is_no_list_without_repeated_items():
    """More than half of the page is link text (two long linked teasers beside the
    story), but the page holds no three repeated blocks: the story is not read as a list."""
    teaser = " ".join(f"Section {i} of the paper" for i in range(25))
    column = f"<a href='/a'>{teaser}</a><a href='/b'>{teaser}</a>"
    paragraphs = ARTICLE_TEXT.split("\n\n")
    story = f"<h2>{paragraphs[0]}</h2><p>{' '.join(paragraphs[1:3])}</p><p>{' '.join(paragraphs[3:])}</p>"
    root = parse_html(
        f"<html><body><div class='page'><div class='center'>{story}</div>"
        f"<div class='right'>{column}</div></div></body></html>"
    )
    denoise(root, LIST)
    assert guess_page_type(body_of(root), IawceOptions()) == "article"
