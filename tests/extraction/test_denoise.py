"""Denoising tables per page type, invisible boxes, noscript fallbacks, forms, duplicate
copies, the guard."""

import json

import pytest
from lxml import etree
from lxml import html as lxml_html
from scrapy.settings import Settings

from pipelines.extraction import ExtractorUnavailable, Page, build_extractor
from pipelines.extraction.denoise import NOISE_TABLES, denoise
from pipelines.extraction.denoise.catalogue import CATALOGUE_PATH, catalogue
from pipelines.extraction.denoise.hidden import invisible_elements
from pipelines.extraction.denoise.labels import control_labels
from pipelines.extraction.denoise.options import DenoiseOptions
from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.page import ARTICLE, LIST
from tests.support.project_settings import pagesight_settings

STORY = " ".join(["The council met on Tuesday and agreed to repair the bridge."] * 8)


def page(body: str):
    return parse_html(
        f"<html><head><title>t</title><script>var a=1;</script></head><body>{body}</body></html>"
    )


def text_of(root) -> str:
    return " ".join(" ".join(body_of(root).itertext()).split())


def iawce_text(html: str, url: str, page_type: str = ARTICLE) -> str:
    """The text iawce extracts from ``html``, which must hold some."""
    found = build_extractor("iawce").extract(Page(html, url, page_type))
    assert found is not None
    return found.text


def test_tags_that_never_hold_content_go_and_text_after_them_stays():
    root = page(
        f"<main><p>{STORY}</p><script>track()</script>after script<style>p{{}}</style><nav>Home About</nav>"
        "<aside>Most read</aside><iframe src='/ad'></iframe><noscript>enable js</noscript><svg><text>logo</text></svg>"
        "<template><p>tpl</p></template><button>Buy</button><select><option>EN</option></select></main>"
    )
    removed = denoise(root, ARTICLE)
    assert root.find("head") is None
    assert text_of(root) == f"{STORY} after script"
    assert removed["tag"] >= 10


def test_header_and_footer_go_outside_the_content_but_stay_inside_an_article():
    root = page(
        f"<header>Site name</header><article><header><h1>Headline</h1></header><p>{STORY}</p>"
        f"<footer>Filed under news</footer></article><footer>Copyright</footer><div role='contentinfo'>Contact</div>"
    )
    denoise(root, ARTICLE)
    text = text_of(root)
    assert "Site name" not in text and "Copyright" not in text and "Contact" not in text
    assert text.startswith("Headline") and text.endswith("Filed under news")


@pytest.mark.parametrize(
    "noise",
    [
        '<div class="cookie-banner">We use cookies</div>',
        '<div id="gdpr-consent">Accept all</div>',
        '<div class="ad">Buy now</div>',
        '<ins class="adsbygoogle">Sponsored</ins>',
        '<div class="social-share">Share this</div>',
        '<ul class="share_buttons">Tweet</ul>',
        '<span class="sr-only">Skip to content</span>',
        '<div role="navigation">Menu</div>',
        '<div class="card"><div role="menu"><div role="menuitem">Why you\'re seeing this ad</div></div></div>',
        '<div class="has-sidebar no-image__share-bar">Share this</div>',  # a BEM element of a state block
        '<section class="blog-carousel default-carousel"><a href="/p">Neck pain?</a> Mar 3</section>',
        '<section class="blog-listing-section"><h2>Latest insights</h2><a href="/p">HR</a></section>',
        '<p class="affiliate-disclaimer">We may earn a commission from links on this page.</p>',
        '<figure><figcaption><span class="photo-credit">Photo: J. Doe / Agency</span></figcaption></figure>',
    ],
)
def test_noise_by_class_id_and_role(noise):
    root = page(f"<main><p>{STORY}</p>{noise}</main>")
    denoise(root, ARTICLE)
    assert text_of(root) == STORY


@pytest.mark.parametrize(
    "kept",
    [
        '<div class="header-shadow">Kept one</div>',
        '<div class="download">Kept one</div>',
        '<div class="loading-spinner">Kept one</div>',
        '<div class="badge">Kept one</div>',
        '<div class="grid-items hide-read-more-ad">Kept one</div>',  # names what it hides
        '<div id="no-ads" class="layout has-sidebar with-share-bar">Kept one</div>',
        '<div class="c-layout-sidebar-left">Kept one</div>',  # a layout with a sidebar on the left
    ],
)
def test_class_words_match_whole_words_only(kept):
    root = page(f"<main><p>{STORY}</p>{kept}</main>")
    denoise(root, ARTICLE)
    assert text_of(root).endswith("Kept one")


@pytest.mark.parametrize(
    "filed",
    [
        "post-7 post type-post hentry category-game-reviews tag-review",
        "hentry post publish author-kgs category-conferences",
        "entry-author-jane_doe entry-type-post entry",
        "entry-category-advertising entry-category-book_reviews entry-author-jane_doe entry",
    ],
)
def test_a_post_filed_under_taxonomy_terms_is_not_named_noise_by_them(filed):
    """A blog engine's post container names its category, tags and author: those terms
    (reviews, advertising, author) are data, not the element's role."""
    archive = (
        "<div>"
        + "".join(f"<p>{month} 2012: twelve posts about the river.</p>" for month in range(40))
        + "</div>"
    )
    root = page(
        f'<div class="{filed}"><h2>A review</h2><p>{STORY}</p></div><div class="author-bio">By Jane</div>{archive}'
    )
    denoise(root, ARTICLE)
    assert text_of(root).startswith(f"A review {STORY} 0 2012")  # the unfiled author box still goes


def test_iawce_keeps_a_list_page_s_grids_whose_class_names_the_ads_they_hide():
    sections = "".join(
        f"<section><h2>Section {s}</h2><div class='summary-grid hide-read-more-ad'>"
        + "".join(
            f"<div class='summary-item'><a href='/story/{s}-{n}'><h3>Story {s}-{n} about the river</h3></a>"
            f"<p>What happened to the river in part {n} of section {s}, and why it matters.</p></div>"
            for n in range(4)
        )
        + "</div></section>"
        for s in range(5)
    )
    html = f"<html><head><title>Science</title></head><body><nav>Home Science</nav><main>{sections}</main></body></html>"
    text = iawce_text(html, "https://news.example/science", LIST)
    assert "Story 0-0 about" in text and "part 3 of section 4" in text


def test_protected_elements_keep_their_content_whatever_their_class():
    root = page(
        f'<main class="has-ads"><article class="share-enabled"><h1>Title</h1><p>{STORY}</p></article></main>'
    )
    denoise(root, ARTICLE)
    assert text_of(root) == f"Title {STORY}"
    root = page(f'<div class="modal-open"><h1>Title</h1><p>{STORY}</p></div>')
    denoise(root, ARTICLE)
    assert text_of(root) == f"Title {STORY}"  # it holds the page's <h1>


@pytest.mark.parametrize("page_type", [ARTICLE, LIST])
def test_a_modal_dialog_goes_even_with_its_own_h1(page_type):
    terms = "<h2>Terms of service</h2><h1>Table of Contents</h1><p>You agree to these terms.</p>"
    body = f"<main><h1>Wool runner</h1><p>{STORY}</p></main>"
    root = page(f"{body}<div role='dialog' aria-modal='true' class='overlay'>{terms}</div>")
    denoise(root, page_type)
    assert text_of(root) == f"Wool runner {STORY}"
    root = page(f"{body}<div role='dialog' class='overlay'>{terms}</div>")  # not modal: kept
    denoise(root, page_type)
    assert "Table of Contents" in text_of(root)


def test_iawce_extracts_a_product_not_the_terms_its_modal_overlay_holds():
    terms = " ".join(["You agree that these terms govern every purchase you make on the platform."] * 12)
    html = (
        "<html><head><title>Speckled mug</title></head><body><main><h1>Speckled mug</h1>"
        f"<div class='description'><p>{DESCRIPTION}</p></div></main>"
        "<footer><a href='#terms'>Terms</a></footer><div id='modal-terms' role='dialog' aria-modal='true'>"
        f"<h2>Terms of service</h2><h1>Table of Contents</h1><p>{terms}</p></div></body></html>"
    )
    text = iawce_text(html, "https://shop.example/mug")
    assert "speckled glaze" in text and "these terms" not in text


def test_a_related_block_of_article_cards_goes_but_one_article_is_protected():
    cards = "".join(
        f"<article class='entry loop-entry'><h2><a href='/p{i}'>Other post {i}</a></h2>"
        f"<p>Excerpt of other post {i}.</p></article>"
        for i in range(3)
    )
    story = f"<article><h1>Title</h1><p>{STORY}</p></article>"
    root = page(f"<div>{story}</div><div class='entry-related'>{cards}</div>")
    denoise(root, ARTICLE)
    assert text_of(root) == f"Title {STORY}"
    # a block so named around the story's one <article> (a theme's "has-related" layout) stays
    root = page(f"<div class='related-layout'><article><h2>Title</h2><p>{STORY}</p></article></div>")
    denoise(root, ARTICLE)
    assert text_of(root) == f"Title {STORY}"
    # several articles under another noise word (a "promoted" grid of topics) are protected
    topics = "".join(f"<article><h2>Topic {i}</h2><p>What topic {i} covers.</p></article>" for i in range(3))
    root = page(f"<div>{story}</div><div class='promoted-blocks'>{topics}</div>")
    denoise(root, ARTICLE)
    assert "Topic 1" in text_of(root)


def test_iawce_leaves_out_a_related_carousel_of_article_cards_under_the_story():
    cards = "".join(
        f"<article class='entry loop-entry'><a href='/blog/p{i}'>Other post {i}</a>"
        f"<p>An excerpt of another post that the blog wrote last year.</p></article>"
        for i in range(6)
    )
    html = (
        "<html><head><title>Event planners</title></head><body><main class='wrap'>"
        f"<div class='content-area'><h1>Event planners</h1><p>{STORY}</p></div>"
        f"<div class='entry-related'><h2>You might also like</h2>{cards}</div></main></body></html>"
    )
    text = iawce_text(html, "https://blog.example/planners")
    assert "repair the bridge" in text and "another post" not in text


def test_a_script_state_parked_in_an_element_goes_but_json_in_code_stays():
    products = [{"id": i, "title": f"Barbell {i}"} for i in range(8)]
    state = json.dumps({"layoutMobile": 2, "buttonText": "Add to cart", "products": products})
    example = json.dumps({"bindings": [{"type": "httpTrigger", "name": f"req{i}"} for i in range(8)]})
    root = page(
        f"<main><p>{STORY}</p><span hidden class='Tool__DynamicValue'>{state}</span>"
        f"<pre><code>{example}</code></pre><p>{{not json at all, but long enough: {STORY}}}</p>"
        "<p>[1, 2, 3]</p></main>"
    )
    removed = denoise(root, ARTICLE)
    text = text_of(root)
    assert removed["data"] == 1 and "Barbell" not in text
    assert "httpTrigger" in text and "not json at all" in text and "[1, 2, 3]" in text


def test_uuids_between_the_letters_of_a_scrambled_label_go_outside_code():
    uuids = ["303097ac-d3e5-41e1-baf5-303640756ebf", "2BF8403C-6590-4D73-8B16-95F6C3ECDEF8"]
    label = "".join(
        f"<span class='n'>{c}</span><span class='z'>{u}</span>" for c, u in zip("Sp", uuids, strict=True)
    )
    root = page(f"<main><p>{STORY}</p><div>{label}</div><p><code>{uuids[0]}</code> is the key</p></main>")
    removed = denoise(root, ARTICLE)
    assert removed["data"] == 2
    assert text_of(root) == f"{STORY} S p {uuids[0]} is the key"


def test_iawce_leaves_out_a_json_blob_inside_the_story():
    state = json.dumps([{"handle": f"barbell-{i}", "price": i + 0.99} for i in range(40)])
    html = (
        "<html><head><title>Home gym</title></head><body><article><h1>Home gym</h1>"
        f"<p>{STORY}</p><div><span hidden>{state}</span></div><p>{STORY}</p></article></body></html>"
    )
    text = iawce_text(html, "https://shop.example/blog/gym")
    assert "repair the bridge" in text and "barbell-3" not in text


def test_tables_differ_per_page_type():
    body = f'<div><p>{STORY}</p></div><div class="related">Related story one</div><div class="nav">Home About Contact</div>'
    article, listing = page(body), page(body)
    denoise(article, ARTICLE)
    denoise(listing, LIST)
    assert "Related story one" not in text_of(article) and "Home About" in text_of(article)
    assert "Related story one" in text_of(listing) and "Home About" not in text_of(listing)
    with pytest.raises(ValueError, match="no noise table for page type 'gallery'"):
        denoise(page(body), "gallery")
    assert set(NOISE_TABLES) == {ARTICLE, LIST}


def test_invisible_boxes_are_removed_by_path_and_tag():
    root = page(f'<main><p>{STORY}</p><div id="popup">Subscribe now</div><div>Visible tail</div></main>')
    tree = root.getroottree()
    popup = root.get_element_by_id("popup")
    boxes = [
        {"tag": "div", "path": tree.getpath(popup), "visible": False},
        {"tag": "p", "path": "/html/body/main/p", "visible": True},
    ]
    removed = denoise(root, ARTICLE, boxes)
    assert removed["invisible"] == 1
    assert text_of(root) == f"{STORY} Visible tail"


def test_invisible_box_with_a_visible_descendant_stays():
    # A zero-height float container is "invisible" but shows its children.
    root = page(f'<main><div class="floats"><p>{STORY}</p></div></main>')
    boxes = [
        {"tag": "div", "path": "/html/body/main/div", "visible": False},
        {"tag": "p", "path": "/html/body/main/div/p", "visible": True},
    ]
    assert invisible_elements(root, boxes) == []


def test_boxes_that_do_not_match_the_tree_are_ignored():
    root = page(f"<main><p>{STORY}</p><div>Second</div></main>")
    boxes = [
        {"tag": "section", "path": "/html/body/main/div", "visible": False},  # tag differs
        {"tag": "div", "path": "/html/body/main/div[7]", "visible": False},  # no such element
        {"tag": "div", "path": "not an xpath ((", "visible": False},
        {"tag": "div", "visible": False},
    ]
    assert invisible_elements(root, boxes) == []


def test_a_page_the_render_did_not_reveal_keeps_its_hidden_content():
    # A fade-in or app shell whose script never ran: the browser reports the story
    # invisible; a reader would see it once revealed, so visibility is ignored.
    root = page(f'<main><div class="reveal"><p>{STORY}</p></div><div id="menu">Home News</div></main>')
    boxes = [
        {"tag": "div", "path": "/html/body/main/div[1]", "visible": False},
        {"tag": "p", "path": "/html/body/main/div[1]/p", "visible": False},
        {"tag": "div", "path": "/html/body/main/div[2]", "visible": False},
    ]
    assert len(invisible_elements(root, boxes)) == 3
    removed = denoise(root, ARTICLE, boxes)
    assert "invisible" not in removed
    assert STORY in text_of(root)


@pytest.mark.parametrize(
    "opener",
    [
        "<details><summary>Specifications</summary>{}</details>",
        '<div class="product-tabs"><div class="tab-pane" id="specs">{}</div></div>',
        '<div role="tabpanel">{}</div>',
        '<div class="AccordionRow__AccordionContent-sc-1">{}</div>',
        '<table><tr class="expanded_specs"><td>{}</td></tr></table>',
        '<section id="faq"><div class="answer">{}</div></section>',
    ],
)
def test_hidden_content_a_reader_opens_with_a_click_stays(opener):
    # Closed tabs, accordions and <details> hold content the reader reveals: not noise.
    root = page(f"<main><p>{STORY}</p>" + opener.format("<p>Weight 2.4 kg, width 60 cm.</p>") + "</main>")
    hidden = root.xpath("//p")[1]
    menu = etree.SubElement(root.find(".//main"), "div", {"class": "dropdown"})
    menu.text = "Home News Sport"
    tree = root.getroottree()
    boxes = [
        {"tag": "p", "path": tree.getpath(hidden), "visible": False},
        {"tag": "div", "path": tree.getpath(menu), "visible": False},
    ]
    assert invisible_elements(root, boxes) == [menu]
    denoise(root, ARTICLE, boxes)
    assert "Weight 2.4 kg" in text_of(root) and "Home News" not in text_of(root)


def test_a_noscript_fallback_is_not_removed_as_invisible():
    # Where scripts run a <noscript> is never shown; whether it is the page is step 2's call.
    root = page(f"<div id='app'>Loading</div><noscript><div class='post'><p>{STORY}</p></div></noscript>")
    boxes = [{"tag": "noscript", "path": "/html/body/noscript", "visible": False}]
    assert invisible_elements(root, boxes) == []
    denoise(root, ARTICLE, boxes)
    assert STORY in text_of(root)


def test_markup_hints_of_hiddenness_are_not_trusted():
    root = page(f'<main><div style="display:none"><p>{STORY}</p></div><div hidden>Also shown</div></main>')
    denoise(root, ARTICLE)
    assert text_of(root) == f"{STORY} Also shown"


def test_noscript_is_unwrapped_when_it_holds_the_page():
    root = page(f"<div id='app'>Loading</div><noscript><div class='post'><p>{STORY}</p></div></noscript>")
    denoise(root, ARTICLE)
    assert STORY in text_of(root)
    root = page(f"<main><p>{STORY}</p></main><noscript>Please enable JavaScript</noscript>")
    denoise(root, ARTICLE)
    assert text_of(root) == STORY


def test_short_forms_go_and_forms_wrapping_content_stay():
    root = page(
        f"<main><p>{STORY}</p><form><label>Email</label><input name='e'><button>Sign up</button></form>"
        f"<form action='/thread'><div class='message'>{STORY} {STORY}</div></form></main>"
    )
    denoise(root, ARTICLE)
    assert "Email" not in text_of(root)
    assert text_of(root).count(STORY) == 3


SEQUEL = " ".join(["Work on the bridge starts in May and should end before the winter."] * 8)
SIGN_UP_BOX = (
    "<div class='box'><div class='inner'><h3>Be the first to know!</h3><p>The day's biggest stories, in your inbox.</p>"
    "<form><input name='email'><button>Sign me up</button></form>"
    "<p>By signing up, you agree to our Terms of Use and Privacy Policy.</p></div></div>"
)


def test_a_sign_up_form_goes_with_its_frame_on_articles():
    root = page(f"<main><p>{STORY}</p>{SIGN_UP_BOX}<p>{SEQUEL}</p></main>")
    denoise(root, ARTICLE)
    assert text_of(root) == f"{STORY} {SEQUEL}"


def test_a_form_frame_that_invites_no_sign_up_or_is_long_keeps_its_text():
    buy_box = "<div class='buy'><h3>Buy the game</h3><p>59.99 EUR</p><form><button>Add to cart</button></form></div>"
    long_frame = (
        f"<div class='more'><p>{SEQUEL}</p><p>Subscribe for more.</p><form><input name='e'></form></div>"
    )
    root = page(f"<main><p>{STORY}</p>{buy_box}{long_frame}</main>")
    denoise(root, ARTICLE)
    assert "Buy the game 59.99 EUR" in text_of(root)
    assert SEQUEL in text_of(root) and "Subscribe for more." in text_of(root)


def test_list_pages_keep_a_sign_up_forms_frame():
    root = page(f"<main><ul><li><a href='/a'>First item</a></li></ul>{SIGN_UP_BOX}</main>")
    denoise(root, LIST)
    assert "Be the first to know!" in text_of(root)


def test_iawce_drops_a_newsletter_box_inside_a_story():
    html = f"<html><body><article><h1>Bridge</h1><p>{STORY}</p>{SIGN_UP_BOX}<p>{SEQUEL}</p></article></body></html>"
    text = iawce_text(html, "https://news.example/bridge")
    assert STORY in text and SEQUEL in text and "first to know" not in text and "By signing up" not in text


def test_chrome_holding_most_of_the_page_is_misnested_markup_and_stays():
    root = page(
        f"<header><a href='/'>Logo</a><div class='content'><p>{STORY}</p></div></header><footer>Small print</footer>"
    )
    denoise(root, ARTICLE)
    assert STORY in text_of(root)
    assert "Small print" not in text_of(root)


def test_empty_elements_go_but_line_breaks_stay():
    root = page(
        f"<main><div class='spacer'></div><div><span> </span></div><p>{STORY}<br>second line</p></main>"
    )
    removed = denoise(root, ARTICLE)
    assert removed["empty"] == 2
    assert root.find(".//br") is not None
    assert lxml_html.tostring(body_of(root), encoding="unicode").count("<div") == 0


def test_of_two_copies_of_a_block_the_one_markup_hides_goes():
    for hidden_first in (True, False):
        shown = f"<main><div class='rich-text'><h2>Prices</h2><p>{STORY}</p></div></main>"
        hidden = f"<div class='layout w-condition-invisible'><div class='rich-text'><h2>Prices</h2><p>{STORY}</p></div></div>"
        root = page(hidden + shown if hidden_first else shown + hidden)
        removed = denoise(root, ARTICLE)
        assert removed["duplicate"] == 1
        assert text_of(root) == f"Prices {STORY}"
        assert body_of(root).find(".//main/div[@class='rich-text']") is not None


@pytest.mark.parametrize(
    "hiding", ['class="d-none d-lg-block"', 'class="hidden-xs"', "hidden", 'style="display: none"']
)
def test_a_copy_is_hidden_by_responsive_classes_attributes_and_styles(hiding):
    root = page(f"<div class='mobile'><p>{STORY}</p></div><div {hiding}><p>{STORY}</p></div>")
    denoise(root, ARTICLE)
    assert text_of(root) == STORY
    assert body_of(root).find(".//div[@class='mobile']/p") is not None


def test_of_two_unmarked_copies_the_one_in_the_article_stays():
    summary = "The council agreed on Tuesday to repair the old stone bridge over the river and to keep one lane open for buses."
    root = page(
        f"<main><div class='page-title'><p>{summary}</p></div><article><p>{summary}</p><p>{STORY}</p></article></main>"
    )
    denoise(root, ARTICLE)
    assert text_of(root) == f"{summary} {STORY}"
    assert body_of(root).find(".//div[@class='page-title']") is None


def test_repeated_widgets_and_short_copies_stay():
    widget = "Rate this book: one star, two stars, three stars, four stars or five stars, then write a review of it here."
    rows = "".join(f"<tr><td>Book {n}</td><td>{widget}</td></tr>" for n in range(3))
    short = "<p>No credit card required. Cancel at any time, no questions asked.</p>" * 2
    root = page(f"<main><table>{rows}</table>{short}</main>")
    removed = denoise(root, ARTICLE)
    assert removed["duplicate"] == 0
    text = text_of(root)
    assert text.count(widget) == 3 and text.count("No credit card required") == 2


LOGOS = "".join(f"<span class='logo'>{name}</span>" for name in ("Acme", "Globex", "Initech", "Umbrella"))


@pytest.mark.parametrize(
    ("twins", "kept"),
    [
        # eBay: each title and price printed again for screen readers, right after itself
        (
            "<div class='price'><span class='ux-textspans'>EUR 355.58</span><span class='clipped'>EUR 355.58</span></div>",
            "EUR 355.58",
        ),
        # a logo strip doubled for its scrolling loop: the copy that markup hides goes
        (
            f"<div class='marquee'><div class='track'>{LOGOS}</div><div class='track' aria-hidden='true'>{LOGOS}</div></div>",
            "Acme Globex Initech Umbrella",
        ),
    ],
)
def test_one_of_two_twins_goes_from_an_article(twins, kept):
    root = page(f"<main><h1>Bridge</h1><p>{STORY}</p>{twins}</main>")
    removed = denoise(root, ARTICLE)
    assert removed["twin"] == 1
    assert text_of(root) == f"Bridge {STORY} {kept}"
    assert body_of(root).find(".//*[@aria-hidden]") is None


@pytest.mark.parametrize(
    "kept",
    [
        "<div><span>In stock</span><span>In stock</span><span>In stock</span></div>",  # a list's repeated items
        "<table><tr><td>Yes</td><td>Yes</td></tr></table>",  # columns of a row
        "<ul><li>Bolts</li><li>Bolts</li></ul>",  # items of a list
        "<div><span>Bolts</span>, <span>Bolts</span></div>",  # text between them
        "<div><span>Bolts</span><b>Bolts</b></div>",  # two tags
    ],
)
def test_repeated_items_columns_and_different_siblings_are_no_twins(kept):
    root = page(f"<main><h1>Bridge</h1><p>{STORY}</p>{kept}</main>")
    before = text_of(root)
    assert "twin" not in denoise(root, ARTICLE)
    assert text_of(root) == before


def test_twins_stay_on_list_pages():
    root = page(
        "<ul>"
        + "".join(
            f"<li><a href='/{n}'>Bolts {n}</a><span>Sold out</span><span>Sold out</span></li>"
            for n in range(4)
        )
        + "</ul>"
    )
    denoise(root, LIST)
    assert text_of(root).count("Sold out") == 8


POST = "I moved my automations from Node-RED to Home Assistant last year and the scripts became much easier to keep."
REPLY = "Agreed, and the YAML files are easier to review than the flows ever were."


def quoting_reply(quoted: str) -> str:
    """A XenForo-style reply: the quotation (attribution, quoted text, expand link) above its own words."""
    return (
        "<div class='post'><blockquote class='bbCodeBlock bbCodeBlock--quote'><div>ana said:</div>"
        f"<div class='bbCodeBlock-content'>{quoted}</div><a>Click to expand...</a></blockquote>"
        f"<p>{REPLY}</p></div>"
    )


def test_a_reply_s_quotation_of_a_post_on_the_page_goes():
    root = page(
        f"<main><div class='post'><p>{POST}</p></div>{quoting_reply(POST)}{quoting_reply(POST[:60])}</main>"
    )
    removed = denoise(root, ARTICLE)
    assert removed["quoted"] == 2 and removed["duplicate"] == 0
    text = text_of(root)
    assert text.count(POST[:60]) == 1 and text.count(REPLY) == 2 and "said:" not in text


@pytest.mark.parametrize(
    "body",
    [
        # a post of an earlier page of the thread, quoted by two replies: neither copy goes
        quoting_reply(POST) * 2,
        # a reply whose quotation is mostly its own text
        f"<div class='post'><p>{POST}</p></div>"
        + quoting_reply(
            f"{POST[:30]} and then I wrote a long paragraph of my own that nobody else wrote on the page"
        ),
        # an article's epigraph
        f"<article><blockquote>{POST}</blockquote><p>{STORY}</p></article>",
    ],
)
def test_quotations_of_text_the_page_holds_nowhere_else_stay(body):
    root = page(f"<main>{body}</main>")
    removed = denoise(root, ARTICLE)
    assert removed["quoted"] == 0 and body_of(root).find(".//blockquote") is not None


def reply(subject: str, text: str) -> str:
    """A phpBB-style post: its subject line as a heading, then its text."""
    return f"<div class='post'><h3><a href='#p1'>{subject}</a></h3><div class='content'><p>{text}</p></div></div>"


@pytest.mark.parametrize("prefix", ["Re: ", "RE:", "Aw: ", "Ответ: ", "Réf : "])
def test_a_thread_s_repeated_reply_subjects_go(prefix):
    second = "Same here since the update."
    posts = "".join(
        reply(f"{prefix}Resume hang after update", text) for text in (REPLY, second)
    )  # two replies alike would be a double post: twins (step 6)
    root = page(
        f"<main><h1>Resume hang after update</h1>{reply('Resume hang after update', POST)}{posts}</main>"
    )
    removed = denoise(root, ARTICLE)
    assert removed["reply subject"] == 2
    text = text_of(root)
    assert (
        prefix.strip() not in text
        and REPLY in text
        and second in text
        and text.count("Resume hang after update") == 2
    )


@pytest.mark.parametrize(
    "body",
    [
        # one reply: its subject stays
        reply("Re: Resume hang after update", REPLY),
        # subjects that differ
        reply("Re: Resume hang after update", REPLY) + reply("Re: Suspend works", REPLY),
        # a line that only starts like a reply, and a long one
        reply("Reminder: patch Tuesday", REPLY) * 2,
        reply("Re: " + " ".join(["word"] * 25), REPLY) * 2,
    ],
)
def test_subjects_that_do_not_repeat_a_reply_s_stay(body):
    root = page(f"<main>{body}</main>")
    removed = denoise(root, ARTICLE)
    assert removed["reply subject"] == 0


def test_a_list_page_keeps_reply_subjects():
    items = reply("Re: Resume hang after update", REPLY) * 3
    root = page(f"<main>{items}</main>")
    assert denoise(root, LIST)["reply subject"] == 0 and text_of(root).count("Re: Resume") == 3


def test_iawce_keeps_each_post_of_a_thread_once_without_the_replies_quotations():
    posts = f"<div class='post'><p>{POST} {STORY}</p></div>" + quoting_reply(POST) * 3
    html = f"<html><head><title>Automations</title></head><body><h1>Node-RED or Home Assistant?</h1>{posts}</body></html>"
    text = iawce_text(html, "https://forum.example/t/automations")
    assert text.count(POST) == 1 and text.count(REPLY) == 3 and "Click to expand" not in text


def test_iawce_leaves_out_the_subject_line_over_each_reply():
    posts = reply("Resume hang after update", f"{POST} {STORY}") + "".join(
        reply("Re: Resume hang after update", f"{REPLY} {STORY} Reply {n}.") for n in range(3)
    )
    html = f"<html><head><title>Resume hang</title></head><body><h1>Resume hang after update</h1>{posts}</body></html>"
    text = iawce_text(html, "https://forum.example/viewtopic.php?t=1")
    assert "Re: Resume" not in text and text.count(REPLY) == 3 and POST in text


def test_iawce_keeps_a_responsive_page_s_body_once():
    body = "".join(f"<p>{STORY} Paragraph {n}.</p>" for n in range(4))
    html = (
        "<html><head><title>Yoga prices</title></head><body><header><a href='/'>Studio</a></header>"
        f"<div class='layout-normal'><h1>Yoga prices</h1><div class='rte'>{body}</div></div>"
        f"<div class='layout-gated w-condition-invisible'><div class='rte'>{body}</div></div>"
        "<footer>Contact us</footer></body></html>"
    )
    text = iawce_text(html, "https://studio.example/yoga-prices")
    assert text.count("Paragraph 3.") == 1 and "Paragraph 0." in text


DESCRIPTION = " ".join(["Hand-thrown stoneware mug with a speckled glaze, twelve ounces."] * 8)
PRODUCT_LD = '<script type="application/ld+json">{"@type": "Product", "name": "Speckled mug"}</script>'


def product_page(head: str) -> str:
    reviews = "".join(
        f"<div class='review-card'><p>Verified buyer {n}: lovely mug, arrived quickly, would buy again.</p></div>"
        for n in range(6)
    )
    return (
        f"<html><head><title>Speckled mug</title>{head}</head><body>"
        "<div class='product'><div class='buy-box'>$32.00 In stock Add to cart</div>"
        f"<h1>Speckled mug</h1><div class='description'><p>{DESCRIPTION}</p></div>"
        f"<section class='review-list'><h2>Customer reviews</h2>{reviews}</section>"
        "<div class='product-carousel'><p>Customers also bought: Teapot, Saucer, Bowl, Spoon rest</p></div>"
        "</div></body></html>"
    )


def test_a_product_page_loses_its_reviews_carousels_and_buy_box():
    root = parse_html(product_page(PRODUCT_LD))
    removed = denoise(root, ARTICLE)
    assert text_of(root) == f"Speckled mug {DESCRIPTION}"
    assert removed["product"] == 3


def test_a_page_that_declares_no_product_keeps_what_a_review_site_calls_review():
    for head in ("", '<meta property="og:type" content="article">' + PRODUCT_LD):
        root = parse_html(product_page(head))
        removed = denoise(root, ARTICLE)
        assert "Verified buyer 5" in text_of(root) and "Customers also bought" in text_of(root)
        assert "product" not in removed
    listing = parse_html(product_page(PRODUCT_LD))
    denoise(listing, LIST)  # a list page's items are its content
    assert "Customers also bought" in text_of(listing)


def test_iawce_extracts_a_product_s_description_without_its_reviews():
    text = iawce_text(product_page(PRODUCT_LD), "https://shop.example/mug")
    assert "Hand-thrown stoneware mug" in text
    assert "Verified buyer" not in text and "Add to cart" not in text


@pytest.mark.parametrize("page_type", [ARTICLE, LIST])
def test_popovers_go_on_every_page_type(page_type):
    root = page(
        f"<main><p>{STORY}</p><div popover id='install'><p>Tap Share, then Add to Home Screen.</p></div>"
        "<div class='popular'>Kept one</div></main>"
    )
    denoise(root, page_type)
    assert text_of(root) == f"{STORY} Kept one"


POSTS = (
    "I rebuilt the kernel with the patch and the resume hang is gone on my laptop.",
    "Same here: the patched kernel fixed suspend on a desktop with an older board.",
    "Thanks, both of you. I will mark the thread solved once the update ships.",
)


def forum_thread(profile: str) -> str:
    posts = "".join(
        f"<article class='message message--post'><div class='message-cell message-cell--user'>"
        f"<h4 class='message-name'><a class='username'>poster{n}</a></h4>{profile}</div>"
        f"<div class='message-cell message-cell--main'><div class='bbWrapper'>{text}</div></div></article>"
        for n, text in enumerate(POSTS)
    )
    return f"<html><head><title>Resume hang</title></head><body><h1>Resume hang after update</h1>{posts}</body></html>"


XENFORO_PROFILE = (
    "<h5 class='userTitle message-userTitle'>Full Member</h5>"
    "<div class='userBanner message-userBanner'>7+ Year Member</div>"
    "<div class='message-userExtras'><dl class='pairs'><dt>Joined</dt><dd>Jun 29, 2016</dd>"
    "<dt>Messages</dt><dd>11</dd><dt>Reaction score</dt><dd>10</dd></dl></div>"
)
PHPBB_PROFILE = "<dl class='postprofile'><dd class='profile-posts'><strong>Posts:</strong> 524</dd></dl>"


@pytest.mark.parametrize("profile", [XENFORO_PROFILE, PHPBB_PROFILE], ids=["xenforo", "phpbb"])
def test_a_forum_thread_keeps_its_posters_names_and_posts_but_not_their_profiles(profile):
    root = parse_html(forum_thread(profile))
    denoise(root, ARTICLE)
    text = text_of(root)
    assert all(f"poster{n}" in text and post in text for n, post in enumerate(POSTS))
    assert not any(word in text for word in ("Member", "Joined", "Messages", "Posts:", "524"))


def test_a_forum_thread_loses_its_statistics_overview():
    overview = (
        "<div class='cTopicOverview cTopicOverview--main'><ul><li class='cTopicOverview__item'>"
        "<span>Replies</span> <span>154</span></li><li class='cTopicOverview__item'><span>Views</span> 26.2k</li>"
        "</ul><div class='cTopicOverview__item cTopicOverview__item--topPosters'>"
        "<h4 class='cTopicOverview__title'>Top Posters In This Topic</h4><a>wonderings</a> 56 posts</div></div>"
    )
    root = parse_html(forum_thread("").replace("</h1>", f"</h1>{overview}"))
    denoise(root, ARTICLE)
    text = text_of(root)
    assert all(post in text for post in POSTS)
    assert not any(word in text for word in ("Replies", "Views", "Top Posters", "wonderings"))


CHROME = (
    "Joined 2019",
    "Posts: 1,204",
    "Offline",
    "3 years ago",
    "Reply",
    "Quote",
    "Original poster",
    "518 helpful votes",
    "Report inappropriate content",
)


def utility_class_thread() -> str:
    """A thread whose theme names nothing (utility classes): each post's poster, the
    poster's stats, the post's number, age and votes, its text and its buttons."""
    posts = "".join(
        f"<div class='p-4 flex'><div class='w-32'><a href='/u/{n}'>poster{n}</a><div>Joined 2019</div>"
        f"<div><b>Posts:</b> 1,204</div><span>Offline</span>{'<em>Original poster</em>' if n == 0 else ''}</div>"
        f"<div class='grow'><span>#{n + 1}</span> <span>3 years ago</span><div>{n + 1}42</div><p>{text}</p>"
        "<ul><li><a href='#r'>Reply</a></li><li><a href='#q'>Quote</a></li></ul>"
        "<div>518 helpful votes</div><a href='#f'>Report inappropriate content</a></div></div>"
        for n, text in enumerate(POSTS)
    )
    return f"<html><head><title>Resume hang</title></head><body><h1>Resume hang after update</h1>{posts}</body></html>"


def test_the_chrome_beside_each_post_goes_and_the_posts_and_posters_stay():
    root = parse_html(utility_class_thread())
    removed = denoise(root, ARTICLE)
    text = text_of(root)
    assert all(f"poster{n}" in text and post in text for n, post in enumerate(POSTS))
    assert not any(line in text for line in CHROME) and "#1" not in text
    assert not any(votes in text for votes in ("142", "242", "342"))  # lone numbers, on a thread
    assert removed["post chrome"] > 0


def test_a_thread_keeps_the_numbers_of_an_ordered_list():
    steps = "<ol><li><span>1</span> Back up the disk.</li><li><span>2</span> Apply the patch.</li></ol>"
    root = parse_html(utility_class_thread().replace("</h1>", f"</h1>{steps}"))
    denoise(root, ARTICLE)
    text = text_of(root)
    assert "1 Back up the disk." in text and "2 Apply the patch." in text and "142" not in text


def test_post_chrome_words_in_tables_code_and_sentences_stay():
    kept = (
        "<table><tr><th>Topic</th><th>Replies</th></tr><tr><td>Suspend</td><td>12 replies</td></tr></table>"
        "<pre>Reply</pre><p>Joined Shopify</p><p>12</p><p>Reply to the council by Friday.</p>"
    )
    root = page(f"<main><p>{STORY}</p>{kept}</main>")
    assert denoise(root, ARTICLE)["post chrome"] == 0  # and the lone "12" stays: not a thread
    text = text_of(root)
    assert all(s in text for s in ("Replies", "12 replies", "Joined Shopify", "Reply to the council"))
    assert text.count("12") == 2


def test_a_list_page_keeps_post_chrome():
    root = parse_html(utility_class_thread())
    denoise(root, LIST)
    assert "Joined 2019" in text_of(root)


def test_iawce_extracts_a_utility_class_thread_without_its_post_chrome():
    text = iawce_text(utility_class_thread(), "https://forum.example/t/2")
    assert all(post in text for post in POSTS)
    assert not any(line in text for line in CHROME)


def test_iawce_extracts_a_forum_thread_without_its_posters_profiles():
    text = iawce_text(forum_thread(XENFORO_PROFILE), "https://forum.example/t/1")
    assert all(post in text for post in POSTS)
    assert "Joined" not in text and "Full Member" not in text


LONG_STORY = " ".join(f"<p>{STORY}</p>" for _ in range(3))  # 3 × 8 × 11 = 264 words
AGENDA = "".join(f"<li>Agenda item {n}: roads, parks and the library budget</li>" for n in range(15))


BYLINE = "<div class='post-byline'>By Jane Doe, city reporter</div>"
AUTHOR_BOX = "<div class='entry-author'><h3>About Jane Doe</h3><p>Jane covers the city council and its budget.</p></div>"


def test_an_article_loses_its_byline_and_author_box_but_a_thread_keeps_its_posters():
    root = page(f"<h1>Bridge repairs</h1>{BYLINE}<div class='entry'><p>{STORY}</p></div>{AUTHOR_BOX}")
    denoise(root, ARTICLE)
    assert text_of(root) == f"Bridge repairs {STORY}"
    # three posts whose posters' names are marked "author": a thread's posters, kept
    thread = forum_thread("").replace("class='message-name'", "class='message-name cAuthorPane_author'")
    root = parse_html(thread)
    denoise(root, ARTICLE)
    assert all(f"poster{n}" in text_of(root) for n in range(len(POSTS)))


def test_iawce_extracts_a_news_story_without_its_byline_and_author_box():
    html = (
        "<html><head><title>Bridge repairs</title></head><body><div class='wrap'><h1>Bridge repairs</h1>"
        f"<div class='entry-content'>{BYLINE}{LONG_STORY}{AUTHOR_BOX}</div></div></body></html>"
    )
    text = iawce_text(html, "https://news.example/bridge")
    assert text.count("repair the bridge") == 24 and "Jane" not in text


def test_a_story_block_a_theme_names_ad_or_newsletter_keeps_its_story():
    for wrapper in ("body-ad-wrapper", "rich-text-newsletter-cms"):
        root = page(
            f"<div class='{wrapper}'>{LONG_STORY}</div><ul>{AGENDA}</ul><div class='ad'>Buy now</div>"
        )
        denoise(root, ARTICLE)  # the wrapper holds less than MAX_REMOVED_SHARE of the page
        assert text_of(root).startswith(" ".join([STORY] * 3)) and "Buy now" not in text_of(root)


def test_a_sidebar_goes_but_a_wrapper_so_named_around_the_story_stays():
    archive = "".join(f"<li><a href='/2024/{n:02}'>Month {n}</a> ({n})</li>" for n in range(1, 13))
    root = page(
        f"<div class='content-sidebar-wrap'><div class='entry'>{LONG_STORY}</div>"
        f"<div class='sidebar-wrap'><h2>Blog Archive</h2><ul>{archive}</ul></div></div><ul>{AGENDA}</ul>"
    )
    denoise(root, ARTICLE)  # the wrapper holds less than MAX_REMOVED_SHARE of the page
    text = text_of(root)
    assert text.startswith(" ".join([STORY] * 3)) and "Archive" not in text and "Agenda item 14" in text


def test_iawce_extracts_a_blog_post_without_its_archive_sidebar():
    archive = "".join(
        f"<li><a href='/{y}/{m:02}'>{y} / {m}</a> (4)</li>" for y in range(2013, 2025) for m in range(1, 13)
    )
    html = (
        "<html><head><title>The lean startup</title></head><body><div class='outer-wrapper'>"
        f"<div class='main-wrap1'><h3 class='post-title'>The lean startup</h3>{LONG_STORY}</div>"
        f"<div class='sidebar-wrap'><div class='widget BlogArchive'><h2>Blog Archive</h2><ul>{archive}</ul>"
        "</div></div></div></body></html>"
    )
    text = iawce_text(html, "https://blog.example/lean-startup.html")
    assert text.count("repair the bridge") == 24 and "Archive" not in text


def test_a_block_named_a_list_of_posts_goes_only_when_it_links_to_them():
    others = "".join(
        f"<div class='card'><a href='/blog/p{n}'>Another post {n}</a> March {n}</div>" for n in range(4)
    )
    items = "".join(f"<div class='item'><h2>Tip {n}</h2><p>Tip {n}: {STORY}</p></div>" for n in range(2))
    root = page(
        f"<h1>How to reduce waste</h1><section class='blog-list listView'>{items}</section>"
        f"<ul>{AGENDA}</ul><section class='blog-listing-section'>{others}</section>"
    )
    denoise(root, ARTICLE)  # the listicle's items hold less than MAX_REMOVED_SHARE of the page
    text = text_of(root)
    assert "Tip 1" in text and text.count("repair the bridge") == 16 and "Another post" not in text


def test_a_short_story_popups_and_the_page_type_s_own_words_are_not_spared():
    short = page(f"<div class='ad-slot'><p>{STORY}</p></div><ul>{AGENDA}</ul>")
    denoise(short, ARTICLE)  # the story block has 88 words: below the spared length
    assert text_of(short).startswith("Agenda item 0") and "council" not in text_of(short)
    popup = page(
        f"<div class='pum-overlay' role='dialog'>{LONG_STORY}<p>{STORY}</p></div><main>{LONG_STORY}</main>"
    )
    denoise(popup, ARTICLE)
    assert text_of(popup) == " ".join([STORY] * 3)  # the longest block, in a popup
    related = page(f"<div class='related-posts'>{LONG_STORY}<p>{STORY}</p></div><main>{LONG_STORY}</main>")
    denoise(related, ARTICLE)
    assert text_of(related) == " ".join([STORY] * 3)


@pytest.mark.parametrize(
    ("step", "element"),
    [
        ("photo credit", "<p class='caption-credit'>Photo: Jane Doe / Reuters</p>"),
        ("photo credit", "<div><span>Credit:</span> <a href='https://shop.example'>Amazon</a></div>"),
        ("photo credit", "<figure><img src='a.jpg'>(Image credit: Wareable)</figure>"),
        ("photo credit", "<small>Getty Images / Holger Leue</small>"),
        ("photo credit", "<p><strong>Photo by</strong> Alice Vicente; design by Mehroz Kapadia</p>"),
        ("photo credit", "<span>Фото: Иван Петров</span>"),
        ("photo credit", "<p>图片来源：新华社</p>"),
        (
            "control label",
            "<div class='vdt'><div id='vdt_show'>Show Caption</div><div id='vdt_hide'>Hide Caption</div></div>",
        ),
        (
            "control label",
            "<div class='elementor-widget'><a href='/more'><span>Read more</span> <i class='icon'></i>»</a></div>",
        ),
        ("control label", "<div class='flex'><span class='icon'></span>Add to cart</div>"),
        ("control label", "<div class='mt-4'><span>• SPONSORED •</span></div>"),
        ("control label", "<p class='text-xs'>Story continues below advertisement</p>"),
        ("control label", "<div>Реклама</div>"),
        ("control label", "<div class='flex-end'><span>Close</span></div>"),
        ("control label", "<p class='ez-toc-title'>Table of Contents <span>[hide]</span></p>"),
        ("control label", "<p><span>Weiterlesen …</span></p>"),
        ("control label", "<div>続きを読む</div>"),
        ("control label", "<span>Читать далее →</span>"),
        ("control label", "<div class='specs'><p>Loading specifications&hellip;</p></div>"),
        ("control label", "<span>Loading prices for your region...</span>"),
    ],
)
def test_a_photo_credit_or_a_control_label_goes_from_an_article(step, element):
    root = page(f"<div><h1>Bridge</h1><p>{STORY}</p>{element}<p>Work starts in May.</p></div>")
    removed = denoise(root, ARTICLE)
    assert removed[step] >= 1
    assert text_of(root) == f"Bridge {STORY} Work starts in May."


@pytest.mark.parametrize(
    "kept",
    [
        "<figcaption>The mayor opens the bridge, which took three years to repair. Photo: Jane Doe</figcaption>",
        "<p>Photo editors at the paper chose the pictures of the bridge from more than a thousand frames.</p>",
        "<h2>Photo: the bridge at night</h2>",
        "<p>Sources of funding for the repair</p>",
        "<p>Read more about the repair in the council's report on the bridge.</p>",
        "<h2>Filters</h2>",
        "<p>Loading dock access for the works</p>",
        "<h3><span>Read more</span></h3>",
        "<p><a href='/report'>Read more</a> of the council's report on the bridge and its costs.</p>",
    ],
)
def test_a_caption_a_sentence_or_a_heading_that_names_a_photo_or_a_control_stays(kept):
    root = page(f"<div><h1>Bridge</h1><p>{STORY}</p>{kept}</div>")
    before = text_of(root)
    denoise(root, ARTICLE)
    assert text_of(root) == before


def test_photo_credits_stay_on_list_pages():
    root = page(f"<ul><li><a href='/a'>Bridge</a><span>Photo: Jane Doe</span></li></ul><p>{STORY}</p>")
    denoise(root, LIST)
    assert "Photo: Jane Doe" in text_of(root)


def test_iawce_leaves_the_credits_of_an_article_s_pictures_out():
    figures = "".join(
        f"<figure><img src='p{n}.jpg'><figcaption><span class='credit'>Credit: Studio {n}</span>"
        f"</figcaption></figure><p>Step {n}: {STORY}</p>"
        for n in range(4)
    )
    html = f"<html><head><title>Bridge</title></head><body><article><h1>Bridge</h1>{figures}</article></body></html>"
    text = iawce_text(html, "https://news.example/bridge")
    assert "Step 3:" in text and "Studio" not in text and "Credit" not in text


def test_iawce_leaves_a_news_story_s_toggles_and_buttons_out():
    """Gannett's video captions come with "Show Caption" / "Hide Caption" toggles in
    divs; a page builder's "Read more" sits in a div of its own."""
    video = (
        "<div class='video'><div slot='videoDetails'><div id='videoDetailsToggle'>"
        "<div id='vdt_show'>Show Caption</div><div id='vdt_hide' hidden>Hide Caption</div></div>"
        "<p>The mayor at the reopening of the bridge.</p></div></div>"
    )
    paragraphs = "".join(f"<p>Step {n}: {STORY}</p>" for n in range(4))
    html = (
        "<html><head><title>Bridge</title></head><body><article><h1>Bridge</h1>"
        f"{video}{paragraphs}<div class='elementor-button-wrapper'><a href='/more'>Read More</a></div>"
        "</article></body></html>"
    )
    text = iawce_text(html, "https://news.example/bridge")
    assert "Step 3:" in text and "reopening of the bridge" in text
    assert "Caption" not in text and "Read More" not in text


def test_a_body_whose_whole_text_is_a_control_label_is_left_to_the_extractor():
    for html in ("<html><body>Read more</body></html>", "<html><body><br>Read more</body></html>"):
        assert control_labels(body_of(parse_html(html))) == []


def test_control_labels_stay_on_list_pages():
    cards = "".join(
        f"<li><a href='/p{n}'>Chess set {n}</a><div>More info</div><div>Add to cart</div></li>"
        for n in range(3)
    )
    root = page(f"<ul>{cards}</ul><p>{STORY}</p>")
    denoise(root, LIST)
    assert text_of(root).count("Add to cart") == 3


def test_a_media_player_s_embed_code_goes_from_a_list_page():
    """NPR prints each audio story's embed code as text under it, in a box a script shows."""
    stories = "".join(
        f"<li><h3><a href='/s{n}'>Story {n}</a></h3><p>{STORY}</p><div class='audio-tool'>"
        f"<b class='embed-url'><code>&lt;iframe src=\"https://player.example/{n}\"&gt;&lt;/iframe&gt;</code></b>"
        "</div></li>"
        for n in range(3)
    )
    root = page(f"<ul>{stories}</ul>")
    denoise(root, LIST)
    text = text_of(root)
    assert "Story 2" in text and "iframe" not in text


SPECIFICATIONS = " ".join(
    ["Stoneware, fired at 1,240 degrees; dishwasher and microwave safe; made in Portugal."] * 6
)


def described_product_page(description_copies: int) -> str:
    head = json.dumps({"@type": "Product", "name": "Speckled mug", "description": DESCRIPTION})
    copies = "".join(
        f"<div class='product-description'><p>{DESCRIPTION}</p></div>" for _ in range(description_copies)
    )
    return (
        f"<html><head><title>Speckled mug</title><script type='application/ld+json'>{head}</script></head>"
        "<body><div class='product'><h1>Speckled mug</h1><div class='buy-box'>$32.00 Add to cart</div>"
        f"<p>{SPECIFICATIONS}</p><button>Description</button></div>"
        f"<aside class='sheet modal' role='dialog'><h5>Description</h5>{copies}"
        "<button class='close'>Close</button><p class='modal-note'>Sign in to save this item.</p></aside>"
        "</body></html>"
    )


def test_a_product_s_declared_description_survives_the_modal_sheet_that_holds_it():
    root = parse_html(described_product_page(1))
    denoise(root, ARTICLE)
    assert DESCRIPTION in text_of(root) and "$32.00" not in text_of(root)
    # its copy for another screen size still goes: one copy stays
    root = parse_html(described_product_page(2))
    denoise(root, ARTICLE)
    assert text_of(root).count(DESCRIPTION) == 1
    # without the declaration the sheet goes, as any dialog
    root = parse_html(described_product_page(1).replace('"description"', '"slogan"'))
    denoise(root, ARTICLE)
    assert DESCRIPTION not in text_of(root)


def test_iawce_extracts_a_product_s_description_from_its_modal_sheet():
    text = iawce_text(described_product_page(1), "https://shop.example/mug")
    assert DESCRIPTION in " ".join(text.split()) and "Stoneware, fired" in text
    assert "$32.00" not in text and "Sign in to save" not in text


def thread_of_form_wrapped_comments(count: int) -> str:
    comments = "".join(
        f"<div class='comment'><p class='tagline'>user{i} 3 points</p>"
        f"<form class='usertext' action='#'><input type='hidden' name='thing_id' value='t{i}'>"
        f"<div class='md'><p>Reply number {i} says the patch fixed it.</p></div></form></div>"
        for i in range(count)
    )
    search = "<form class='search'><input name='q'><p>Search the forum</p></form>"
    question = "Has anyone got the bridge patch to work? It fails on my machine. " * 3  # no story of 50 words
    return f"<div class='thread'><p>{question}</p>{comments}</div>{search}"


def test_forms_that_wrap_the_comments_of_a_thread_are_its_posts_not_forms():
    root = page(thread_of_form_wrapped_comments(5))
    denoise(root, ARTICLE)
    assert "Reply number 4 says" in text_of(root) and "Search the forum" not in text_of(root)
    # four such forms are no thread's posts: they go as any short form
    root = page(thread_of_form_wrapped_comments(4))
    denoise(root, ARTICLE)
    assert "Reply number" not in text_of(root)


def test_iawce_extracts_the_comments_that_forms_wrap():
    html = f"<html><body>{thread_of_form_wrapped_comments(5)}</body></html>"
    text = iawce_text(html, "https://forum.example/t/1")
    assert all(f"Reply number {i} says" in text for i in range(5)) and "Search the forum" not in text


def shop_category_page(grid_class: str = "product-grid") -> str:
    options = "".join(
        f"<li><label><input type='checkbox' name='color' value='{c}'>{c}</label></li>"
        for c in ("Black", "Grey", "Tan", "Orange", "Teal")
    )
    cards = "".join(
        f"<li class='card'><img src='/p{i}.jpg' alt=''><a href='/p/{i}'>Merino crew sock number {i}</a>"
        f"<span class='price'>${10 + i}</span></li>"
        for i in range(8)
    )
    return (
        "<html><body><main><h1>Dress socks</h1>"
        "<p>Our curated socks finish any formal outfit, from a wedding to the office.</p>"
        f"<div class='collection-filters'><h3>Color</h3><ul>{options}</ul>"
        "<h3>Pattern</h3><ul><li>Solid</li><li>Striped</li><li>Argyle</li></ul></div>"
        f"<div class='{grid_class}'><ul>{cards}</ul></div></main></body></html>"
    )


def test_a_shop_s_filter_panel_goes_from_a_list_page_and_its_products_stay():
    root = page(shop_category_page())
    removed = denoise(root, LIST)
    text = text_of(root)
    assert removed["facets"] == 1 and "Argyle" not in text and "Teal" not in text
    assert all(f"Merino crew sock number {i}" in text for i in range(8))


def test_a_product_grid_that_a_theme_names_facets_stays():
    root = page(shop_category_page("t-collection__grid facets-vertical"))
    denoise(root, LIST)
    assert "Merino crew sock number 7" in text_of(root) and "Argyle" not in text_of(root)


def test_iawce_extracts_a_category_page_s_products_without_its_filters():
    text = iawce_text(shop_category_page(), "https://shop.example/socks", LIST)
    assert "Merino crew sock number 3" in text and "Argyle" not in text and "Striped" not in text


def test_a_filter_named_block_that_holds_most_of_the_page_stays():
    results = "".join(f"<li><a href='/r/{i}'>Search result number {i}</a></li>" for i in range(10))
    root = page(f"<div class='filter-results'><ul>{results}</ul></div><p>Ten results</p>")
    denoise(root, LIST)
    assert "Search result number 9" in text_of(root)


def test_a_denoise_threshold_set_through_the_settings_changes_the_extraction():
    comments = " ".join(["Great news for the town, thanks to everyone who helped out."] * 6)
    html = (
        "<html><body><article><h1>Bridge repairs approved</h1>"
        f"<p>{STORY}</p><div class='comments'><p>{comments}</p></div></article></body></html>"
    )
    settings = Settings(
        pagesight_settings(
            PAGESIGHT_EXTRACTOR_OPTIONS={"iawce": {"denoise": {"min_story_besides_discussion": 100}}}
        )
    )
    configured = build_extractor("iawce", settings)
    assert configured.options.denoise == DenoiseOptions(min_story_besides_discussion=100)
    shared = Page(html, "https://gazette.example/bridge", ARTICLE)  # one parse, a denoised tree per options
    by_default, by_settings = build_extractor("iawce").extract(shared), configured.extract(shared)
    assert by_default is not None and by_settings is not None
    # The story's 88 words are more than the default 50 to keep besides a discussion, fewer than 100.
    assert "thanks to everyone" not in by_default.text and "repair the bridge" in by_default.text
    assert "thanks to everyone" in by_settings.text


def test_an_unknown_denoise_threshold_in_the_settings_is_an_error():
    bad = Settings(pagesight_settings(PAGESIGHT_EXTRACTOR_OPTIONS={"iawce": {"denoise": {"nope": 1}}}))
    with pytest.raises(
        ExtractorUnavailable,
        match=r"PAGESIGHT_EXTRACTOR_OPTIONS\['iawce'\]\['denoise'\]: no option nope; denoise has ",
    ):
        build_extractor("iawce", bad)


def test_the_committed_step_catalogue_is_written_from_the_steps():
    # Stale after a change to STEPS or a step's docstring: python -m pipelines.extraction.denoise.catalogue
    assert CATALOGUE_PATH.read_text(encoding="utf-8") == catalogue()


def test_denoise_hands_back_the_discussion_it_removed():
    root = page(f"<article><p>{STORY}</p><div class='comments'><p>First comment.</p></div></article>")
    removed: list = []
    denoise(root, ARTICLE, discussion=removed)
    assert [element.get("class") for element in removed] == ["comments"]
    assert text_of(root) == STORY and " ".join(removed[0].itertext()) == "First comment."
