"""Daily Meridian: an English news portal with a sidebar, ads and a served stylesheet.

Its article pages carry OpenGraph, article:published_time, meta author and JSON-LD
NewsArticle metadata; a "More stories" box is filled by script when scrolled into view.
"""

from __future__ import annotations

from datetime import datetime

from crawler.demo.markup import esc, join, svg_picture
from crawler.demo.model import Article, Block, Category, Listing, Page
from crawler.demo.themes.base import Theme, json_for_script

STYLESHEET = """
* { box-sizing: border-box; }
body { margin: 0; font-family: "Helvetica Neue", Arial, sans-serif; color: #1d1d1f;
  background: #f3f3f0; }
a { color: #0b3d91; text-decoration: none; }
.ad-leaderboard { background: #e4e4e0; text-align: center; padding: 10px 0; }
.ad-label, .advert-label { display: block; font-size: 10px; color: #888;
  text-transform: uppercase; letter-spacing: .1em; }
.ad-slot { display: inline-block; width: 728px; height: 90px; line-height: 90px;
  background: repeating-linear-gradient(45deg, #ffd54f, #ffd54f 12px, #ffca28 12px, #ffca28 24px);
  color: #5d4037; font-weight: bold; font-size: 20px; }
.masthead { background: #fff; display: flex; align-items: center; justify-content: space-between;
  padding: 18px 40px; border-bottom: 4px solid #c8102e; }
.logo { font-family: Georgia, serif; font-size: 40px; font-weight: bold; color: #111;
  letter-spacing: -1px; }
.tagline { display: block; font-size: 12px; color: #666; }
.search input { padding: 6px 10px; border: 1px solid #bbb; width: 220px; }
.search button { padding: 6px 12px; background: #c8102e; color: #fff; border: 0; }
.topnav { background: #0b1f3a; }
.topnav ul { list-style: none; margin: 0; padding: 0 40px; display: flex; }
.topnav a { display: block; color: #fff; padding: 12px 16px; font-weight: bold; font-size: 14px;
  text-transform: uppercase; }
.topnav a.active { background: #c8102e; }
.layout { display: flex; gap: 32px; max-width: 1240px; margin: 24px auto; padding: 0 20px; }
main { flex: 1; min-width: 0; background: #fff; padding: 24px 32px; }
.sidebar { width: 320px; flex-shrink: 0; }
.breadcrumbs { font-size: 13px; color: #666; margin-bottom: 12px; }
.section-title { font-family: Georgia, serif; font-size: 30px; margin: 0 0 20px;
  border-bottom: 2px solid #111; padding-bottom: 8px; }
.card-grid { display: grid; grid-template-columns: 1fr 1fr; gap: 24px; }
.card { border-bottom: 1px solid #ddd; padding-bottom: 16px; }
.card--lead { grid-column: 1 / span 2; display: grid; grid-template-columns: 3fr 2fr; gap: 20px; }
.card img { width: 100%; height: auto; display: block; }
.card-kicker { color: #c8102e; font-size: 12px; font-weight: bold; text-transform: uppercase; }
.card-title { font-family: Georgia, serif; font-size: 21px; margin: 6px 0; line-height: 1.25; }
.card--lead .card-title { font-size: 30px; }
.card-title a { color: #111; }
.card-summary { font-size: 15px; color: #444; line-height: 1.45; margin: 6px 0; }
.card time, .byline time { font-size: 12px; color: #777; }
.pagination { margin: 28px 0 8px; font-size: 15px; }
.pagination a, .pagination span { display: inline-block; padding: 6px 12px; border: 1px solid #ccc;
  margin-right: 4px; }
.pagination .current { background: #0b1f3a; color: #fff; }
.advert { background: #fff; padding: 10px; margin-bottom: 24px; text-align: center; }
.advert-box { height: 250px; background: linear-gradient(135deg, #4fc3f7, #1565c0); color: #fff;
  display: flex; align-items: center; justify-content: center; font-size: 22px; font-weight: bold; }
.sponsored { background: #fffbea; border: 1px solid #f0e0a0; padding: 14px; margin-bottom: 24px; }
.sponsored h3 { font-size: 12px; text-transform: uppercase; color: #a07800; margin: 0 0 8px; }
.box { background: #fff; padding: 16px 20px; margin-bottom: 24px; }
.box h3 { margin: 0 0 10px; font-size: 15px; text-transform: uppercase;
  border-bottom: 2px solid #c8102e;
  padding-bottom: 6px; }
.box ol, .box ul { padding-left: 20px; margin: 0; }
.box li { margin-bottom: 8px; font-size: 14px; line-height: 1.35; }
.newsletter input { width: 100%; padding: 8px; margin: 8px 0; border: 1px solid #bbb; }
.newsletter button, .comment-form button { background: #0b1f3a; color: #fff; border: 0;
  padding: 8px 16px; }
.story .kicker { color: #c8102e; font-weight: bold; text-transform: uppercase; font-size: 13px; }
.headline { font-family: Georgia, serif; font-size: 40px; line-height: 1.15; margin: 8px 0 14px; }
.byline { font-size: 14px; color: #444; margin-bottom: 12px; }
.share { display: flex; gap: 8px; margin: 12px 0 20px; }
.share button { border: 1px solid #ccc; background: #fafafa; padding: 6px 12px; border-radius: 16px;
  font-size: 13px; }
.story-body { font-family: Georgia, serif; font-size: 19px; line-height: 1.6; max-width: 700px; }
.story-body .lead { font-size: 22px; color: #333; font-style: italic; }
.story-body h2 { font-family: "Helvetica Neue", Arial, sans-serif; font-size: 24px;
  margin-top: 32px; }
.story-body figure { margin: 24px 0; }
.story-body figure img { width: 100%; height: auto; display: block; }
.story-body figcaption { font-family: Arial, sans-serif; font-size: 13px; color: #666;
  padding-top: 6px; }
.tags { margin: 24px 0; font-size: 13px; }
.tags a { background: #eee; padding: 4px 10px; border-radius: 3px; }
.related, .more-stories, .comments { border-top: 1px solid #ddd; margin-top: 28px;
  padding-top: 8px; }
.related h2, .more-stories h2, .comments h2 { font-size: 18px; text-transform: uppercase; }
.related li, .more-stories li { margin-bottom: 8px; }
.comment { border-bottom: 1px solid #eee; padding: 10px 0; font-size: 14px; }
.comment-author { font-weight: bold; }
.comment-form textarea { width: 100%; height: 80px; margin: 8px 0; }
.site-footer { background: #0b1f3a; color: #cfd6e2; padding: 32px 40px 80px; font-size: 13px; }
.site-footer a { color: #fff; margin-right: 16px; }
.cookie-banner { position: fixed; left: 0; right: 0; bottom: 0; background: #222; color: #eee;
  padding: 14px 40px; font-size: 14px; display: flex; align-items: center; gap: 16px; z-index: 10; }
.cookie-banner button { background: #fff; border: 0; padding: 6px 14px; }
.cookie-banner[hidden] { display: none; }
"""

MORE_STORIES_SCRIPT = """
document.addEventListener('DOMContentLoaded', function () {
  var box = document.getElementById('more-stories');
  var stories = JSON.parse(document.getElementById('more-stories-data').textContent);
  var observer = new IntersectionObserver(function (entries) {
    if (!entries[0].isIntersecting) { return; }
    observer.disconnect();
    var list = document.createElement('ul');
    stories.forEach(function (story) {
      var item = document.createElement('li');
      var link = document.createElement('a');
      link.href = story.url;
      link.textContent = story.title;
      item.appendChild(link);
      list.appendChild(item);
    });
    box.appendChild(list);
    box.setAttribute('data-state', 'loaded');
  });
  observer.observe(box);
});
"""

COOKIE_SCRIPT = """
document.getElementById('cookie-accept').addEventListener('click', function () {
  document.getElementById('cookie-consent').hidden = true;
});
"""


MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def _display_date(moment: datetime) -> str:
    hour = moment.hour % 12 or 12
    half = "AM" if moment.hour < 12 else "PM"
    month = MONTHS[moment.month - 1]
    return f"{month} {moment.day}, {moment.year} {hour}:{moment.minute:02d} {half}"


class PortalTheme(Theme):
    """Daily Meridian's look: dark nav bar, leaderboard ad, two-column layout."""

    brand_colour = "#c8102e"
    link_labels = {
        "hang": "Live: markets minute by minute",
        "huge": "The complete archive in one page",
        "pdf": "Annual report (PDF)",
        "png": "Infographic: the week in numbers",
        "private": "Staff login",
        "redirect": "Moved: our old story",
        "stalled": "Live: the newsroom feed",
        "stalled-script": "Live: the wire desk",
        "syndicated": "From the wire: syndicated",
    }
    index_labels = {
        "topics": "Topics",
        "authors": "Our journalists",
        "archive": "Archive",
        "more_by": "More from {name}",
    }
    index_headings = {
        "tag": "Topic: {name}",
        "author": "Stories by {name}",
        "archive": "Archive: {name}",
        "page": "{heading}, page {page}",
    }

    @staticmethod
    def home_path(page: int) -> str:
        return "/" if page == 1 else f"/latest/page/{page}/"

    @staticmethod
    def category_path(slug: str, page: int) -> str:
        return f"/{slug}/" if page == 1 else f"/{slug}/page/{page}/"

    @staticmethod
    def article_path(number: int, category: Category, published: datetime) -> str:
        return f"/{category.slug}/{published:%Y/%m/%d}/story-{number:05d}.html"

    @staticmethod
    def month_label(year: int, month: int) -> str:
        return f"{MONTHS[month - 1]} {year}"

    @staticmethod
    def home_heading(page: int) -> str:
        return "Top stories" if page == 1 else f"Latest news, page {page}"

    @staticmethod
    def category_heading(category: Category, page: int) -> str:
        return category.name if page == 1 else f"{category.name}, page {page}"

    def assets(self, articles: list[Article]) -> list[Page]:
        pages = super().assets(articles)
        pages.append(Page("/static/site.css", STYLESHEET.encode("utf-8"), "text/css; charset=utf-8"))
        for article in articles:
            svg = svg_picture(article.key, 800, 450)
            pages.append(Page(_image_path(article), svg.encode("utf-8"), "image/svg+xml"))
        return pages

    # --- Chrome -----------------------------------------------------------------------
    def _top(self, active: str | None) -> str:
        items = ['<li><a href="/"' + (' class="active"' if active is None else "") + ">Home</a></li>"]
        for category in self.view.categories:
            css = ' class="active"' if category.slug == active else ""
            items.append(f'<li><a href="{category.path}"{css}>{esc(category.name)}</a></li>')
        return join(
            [
                '<div class="ad ad-leaderboard"><span class="ad-label">Advertisement</span>'
                '<div class="ad-slot">Switch to Fibre+ today: 3 months free</div></div>',
                '<header class="masthead"><div class="brand">'
                f'<a class="logo" href="/">{esc(self.spec.title)}</a>'
                '<span class="tagline">Independent journalism since 1998</span></div>'
                '<form class="search" action="/" role="search"><input type="search" name="q" '
                'placeholder="Search news"><button type="submit">Search</button></form></header>',
                '<nav class="topnav"><ul>' + "".join(items) + "</ul></nav>",
            ]
        )

    def _sidebar(self, extra: str = "") -> str:
        popular = "".join(f'<li><a href="{a.path}">{esc(a.title)}</a></li>' for a in self.view.popular)
        return join(
            [
                '<aside class="sidebar">',
                '<div class="advert"><span class="advert-label">Advertisement</span>'
                '<div class="advert-box">Fly to Lisbon from $199</div></div>',
                f'<section class="box most-read"><h3>Most read</h3><ol>{popular}</ol></section>',
                '<div class="sponsored"><h3>Sponsored</h3><p>Five ways to save on your energy bill '
                "this winter, brought to you by BrightHome.</p></div>",
                extra,
                '<section class="box newsletter"><h3>Morning briefing</h3>'
                "<p>The day's top stories in your inbox at 6 a.m.</p>"
                '<form action="/" method="get"><input type="email" name="email" '
                'placeholder="you@example.com">'
                '<button type="submit">Sign up</button></form></section>',
                "</aside>",
            ]
        )

    def _bottom(self, script: str = "") -> str:
        links = "".join(f'<a href="{link.path}">{esc(link.label)}</a>' for link in self.view.footer_links)
        return join(
            [
                self.site_index(),
                '<footer class="site-footer"><p><a href="/">Home</a>'
                + "".join(f'<a href="{c.path}">{esc(c.name)}</a>' for c in self.view.categories)
                + links
                + "</p>",
                f"<p>&copy; 2025 {esc(self.spec.title)} Media Group. All rights reserved. "
                "Registered office: 1 Harbour Street, Port Meridian.</p></footer>",
                '<div class="cookie-banner" id="cookie-consent" role="dialog">'
                "<span>We use cookies to personalise content and ads and to analyse our traffic."
                "</span>"
                '<button id="cookie-accept" type="button">Accept all</button>'
                '<button type="button">Manage preferences</button></div>',
                f"<script>{COOKIE_SCRIPT}{script}</script>",
                "</body>\n</html>\n",
            ]
        )

    # --- Pages ------------------------------------------------------------------------
    def list_page(self, listing: Listing) -> str:
        cards = []
        for index, article in enumerate(listing.articles):
            lead = listing.is_home and index == 0
            cards.append(
                f'<article class="card{" card--lead" if lead else ""}">'
                f'<a class="card-image" href="{article.path}"><img src="{_image_path(article)}" '
                f'alt="" width="800" height="450"></a><div class="card-body">'
                f'<span class="card-kicker">{esc(article.category.name)}</span>'
                f'<h2 class="card-title"><a href="{article.path}">{esc(article.title)}</a></h2>'
                f'<p class="card-summary">{esc(article.summary)}</p>'
                f"{self.time(article.published, _display_date(article.published))}"
                "</div></article>"
            )
        crumbs = ""
        if listing.category is not None:
            crumbs = (
                f'<nav class="breadcrumbs"><a href="/">Home</a> &rsaquo; {esc(listing.category.name)}</nav>'
            )
        extra = ""
        if listing.is_home and self.view.home_links:
            links = "".join(
                f'<li><a href="{link.path}">{esc(link.label)}</a></li>' for link in self.view.home_links
            )
            extra = f'<section class="box newsroom"><h3>From the newsroom</h3><ul>{links}</ul>'
            extra += "</section>"
        return join(
            [
                self.head(
                    f"{listing.heading} | {self.spec.title}",
                    listing.path,
                    '<meta name="description" content="Breaking news, analysis and opinion.">\n'
                    '<link rel="stylesheet" href="/static/site.css">\n',
                ),
                '<body class="page-list">',
                self._top(listing.category.slug if listing.category else None),
                '<div class="layout"><main id="content">',
                crumbs,
                f'<h1 class="section-title">{esc(listing.heading)}</h1>',
                '<div class="card-grid">',
                join(cards),
                "</div>",
                self.pagination(listing, "&laquo; Newer", "Older &raquo;"),
                "</main>",
                self._sidebar(extra),
                "</div>",
                self._bottom(),
            ]
        )

    def article_page(self, article: Article, related: list[Article]) -> str:
        jsonld = {
            "@context": "https://schema.org",
            "@type": "NewsArticle",
            "headline": article.title,
            "author": {"@type": "Person", "name": article.author},
            "datePublished": article.published_iso,
            "articleSection": article.category.name,
            "publisher": {"@type": "Organization", "name": self.spec.title},
            "inLanguage": self.spec.language.html_lang,
        }
        meta = (
            '<link rel="stylesheet" href="/static/site.css">\n'
            f'<meta name="author" content="{esc(article.author)}">\n'
            f'<meta name="description" content="{esc(article.summary)}">\n'
            f'<meta property="og:type" content="article">\n'
            f'<meta property="og:title" content="{esc(article.title)}">\n'
            f'<meta property="og:description" content="{esc(article.summary)}">\n'
            f'<meta property="og:image" content="{_image_path(article)}">\n'
            f'<meta property="og:site_name" content="{esc(self.spec.title)}">\n'
            f'<meta property="article:published_time" content="{article.published_iso}">\n'
            f'<meta property="article:section" content="{esc(article.category.name)}">\n'
            f'<script type="application/ld+json">{json_for_script(jsonld)}</script>\n'
        )
        body = [self._block(article, block) for block in article.blocks]
        body.append(
            '<div class="print-credit" style="display:none">Printed from '
            f"{esc(self.spec.title)}. Reproduction without permission is prohibited.</div>"
        )
        related_links = "".join(f'<li><a href="{a.path}">{esc(a.title)}</a></li>' for a in related)
        more = [{"title": a.title, "url": a.path} for a in self.view.popular if a is not article]
        comments = "".join(
            f'<div class="comment"><span class="comment-author">{esc(c.author)}</span> '
            f"{self.time(c.posted, _display_date(c.posted))}<p>{esc(c.text)}</p></div>"
            for c in article.comments
        )
        return join(
            [
                self.head(f"{article.title} | {self.spec.title}", article.path, meta),
                '<body class="page-article">',
                self._top(article.category.slug),
                '<div class="layout"><main id="content">',
                '<nav class="breadcrumbs"><a href="/">Home</a> &rsaquo; '
                f'<a href="{article.category.path}">{esc(article.category.name)}</a> &rsaquo; '
                f"<span>{esc(article.title)}</span></nav>",
                '<article class="story"><header class="story-header">',
                f'<span class="kicker">{esc(article.category.name)}</span>',
                f'<h1 class="headline">{esc(article.title)}</h1>',
                '<div class="byline">By '
                f'<a class="author" rel="author" href="{article.author_path}">{esc(article.author)}</a>'
                f" &middot; {self.time(article.published, _display_date(article.published))}</div>",
                '<div class="share"><button type="button">Share</button>'
                '<button type="button">Facebook</button><button type="button">X</button>'
                '<button type="button">Email</button>'
                '<button type="button">Copy link</button></div>',
                "</header>",
                '<div class="story-body">',
                join(body),
                "</div>",
                self.article_links(article),
                "</article>",
                f'<section class="related"><h2>Related coverage</h2><ul>{related_links}</ul></section>',
                '<section class="more-stories" id="more-stories" data-state="pending">'
                "<h2>More stories</h2></section>",
                f'<script type="application/json" id="more-stories-data">{json_for_script(more)}</script>',
                f'<section class="comments"><h2>Comments ({len(article.comments)})</h2>{comments}'
                '<form class="comment-form" action="/" method="get"><textarea name="comment" '
                'placeholder="Join the discussion"></textarea>'
                '<button type="submit">Post comment</button></form></section>',
                "</main>",
                self._sidebar(),
                "</div>",
                self._bottom(MORE_STORIES_SCRIPT),
            ]
        )

    def _block(self, article: Article, block: Block) -> str:
        if block.kind == "lead":
            return f'<p class="lead">{esc(block.text)}</p>'
        if block.kind == "h2":
            return f"<h2>{esc(block.text)}</h2>"
        if block.kind == "figure":
            return (
                f'<figure><img src="{_image_path(article)}" alt="" width="800" height="450">'
                f"<figcaption>{esc(block.text)}</figcaption></figure>"
            )
        return f"<p>{self.inline(block)}</p>"

    def notice_page(self, title: str, message: str) -> str:
        return join(
            [
                self.head(
                    f"{title} | {self.spec.title}",
                    None,
                    '<link rel="stylesheet" href="/static/site.css">\n',
                ),
                '<body class="page-notice">',
                self._top(""),
                '<div class="layout"><main id="content">',
                f'<h1 class="section-title">{esc(title)}</h1><p>{esc(message)}</p>',
                "</main></div>",
                self._bottom(),
            ]
        )


def _image_path(article: Article) -> str:
    return f"/static/img/{article.key}.svg"
