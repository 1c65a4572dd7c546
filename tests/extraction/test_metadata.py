"""Metadata from each source, and dates normalized to ISO 8601."""

import json

import pytest

from pipelines.extraction.dates import normalize_date
from pipelines.extraction.dom import parse_html
from pipelines.extraction.metadata import Metadata, extract_metadata, page_declarations


def meta_of(
    head: str = "", body: str = "", html_attrs: str = "", base: str = "https://news.example/a/b.html"
):
    root = parse_html(f"<html {html_attrs}><head>{head}</head><body>{body}</body></html>")
    return extract_metadata(root, base)


def json_ld(data) -> str:
    return f'<script type="application/ld+json">{json.dumps(data)}</script>'


def test_nothing_to_find():
    assert meta_of(body="<p>plain</p>") == Metadata()


def test_title_sources_in_order():
    h1, two_h1 = "<h1>Heading one</h1>", "<h1>Heading one</h1><h1>Heading two</h1>"
    title = "<title>Bridge reopens after repairs | Valley Gazette</title>"
    og = '<meta property="og:title" content="OG title of the story - Valley Gazette">'
    assert meta_of(head=title + og, body=h1).title == "Heading one"  # the page's only <h1>
    assert meta_of(head=title + og, body=two_h1).title == "OG title of the story"
    ld = json_ld({"@type": "NewsArticle", "headline": "LD headline"})
    assert meta_of(head=title + ld, body=two_h1).title == "LD headline"
    assert meta_of(head=title, body=two_h1).title == "Bridge reopens after repairs"  # site name cut
    assert meta_of(head="<title>Short | Site</title>").title == "Short | Site"  # too short to cut
    assert meta_of(body=two_h1).title == "Heading one"


def test_author_sources():
    assert (
        meta_of(
            head=json_ld({"@type": "Article", "author": [{"name": "Ann Lee"}, {"name": "Bo Chen"}]})
        ).author
        == "Ann Lee, Bo Chen"
    )
    assert meta_of(head='<meta name="author" content="Dana Whitfield">').author == "Dana Whitfield"
    profile = '<meta property="article:author" content="https://facebook.example/dana">'
    assert meta_of(head=profile).author is None  # a profile URL is not a name
    assert (
        meta_of(body='<span itemprop="author"><span itemprop="name">Kim Park</span></span>').author
        == "Kim Park"
    )
    assert meta_of(body='<a rel="author" href="/staff/jo">Jo March</a>').author == "Jo March"


def test_article_objects_win_over_web_page_objects_in_json_ld():
    graph = {
        "@graph": [
            {"@type": "WebPage", "datePublished": "2020-01-01"},
            {"@type": "NewsArticle", "datePublished": "2024-03-05", "author": {"name": "Ann Lee"}},
        ]
    }
    found = meta_of(head=json_ld(graph))
    assert (found.published, found.author) == ("2024-03-05", "Ann Lee")


def test_published_sources():
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite"},
            {"@type": "BlogPosting", "datePublished": "2024-03-05T09:30:00+01:00"},
        ],
    }
    assert meta_of(head=json_ld(graph)).published == "2024-03-05T09:30:00+01:00"
    assert (
        meta_of(head='<meta property="article:published_time" content="2024-03-05T09:30:00Z">').published
        == "2024-03-05T09:30:00+00:00"
    )
    assert meta_of(head='<meta name="pubdate" content="2024/03/05">').published == "2024-03-05"
    assert (
        meta_of(body='<span itemprop="datePublished" content="2023-12-01">1 Dec</span>').published
        == "2023-12-01"
    )
    assert (
        meta_of(body='<p>Posted <time datetime="2022-07-14T08:00">July 14</time></p>').published
        == "2022-07-14T08:00:00"
    )
    assert meta_of(body="<time>5 января 2024</time>").published == "2024-01-05"
    assert meta_of(body='<div class="post-meta">By Ann · March 5, 2024</div>').published == "2024-03-05"
    assert meta_of(body='<div class="content">Founded 5 March 2024</div>').published is None


def test_language_sources():
    assert meta_of(html_attrs='lang="en_GB"').language == "en-GB"
    assert meta_of(head='<meta http-equiv="Content-Language" content="ru">').language == "ru"
    assert meta_of(head='<meta property="og:locale" content="ja_JP">').language == "ja-JP"
    assert meta_of(body="<p>これは日本語の文章です。</p>").language == "ja"
    assert meta_of(body="<p>" + "我们今天去公园散步天气很好大家都很开心" * 2 + "</p>").language == "zh"
    assert meta_of(body="<p>오늘은 날씨가 좋습니다</p>").language == "ko"
    assert meta_of(body="<p>Only English here.</p>").language is None


def test_canonical_url_is_absolute():
    assert (
        meta_of(head='<link rel="canonical" href="/a/canonical">').canonical_url
        == "https://news.example/a/canonical"
    )
    assert (
        meta_of(head='<meta property="og:url" content="https://news.example/og">').canonical_url
        == "https://news.example/og"
    )


def test_broken_json_ld_is_skipped():
    head = '<script type="application/ld+json">{not json</script><meta name="author" content="Ann">'
    assert meta_of(head=head).author == "Ann"


@pytest.mark.parametrize(
    ("raw", "iso"),
    [
        ("2024-01-05", "2024-01-05"),
        ("2024-01-05T10:00:00Z", "2024-01-05T10:00:00+00:00"),
        ("2024-01-05T10:00:00.123+0800", "2024-01-05T10:00:00+08:00"),
        ("Fri, 05 Jan 2024 10:00:00 GMT", "2024-01-05T10:00:00+00:00"),
        ("2024/1/5", "2024-01-05"),
        ("2024年1月5日 10:30", "2024-01-05T10:30:00"),
        ("05.01.2024", "2024-01-05"),
        ("January 5, 2024", "2024-01-05"),
        ("Jan. 5th 2024", "2024-01-05"),
        ("5 January 2024", "2024-01-05"),
        ("5 января 2024 г.", "2024-01-05"),
        ("Updated on Sep 12, 2023 at noon", "2023-09-12"),
        ("2024-13-45", None),
        ("31.02.2024", None),
        ("yesterday", None),
        ("", None),
        (None, None),
    ],
)
def test_dates_become_iso_8601(raw, iso):
    assert normalize_date(raw) == iso


@pytest.mark.parametrize(
    "head, body",
    [
        (json_ld({"@context": "https://schema.org", "@type": "Product", "name": "Mug"}), ""),
        (json_ld({"@graph": [{"@type": "WebPage"}, {"@type": ["ProductGroup"], "name": "Mug"}]}), ""),
        ('<meta property="og:type" content="product.item">', ""),
        ("", '<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">Mug</span></div>'),
    ],
)
def test_a_page_declares_a_product_by_json_ld_open_graph_or_microdata(head, body):
    assert page_declarations(parse_html(f"<html><head>{head}</head><body>{body}</body></html>")).product


@pytest.mark.parametrize(
    "head, body",
    [
        ("", "<p>plain</p>"),
        # a review names the product it rates: no product page
        (json_ld({"@type": "Review", "itemReviewed": {"@type": "Product", "name": "Mug"}}), ""),
        (
            "",
            '<div itemscope itemtype="https://schema.org/Review"><div itemprop="itemReviewed" itemscope '
            'itemtype="https://schema.org/Product">Mug</div></div>',
        ),
        # a story that declares the products it ranks is an article
        ('<meta property="og:type" content="article">' + json_ld({"@type": "Product", "name": "Mug"}), ""),
        (json_ld([{"@type": "NewsArticle"}, {"@type": "Product", "name": "Mug"}]), ""),
    ],
)
def test_reviews_and_stories_about_products_are_no_product_pages(head, body):
    assert not page_declarations(parse_html(f"<html><head>{head}</head><body>{body}</body></html>")).product


@pytest.mark.parametrize(
    "head, body, thread",
    [
        (
            json_ld({"@context": "https://schema.org", "@type": "DiscussionForumPosting", "headline": "Hi"}),
            "",
            True,
        ),
        (json_ld({"@graph": [{"@type": "WebPage"}, {"@type": "QAPage"}]}), "", True),
        ("", '<div itemscope itemtype="http://schema.org/DiscussionForumPosting"><p>Hi</p></div>', True),
        ("", "<p>plain</p>", False),
        # an FAQ's questions, and a thread a story embeds, do not make the page one
        (json_ld({"@type": "FAQPage", "mainEntity": [{"@type": "Question", "name": "Why?"}]}), "", False),
        (
            "",
            '<div itemscope itemtype="https://schema.org/NewsArticle"><div itemprop="comment" itemscope '
            'itemtype="https://schema.org/DiscussionForumPosting">Hi</div></div>',
            False,
        ),
    ],
)
def test_a_page_declares_a_thread_by_json_ld_or_microdata(head, body, thread):
    assert (
        page_declarations(parse_html(f"<html><head>{head}</head><body>{body}</body></html>")).thread is thread
    )


def test_a_product_page_declares_its_description_as_plain_text():
    described = {
        "@type": "Product",
        "name": "Mug",
        "description": "<p>Hand-thrown &amp; glazed.</p><p>Twelve ounces.</p>",
    }
    root = parse_html(f"<html><head>{json_ld(described)}</head><body></body></html>")
    assert page_declarations(root).description == "Hand-thrown & glazed. Twelve ounces."
    story = {"@type": "NewsArticle", "description": "A story about mugs."}
    assert page_declarations(parse_html(f"<html><head>{json_ld(story)}</head></html>")).description == ""
