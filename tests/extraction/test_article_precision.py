"""Precision on news articles: iawce drops comment threads, related and teaser lists,
author boxes, newsletter and share blocks, and keeps the body, its headings, lists,
tables and captions (hand-written blocks, then every demo site's article pages)."""

from __future__ import annotations

import lxml.html
import pytest

from crawler.demo.generator import build_web
from pipelines.extraction import ARTICLE, LIST, Page, build_extractor, decode_html
from pipelines.extraction.denoise import denoise
from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.lengths import normalize_space

PARAGRAPH = "The council met on Tuesday and agreed to repair the old stone bridge over the river."
BODY = (
    "<h1>Bridge repairs approved</h1>"
    + "".join(f"<p>{PARAGRAPH} Point {n} of the plan was discussed at length.</p>" for n in range(8))
    + "<h2>What changes for drivers</h2>"
    "<ul><li>One lane stays open during the works</li><li>Buses take the ring road</li></ul>"
    "<table><tr><th>Phase</th><th>Months</th></tr><tr><td>Foundations</td><td>Four</td></tr></table>"
    "<figure><img src='/bridge.jpg'><figcaption>The bridge seen from the north bank</figcaption></figure>"
)
KEPT = (
    "Bridge repairs approved",
    "Point 7 of the plan",
    "What changes for drivers",
    "One lane stays open during the works",
    "Foundations",
    "The bridge seen from the north bank",
)
COMMENT = "I have driven over that bridge every day for thirty years and never saw a single crack in it"
BLOCKS = {
    "comments": (
        '<div id="comments" class="comments-area"><h3>12 comments</h3><ol class="comment-list">'
        + "".join(
            f'<li id="comment-{n}"><article class="comment-body"><b>reader{n}</b><p>{COMMENT}</p></article></li>'
            for n in range(6)
        )
        + "</ol></div>",
        "never saw a single crack",
    ),
    "comments and pingbacks": (
        '<div id="comments" class="entry-comments"><ol class="comment-list">'
        + "".join(
            f'<li class="comment"><div class="comment-content"><p>{COMMENT}</p></div></li>' for n in range(6)
        )
        + '</ol></div><ol class="ping-list">'
        + "".join(f'<li id="comment-{n}" class="pingback">Linked from a blog {n}</li>' for n in range(3))
        + "</ol>",
        "never saw a single crack",
    ),
    "recent post cards": (
        "<div class='elementor-posts-container'>"
        + "".join(
            f"<article class='elementor-post'><h3><a href='/p{n}'>Another story {n}</a></h3>"
            "<span>March 29</span><p>A short excerpt about the harbour festival.</p></article>"
            for n in range(4)
        )
        + "</div>",
        "harbour festival",
    ),
    "post cards titled by class": (
        "<div class='template-content'>"
        + "".join(
            f"<article><div class='categories'>Front page</div><div class='title'><a href='/p{n}'>Another story {n}"
            "</a></div><div class='body'>A short excerpt about the harbour festival.</div></article>"
            for n in range(4)
        )
        + "</div>",
        "harbour festival",
    ),
    "one related story card": (
        "<div class='display-card article-card small'><span><label>Related</label></span><div>"
        "<h5><a href='/tools'>Four tools for the harbour festival</a></h5><p>How the organisers saved time.</p>"
        "<div>By <a href='/author/jane'>Jane Doe</a></div></div></div>",
        "harbour festival",
    ),
    "legal small print": (
        "<div class='game_legal'><p>© 2026 The harbour festival company. All trademarks are property of their "
        "owners.</p></div>",
        "harbour festival",
    ),
    "form messages": (
        "<div class='w-form'><form><input name='email'></form><div class='w-form-done'><div>Thank you! The harbour "
        "festival team received your submission.</div></div><div class='w-form-fail'><div>Oops! Something went "
        "wrong.</div></div></div>",
        "harbour festival",
    ),
    "popover": (
        '<div class="shipping-popover"><p>Free returns within thirty days of the harbour festival.</p></div>',
        "harbour festival",
    ),
    "carousel copies": (
        '<div class="slick-track"><div class="slick-slide"><p>Photos of the works.</p></div>'
        '<div class="slick-slide slick-cloned"><p>A copy of the harbour festival slide.</p></div></div>',
        "harbour festival",
    ),
    "copyright": ('<p class="site-copyright">© 2026 The harbour festival paper</p>', "harbour festival"),
    "disqus": (f'<div id="disqus_thread"><p>{COMMENT}</p><p>{COMMENT}</p></div>', "never saw a single crack"),
    "related teasers": (
        '<section class="related-articles"><h2>You may also like</h2>'
        + "".join(
            f"<div><a href='/s{n}'>Story {n}</a><p>A longer teaser about the harbour festival and its boats.</p></div>"
            for n in range(4)
        )
        + "</section>",
        "harbour festival",
    ),
    "recommended": (
        '<div class="recommended"><p>Readers also read the harbour festival story and the one about the tram.</p></div>',
        "harbour festival",
    ),
    "more stories": (
        '<div class="more-stories"><p>More on the harbour festival and its boats from our city desk.</p></div>',
        "harbour festival",
    ),
    "entry footer": (
        '<div class="entry-footer"><p>Tags: harbour festival, boats, city desk. Reply, quote, like.</p></div>',
        "harbour festival",
    ),
    "pre-footer teasers": (
        '<div class="pre-footer"><h3>Need more harbour festival advice?</h3><p>Our guides to the boats.</p></div>',
        "harbour festival",
    ),
    "author box": (
        '<div class="author-bio"><p>Jane Doe has covered city hall for the paper since 2009 and lives by the river.</p></div>',
        "covered city hall",
    ),
    "newsletter": (
        '<div class="newsletter-signup"><h3>Get the morning briefing</h3><p>The day\'s city news in your inbox.</p></div>',
        "morning briefing",
    ),
    "share": (
        '<div class="share-tools"><span>Share on Facebook</span><span>Share by email</span></div>',
        "Facebook",
    ),
    "embed code": (
        '<div class="audio-tool"><b class="embed-url embed-url-touch"><code>&lt;iframe '
        'src="https://player.example/embed/1" width="100%"&gt;&lt;/iframe&gt;</code></b></div>',
        "player.example",
    ),
}


def unmarked_teasers(heading: str) -> str:
    """A teaser list under ``heading`` whose markup names nothing (utility classes only,
    as Tailwind themes and page builders write it): title links, a line, a date. The
    lines are no links, so dropping link-dense paragraphs leaves them."""
    cards = "".join(
        f'<div class="flex flex-row mt-4"><a class="block text-lg font-semibold" href="/deal-{n}">'
        f"A laptop deal, number {n}</a>"
        f'<div class="hidden md:block">Storage for the harbour festival without breaking the bank.</div>'
        f'<div class="flex mt-3"><time datetime="2025-09-28">09/28/2025</time></div></div>'
        for n in range(4)
    )
    return (
        f'<section class="mx-auto max-w-8xl"><hr class="my-8"><div class="mt-12 font-bold">{heading}</div>'
        f'<div class="justify-center mt-8 w-full">{cards}</div></section>'
    )


TEASER_HEADINGS = {
    "en": "Recommended For You",
    "en, a section's": "More in Tech",
    "ru": "Читайте также",
    "zh": "相关文章",
    "ja": "関連記事",
    "ko": "관련 기사",
    "de": "Das könnte Sie auch interessieren",
    "fr": "À lire aussi :",
    "es": "Noticias relacionadas",
    "en, a shop's": "Customers also bought",
    "en, a Q&A site's": "Related questions",
    "ru, a shop's": "Похожие товары",
    "zh, a shop's": "相关商品",
    "ja, a shop's": "関連商品",
    "ko, a shop's": "관련 상품",
    "de, a shop's": "Ähnliche Produkte",
    "fr, a shop's": "Produits similaires",
    "es, a shop's": "Productos relacionados",
}
BLOCKS |= {
    f"unmarked teasers ({language})": (unmarked_teasers(h), "harbour festival")
    for language, h in TEASER_HEADINGS.items()
}


def article(extra: str) -> str:
    """A story whose <article> also holds ``extra`` (as many sites nest their boxes)."""
    return f"<html><head><title>Bridge</title></head><body><main><article>{BODY}{extra}</article></main></body></html>"


@pytest.mark.parametrize("block", sorted(BLOCKS))
def test_article_loses_the_block_and_keeps_its_body(block):
    html, marker = BLOCKS[block]
    found = build_extractor("iawce").extract(Page(article(html), "http://news.example/bridge", "article"))
    assert found is not None
    text = normalize_space(found.text)
    assert marker not in text
    for kept in KEPT:
        assert kept in text


def test_comments_marked_on_a_short_page_are_its_content():
    """A forum thread: the only text is the discussion, so it stays."""
    posts = "".join(f'<div class="comment"><b>user{n}</b><p>{COMMENT}</p></div>' for n in range(3))
    html = f"<html><body><h1>Which bridge?</h1><div id='comments'>{posts}</div></body></html>"
    found = build_extractor("iawce").extract(Page(html, "http://forum.example/t/1", "article"))
    assert found is not None and "never saw a single crack" in found.text


def test_a_declared_thread_keeps_the_replies_under_a_long_first_post():
    """Vanilla: the first post is paragraphs, the replies a "comments" list beside a sidebar."""
    first = "".join(f"<p>{PARAGRAPH} Part {n} of the first post.</p>" for n in range(9))
    replies = "".join(
        f'<li class="Item Comment"><b>user{n}</b><p>{COMMENT}. {COMMENT}.</p></li>' for n in range(6)
    )
    head = '<script type="application/ld+json">{"@type": "DiscussionForumPosting", "headline": "Bridge"}</script>'
    body = f"<h1>Bridge</h1><div class='Discussion'>{first}</div><ul class='Comments'>{replies}</ul>"
    html = f"<html><head>{head}</head><body>{body}</body></html>"
    found = build_extractor("iawce").extract(Page(html, "http://forum.example/d/1", "article"))
    assert found is not None and "never saw a single crack" in found.text and "Part 8" in found.text
    story = build_extractor("iawce").extract(
        Page(html.replace(head, ""), "http://forum.example/d/1", "article")
    )
    assert (
        story is not None and "never saw a single crack" not in story.text
    )  # undeclared: a story's comments


def test_numbered_posts_are_a_thread_not_comments():
    """Forum software marks each post (``id="comment-123_wrap"``): the posts stay even
    when the page has long text besides them."""
    posts = "".join(f'<div id="comment-{n}_wrap"><p>{COMMENT}</p></div>' for n in range(4))
    root = parse_html(article(posts))
    removed = denoise(root, ARTICLE)
    assert "discussion" not in removed
    assert body_of(root).text_content().count("never saw a single crack") == 4


def test_a_thread_wrapped_in_a_comments_block_beside_a_sidebar_is_the_content():
    """Forum software wraps a whole thread in ``<div id="comments">``; the rest of the page
    is a sidebar of links and short notes, no story in paragraphs: the posts stay."""
    posts = "".join(f'<div class="post"><b>user{n}</b><p>{COMMENT}</p></div>' for n in range(6))
    sidebar = "".join(
        f"<li><a href='/t/{n}'>Another thread about the old stone bridge {n}</a></li>" for n in range(30)
    )
    html = (
        f"<html><body><h1>Which bridge?</h1><div id='comments' class='topic'>{posts}</div>"
        f"<div class='rail'><ul>{sidebar}</ul></div></body></html>"
    )
    found = build_extractor("iawce").extract(Page(html, "http://forum.example/t/1", "article"))
    assert found is not None and found.text.count("never saw a single crack") == 6


def test_comments_go_beside_a_story_written_in_line_breaks():
    """A post without paragraphs (lines between ``<br>``, as old blogs and Slashdot write
    them) is a story too: its comments go."""
    story = "<br><br>".join(f"{PARAGRAPH} Point {n} of the plan was discussed." for n in range(10))
    comments = "".join(f'<div class="comment"><b>reader{n}</b><p>{COMMENT}</p></div>' for n in range(6))
    html = (
        f"<html><body><h1>Bridge repairs approved</h1><div class='post-body'>{story}</div>"
        f"<div id='comments'>{comments}</div></body></html>"
    )
    found = build_extractor("iawce").extract(Page(html, "http://blog.example/bridge", "article"))
    assert found is not None and "Point 5 of the plan" in found.text
    assert "never saw a single crack" not in found.text


def test_forum_signatures_go_and_the_posts_stay():
    """A poster's signature under each post (``ipsEntry__signature``, ``signature``) is
    the same blurb on every post of theirs, not part of the thread."""
    posts = (
        "".join(
            f'<div id="comment-{n}_wrap"><p>{COMMENT}</p>'
            f'<div class="ipsEntry__signature">Harbour festival fan since 1990, three boats</div></div>'
            for n in range(3)
        )
        + '<div class="post"><p>A last word on the bridge.</p><div class="signature">My harbour festival blog</div></div>'
    )
    html = f"<html><body><h1>Which bridge?</h1><div id='comments'>{posts}</div></body></html>"
    found = build_extractor("iawce").extract(Page(html, "http://forum.example/t/1", "article"))
    assert found is not None
    assert found.text.count("never saw a single crack") == 3 and "A last word on the bridge" in found.text
    assert "harbour festival" not in found.text.lower()


def test_code_comments_are_content():
    code = "".join(f'<span class="hljs-comment"># step {n}: {COMMENT}</span>\n' for n in range(3))
    root = parse_html(article(f"<pre><code>{code}</code></pre>"))
    removed = denoise(root, ARTICLE)
    assert "discussion" not in removed
    assert body_of(root).text_content().count("never saw a single crack") == 3


def demo_articles() -> list[tuple[str, str, dict]]:
    """(url, HTML, gold) of every demo site's article pages (the magazine's are left out:
    its script writes the rest of the story, so its raw HTML does not hold the gold)."""
    found = []
    for model in build_web(seed=2026, articles_per_site=4):
        for path, page in sorted(model.pages.items()):
            if model.spec.theme == "magazine":
                break
            if page.gold is not None and page.gold.get("page_type") == "article":
                html = decode_html(page.body, model.spec.charset.label)
                found.append((f"http://{model.spec.name}.example{path}", html, page.gold))
    return found


@pytest.mark.parametrize(
    ("url", "html", "gold"),
    demo_articles(),
    ids=lambda value: value if isinstance(value, str) and value.startswith("http") else "",
)
def test_demo_articles_lose_their_comments_and_keep_the_gold(url, html, gold):
    found = build_extractor("iawce").extract(Page(html, url, "article"))
    assert found is not None
    text = normalize_space(found.text)
    comments = lxml.html.fromstring(html).xpath('//*[contains(concat(" ", @class, " "), " comment ")]//p')
    for comment in comments:
        assert normalize_space(comment.text_content()) not in text, url
    for line in gold["text"].split("\n"):
        if line.strip():
            assert normalize_space(line) in text, url


def test_teasers_stay_on_a_list_page_and_go_on_an_article():
    teasers = unmarked_teasers("Related posts")
    for page_type, kept in ((LIST, True), (ARTICLE, False)):
        root = parse_html(article(teasers))
        removed = denoise(root, page_type)
        assert ("harbour festival" in body_of(root).text_content()) is kept
        assert ("teaser" in removed) is not kept


def test_a_section_label_that_reads_like_a_teaser_heading_keeps_its_section():
    """Sections of the story under "More from ...:" labels hold prose, not links: the
    block the labels lead to is mostly text, and as long as the story, so it stays."""
    sections = "".join(
        f"<div class='item'><h4>More from school {n}:</h4><p>{PARAGRAPH} {PARAGRAPH}</p>"
        f"<p>{PARAGRAPH}</p><a href='/school-{n}'>Apply to school {n}</a></div>"
        for n in range(5)
    )
    root = parse_html(article(f"<div class='items'>{sections}</div>"))
    assert "teaser" not in denoise(root, ARTICLE)
    assert body_of(root).text_content().count("Apply to school") == 5


def test_a_link_named_like_a_teaser_heading_is_no_heading():
    menu = (
        "<div class='bar'>"
        + "".join(f"<a href='/{w}'>{w}</a> " for w in ("Home", "Related", "Archive"))
        + "</div>"
    )
    root = parse_html(article(menu + "<p>The harbour festival bar stays.</p>"))
    assert "teaser" not in denoise(root, ARTICLE)


def post_cards(count: int, words: int = 8, linked: bool = True, cut: str = "") -> str:
    title = "<h3><a href='/p{n}'>Another story {n}</a></h3>" if linked else "<h3>Reader {n}</h3>"
    excerpt = " ".join(["harbour"] * words) + cut
    return (
        "<div class='grid'>"
        + "".join(f"<article>{title.format(n=n)}<p>{excerpt}</p></article>" for n in range(count))
        + "</div>"
    )


@pytest.mark.parametrize(
    ("cards", "kept"),
    [
        (post_cards(4), False),
        (post_cards(2), True),  # fewer than TEASER_MIN_CARDS
        (post_cards(4, words=130), True),  # each card a story of its own
        (post_cards(4, linked=False), True),  # posts without a linked title (comments, forum posts)
        (post_cards(40), True),  # a guide's cards, many times the intro: the content
        (post_cards(40, cut="..."), False),  # ... unless each excerpt is cut short: teasers
        (post_cards(40, cut=" [&hellip;]"), False),
        (post_cards(40, cut="&hellip; <span>Read</span>"), True),  # the cut is not the card's end
    ],
)
def test_a_block_of_article_cards_outside_the_story_goes_as_a_teaser_list(cards, kept):
    root = parse_html(article(cards))
    removed = denoise(root, ARTICLE)
    assert ("harbour" in body_of(root).text_content()) is kept
    assert ("teaser" in removed) is not kept
