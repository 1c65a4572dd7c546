"""The list ranking: R(O, L), TL(O, L), top-n, competing repeated blocks, items."""

from pipelines.extraction import Page, build_extractor
from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.lengths import subtree_lengths
from pipelines.extraction.listing import (
    average_length,
    build_item,
    entry_block,
    group_by_depth_and_class,
    is_list,
    list_items,
    list_items_paper,
    list_region,
    list_surroundings,
    rank,
    without_item_chrome,
    without_repeated_blocks,
)
from pipelines.extraction.options import IawceOptions
from pipelines.extraction.page import LIST, ExtractedItem
from pipelines.extraction.textformat import Block
from tests.support.paths import FIXTURES

OPTIONS = IawceOptions()

EXTRACTION_FIXTURES = FIXTURES / "extraction"


def words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def parsed(html: str):
    body = body_of(parse_html(html))
    return body, subtree_lengths(body)


def test_rank_and_average_length_formulas():
    assert rank(1, 500) == 0.0  # one element is not a list
    assert rank(4, 100) == 400.0  # R = O * L
    assert average_length(4, 100) == 25.0  # TL = L / O
    assert average_length(0, 0) == 0.0
    assert OPTIONS.top_n == 15


def test_grouping_keys_by_depth_and_class():
    body, lengths = parsed(
        '<html><body><div class="a">x</div><div class="a">y z</div>'
        '<div><p class="a">deeper</p></div><div>no class</div></body></html>'
    )
    groups = group_by_depth_and_class(body, lengths)
    assert groups[(1, "a")].count == 2 and groups[(1, "a")].length == 3
    assert groups[(2, "a")].count == 1
    assert not any(name == "" for _, name in groups)  # class-less elements are not grouped


def test_cards_beat_many_short_nav_links():
    # 40 nav links of 2 words: O=40, L=80, R=3200 (ranked above the cards), TL=2.
    # 5 cards of 30 words:    O=5,  L=150, R=750, TL=30 -> the cards win on TL.
    nav = "".join(f'<a class="nav-link" href="/s{i}">{words(2)}</a>' for i in range(40))
    cards = "".join(
        f'<div class="card"><h2><a href="/story/{i}">Story {i}</a></h2><p>{words(28)}</p></div>'
        for i in range(5)
    )
    body, lengths = parsed(
        f'<html><body><div class="menu">{nav}</div><div class="feed">{cards}</div></body></html>'
    )
    groups = group_by_depth_and_class(body, lengths)
    nav_group, card_group = groups[(2, "nav-link")], groups[(2, "card")]
    assert rank(nav_group.count, nav_group.length) > rank(card_group.count, card_group.length)
    for chosen in (list_items_paper(body, lengths, OPTIONS), list_items(body, lengths, OPTIONS)):
        assert [el.get("class") for el in chosen] == ["card"] * 5


def test_the_improved_ranking_sees_class_less_repeats():
    rows = "".join(f'<li><a href="/{i}">{words(3)}</a> {words(10)}</li>' for i in range(6))
    body, lengths = parsed(f"<html><body><ul>{rows}</ul><p>{words(20)}</p></body></html>")
    assert list_items_paper(body, lengths, OPTIONS) == []
    assert [el.tag for el in list_items(body, lengths, OPTIONS)] == ["li"] * 6


def test_items_of_the_list_fixture():
    html = (EXTRACTION_FIXTURES / "list.html").read_text(encoding="utf-8")
    body, lengths = parsed(html)
    items = [build_item(el, "https://gazette.example/news/") for el in list_items(body, lengths, OPTIONS)]
    assert items[0] == ExtractedItem(
        title="River cleanup draws hundreds",
        url="https://gazette.example/news/2024/river-cleanup",
        text="Volunteers filled two skips with rubbish pulled from the Avon on Saturday morning.",
    )
    assert [item.url for item in items][-1] == "https://sport.example/derby"
    assert len(items) == 4


def test_item_title_falls_back_to_the_main_link_and_is_not_repeated():
    body, _ = parsed(
        '<html><body><div class="card"><a href="/x"><img alt=""></a><a href="/x">A much longer link title</a>'
        "<div>A much longer link title</div><p>Summary here.</p></div></body></html>"
    )
    item = build_item(body.find("div"), "https://e.example/")
    assert item == ExtractedItem("A much longer link title", "https://e.example/x", "Summary here.")


def test_a_link_that_wraps_the_cards_lines_does_not_give_them_twice():
    body, _ = parsed(
        '<html><body><div class="card"><a href="/c"><span>On Sale:</span> <div>Harvest Pot, Small</div></a>'
        "<p>SKU: F56021</p></div></body></html>"
    )
    item = build_item(body.find("div"), "https://e.example/")
    assert item == ExtractedItem("On Sale: Harvest Pot, Small", "https://e.example/c", "SKU: F56021")


def test_entry_block_is_title_then_text():
    block = entry_block(ExtractedItem("Title", "https://e.example/t", "Text one."))
    assert block.text == "Title\nText one."
    assert block.markdown == "### [Title](https://e.example/t)\n\nText one."
    assert entry_block(ExtractedItem("Only a title", "", "")).text == "Only a title"


def test_lines_most_items_repeat_are_their_chrome():
    items = [
        ExtractedItem(f"Shoe {i}", f"/s{i}", f"Leather upper {i}\nView Details\n${30 + i % 2}\nFree shipping")
        for i in range(5)
    ]
    items[0] = ExtractedItem("Shoe 0", "/s0", "Leather upper 0\nView Details\n$30")
    cleaned = without_item_chrome(items)
    assert [item.text for item in cleaned[:2]] == ["Leather upper 0\n$30", "Leather upper 1\n$31"]
    assert all("View Details" not in item.text and "Free shipping" not in item.text for item in cleaned)
    assert [item.title for item in cleaned] == [item.title for item in items]


def test_a_control_label_is_chrome_on_any_number_of_items():
    items = [
        ExtractedItem("Mug", "/m", "Stoneware\nAdd to cart"),
        ExtractedItem("Jug", "/j", "Glass\nRead more…"),
    ]
    assert [item.text for item in without_item_chrome(items)] == ["Stoneware", "Glass"]
    assert (
        without_item_chrome([ExtractedItem("Mug", "/m", "Add to cart in one click")])[0].text
        == "Add to cart in one click"
    )


def test_a_line_that_repeats_the_one_above_it_goes_from_an_item():
    items = [
        ExtractedItem("Headphones", "/h", "Sold out\n$1,999.95\n$1,999.95\n$1,999.95"),
        ExtractedItem("Earbuds", "/e", "$279.95\nIn the box: $279.95\n$279.95"),
    ]
    assert [item.text for item in without_item_chrome(items)] == [
        "Sold out\n$1,999.95",
        "$279.95\nIn the box: $279.95\n$279.95",  # the same line apart is no copy
    ]


def test_a_block_of_several_lines_that_an_earlier_block_gave_goes_from_a_list_page():
    def block(kind: str, text: str) -> Block:
        return Block(kind, text, text, 0, len(text.split()))

    blocks = [
        block("heading", "Desks"),
        block("entry", "Walnut desk\nSolid wood"),
        block("paragraph", "Compare\nRemove from comparison"),
        block("entry", "Oak desk\nSolid wood"),
        block("paragraph", "Compare\nRemove from comparison"),
        block("entry", "Walnut desk\nSolid wood"),  # the featured strip's card again
        block("heading", "Desks"),
        block("paragraph", "Sponsored"),
        block("paragraph", "Sponsored"),  # one line: two products may share it
    ]
    assert [b.text for b in without_repeated_blocks(blocks)] == [
        "Desks",
        "Walnut desk\nSolid wood",
        "Compare\nRemove from comparison",
        "Oak desk\nSolid wood",
        "Desks",
        "Sponsored",
        "Sponsored",
    ]


def test_item_chrome_spares_prices_long_lines_rare_lines_and_short_lists():
    shared = "Call today to schedule your visit"  # six words: content, not a button
    items = [
        ExtractedItem(f"Coupon {i}", "", f"{shared}\n$15 off\nSold out" if i < 2 else shared)
        for i in range(5)
    ]
    assert without_item_chrome(items) == items  # "$15 off" has a digit, "Sold out" is on 2 of 5
    pair = [ExtractedItem(f"Card {i}", "", "Compare") for i in range(2)]
    assert without_item_chrome(pair) == pair


def test_two_page_wide_wrappers_are_not_a_list():
    body, lengths = parsed(
        f'<html><body><div class="wrap">{words(30)}</div><div class="wrap">{words(40)}</div>'
        f"<ul>{''.join(f'<li><a href=/{i}>{words(4)}</a></li>' for i in range(5))}</ul></body></html>"
    )
    assert [el.tag for el in list_items(body, lengths, OPTIONS)] == ["li"] * 5


def test_list_region_narrows_toward_the_items_and_keeps_a_long_intro():
    rows = "".join(f'<li><a href="/n/{i}">通知标题第{i}号文件发布</a></li>' for i in range(5))
    chrome = '<div class="top">欢迎访问人民政府门户网站</div><div class="banner">人民政府</div>'

    def region_of(intro: str):
        body, lengths = parsed(
            f'<html><body>{chrome}<div class="main"><h1>最新信息</h1>{intro}<ul id="list">{rows}</ul></div>'
            '<div class="links">相关链接</div></body></html>'
        )
        items = list_items(body, lengths, OPTIONS)
        return body, items, lengths, list_region(body, items, lengths, OPTIONS.items_share)

    body, items, lengths, region = region_of("")
    assert region.get("id") == "list"  # the chrome and the short heading go
    body, items, lengths, region = region_of(
        "<p>" + "本栏目发布本市政府最新的通知公告政策文件和工作动态信息" * 3 + "</p>"
    )
    assert region.get("class") == "main"  # an intro longer than the items stays
    assert list_region(body, items, lengths, share=0.95) is body


def test_a_linked_pair_of_siblings_is_a_list_but_other_pairs_are_not():
    body, lengths = parsed(
        '<html><body><div class="top"><div class="wrap"><span>Welcome to the city portal</span></div></div>'
        '<div class="main"><div class="wrap"><ul><li><a href="/1">First notice of the week</a></li>'
        '<li><a href="/2">Second notice of the week</a></li></ul></div></div></body></html>'
    )
    assert [el.tag for el in list_items(body, lengths, OPTIONS)] == ["li", "li"]
    groups = group_by_depth_and_class(body, lengths, lambda el: f"{el.tag}.{el.get('class') or ''}")
    assert groups[(2, "div.wrap")].count == 2 and not is_list(groups[(2, "div.wrap")], OPTIONS.min_items)
    assert is_list(groups[(4, "li.")], OPTIONS.min_items)


INTRO = "Our rental shoes come in every size, and complimentary socks are included with every pair you rent."
GUIDE = "Shipping is free on every order over fifty dollars, and returns are free for thirty days."


def category_page() -> str:
    cards = "".join(
        f'<div class="card"><a href="/shoe/{i}"><h3>Oxford shoe model {i}</h3></a>'
        f"<p>Rental ${20 + i}, in black or brown leather, sizes 6 to 14</p></div>"
        for i in range(8)
    )
    return (
        '<html><body><div class="crumbs"><a href="/">Home</a> / Shoes and the whole formal collection today</div>'
        f'<div class="page"><div class="head"><h1>Formal Shoe Gallery</h1><p>{INTRO}</p>'
        '<div>Sort by: price</div><div><a href="/a">Black shoes</a> <a href="/b">Brown shoes</a> <a href="/c">'
        "White shoes</a> and more</div></div>"
        f'<div class="grid">{cards}</div><h2>Buying guide</h2><p>{GUIDE}</p>'
        '<div class="reviews"><p>I rented these for my wedding and they were comfortable all night long, '
        "truly great shoes.</p></div></div>"
        '<div class="footer"><p>Copyright 2026 Formal Shoe Company, every right reserved worldwide, all of them.</p>'
        "</div></body></html>"
    )


def test_a_list_region_is_given_the_title_intro_and_guide_around_it():
    body, lengths = parsed(category_page())
    items = list_items(body, lengths, OPTIONS)
    region = list_region(body, items, lengths, OPTIONS.items_share)
    assert region.get("class") == "grid"
    before, after = list_surroundings(body, region, "", OPTIONS)
    # not the breadcrumb before the title, the short line, the links, the review or the footer
    assert [block.text for block in before] == ["Formal Shoe Gallery", INTRO]
    assert [block.text for block in after] == ["Buying guide", GUIDE]
    assert list_surroundings(body, region.getparent(), "", OPTIONS) == ([], [])  # it holds the title


def test_iawce_gives_a_category_page_its_title_intro_and_guide_around_the_items():
    found = build_extractor("iawce").extract(Page(category_page(), "https://shop.example/shoes", LIST))
    assert found is not None
    text = found.text
    assert text.index("Formal Shoe Gallery") < text.index(INTRO) < text.index("Oxford shoe model 0")
    assert text.index("Oxford shoe model 7") < text.index(GUIDE)
    assert not any(noise in text for noise in ("Home", "Sort by", "wedding", "Copyright"))
