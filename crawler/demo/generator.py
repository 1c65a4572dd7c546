"""Build the demo web's site models: content, structure, rendered bytes and gold (no sockets).

Every site is built like a news site: a home index (page 1 is "/", every further page
is linked from its pager), category indexes (page 1 linked from every page's navigation),
and tag, author and month indexes (page 1 linked from every page's site index), each
paginated with every page number in its pager; articles carry, besides their body (whose
first paragraph may link an older story), a topic box (tags, author, month), related
stories and the "most read" box. Each article is on a home index page, so it is at link
depth 2 from home, as is every index page the site index lists (the SITE_INDEX_LINKS
largest of each kind); an index it leaves out (a small tag, once a site has more topics
than that: from about 60 articles per site) is linked from its articles only, at depth 3.
Fault pages are linked from the home page (depth 1). A crawl that follows every link
spends much of its budget on index pages.

Gold text (the text format of the feed): article text is the body blocks in page order
(standfirst, paragraphs, subheadings, figure caption) without the <h1> title and byline,
one block per paragraph separated by a blank line; list text is one paragraph per item,
"TITLE\\nSUMMARY" (just TITLE on sites whose lists show no summary). The huge fault page
has no gold (its size is the point); error pages and fault pages have none either.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from email.utils import format_datetime
from typing import Any
from xml.sax.saxutils import escape as xml_escape

from crawler.demo.content import (
    CHINESE,
    ENGLISH,
    GBK,
    JAPANESE,
    RUSSIAN,
    SHIFT_JIS,
    UTF_8,
    WINDOWS_1251,
    TextWriter,
    utc_offset,
)
from crawler.demo.faults import Faults
from crawler.demo.files import bar_chart_png, minimal_pdf
from crawler.demo.model import (
    Article,
    Block,
    Category,
    Comment,
    Link,
    Listing,
    Page,
    SiteModel,
    SiteSpec,
)
from crawler.demo.themes import THEMES
from crawler.demo.themes.base import SiteView, Theme

#: Paths of the pages behind each fault knob (and the robots-blocked page).
HANG_PATH = "/live/updates.html"
HUGE_PATH = "/longread/complete-archive.html"
PDF_PATH = "/files/annual-report-2025.pdf"
PNG_PATH = "/files/infographic.png"
PRIVATE_PATH = "/private/drafts.html"
REDIRECT_PATH = "/moved/old-story.html"
STALLED_PATH = "/live/newsroom-feed.html"
STALLED_IMAGE_PATH = "/live/newsroom-feed.png"
STALLED_SCRIPT_PAGE_PATH = "/live/wire-desk.html"
STALLED_SCRIPT_PATH = "/live/wire-desk.js"
#: The seed lists every site publishes (site-relative URLs: pages never embed host or port).
SITEMAP_INDEX_PATH = "/sitemap.xml"
SITEMAP_PAGES_PATH = "/sitemap-pages.xml"
NEWS_SITEMAP_PATH = "/sitemap-news.xml"
RSS_PATH = "/feed.xml"
#: Newest articles the RSS feed carries.
RSS_ITEMS = 20
#: Where a site's syndicated copy of its newest article lives (linked from its home page).
SYNDICATED_DIR = "/syndicated/"

# The script_redirect page's script: the same host and port over TLS, which a plain-HTTP
# server cannot answer, so the browser ends on its own error page.
_DEAD_REDIRECT = '<script>location.replace("https://" + location.host + "/moved/new-story.html");</script>\n'

#: Topics per article, and one topic per this many articles (at least MIN_TOPICS): a few
#: topics are common, most are rare (an article draws topic ``r`` with weight 1/r).
TOPICS_PER_ARTICLE = 3
ARTICLES_PER_TOPIC = 2
MIN_TOPICS = 6
#: One author per this many articles (at least MIN_AUTHORS).
ARTICLES_PER_AUTHOR = 10
MIN_AUTHORS = 4
#: Most links of each group (topics, authors, months) in the site index; the rest are
#: reached through the articles.
SITE_INDEX_LINKS = 20
#: Share of articles whose first paragraph links an older story of their category.
BODY_LINK_SHARE = 0.6
#: Most pages of one index: bigger sites get longer pages beyond that.
MAX_INDEX_PAGES = 10
#: Fewest items on the last page of an index; fewer join the page before.
MIN_LAST_PAGE = 2

#: Bytes of body text the huge page carries at least.
HUGE_PAGE_BYTES = 4_000_000

#: Newest article date; older ones step back from here (fixed so output never depends on today).
NEWEST = datetime(2025, 11, 28, 9, 30)

ROBOTS_TXT = b"User-agent: *\nDisallow: /private/\n\nSitemap: /sitemap.xml\n"

SITES: tuple[SiteSpec, ...] = (
    SiteSpec(
        name="portal",
        title="Daily Meridian",
        theme="portal",
        language=ENGLISH,
        charset=UTF_8,
        categories=(("world", "World"), ("business", "Business"), ("technology", "Technology")),
        home_page_size=4,
        category_page_size=3,
        has_lead=True,
        has_figure=True,
        hosts=frozenset({"hang", "png", "private", "redirect", "stalled", "stalled-script"}),
    ),
    SiteSpec(
        name="blog",
        title="さくら日和",
        theme="blog",
        language=JAPANESE,
        charset=SHIFT_JIS,
        categories=(("travel", "旅行"), ("cooking", "料理"), ("daily", "日々のこと")),
        home_page_size=4,
        category_page_size=3,
        has_lead=False,
        has_figure=True,
    ),
    SiteSpec(
        name="gov",
        title="云溪市人民政府",
        theme="gov",
        language=CHINESE,
        charset=GBK,
        categories=(("tzgg", "通知公告"), ("zcwj", "政策文件"), ("gzdt", "工作动态")),
        home_page_size=5,
        category_page_size=3,
        has_lead=False,
        has_figure=False,
        hosts=frozenset({"pdf"}),
    ),
    SiteSpec(
        name="magazine",
        title="Горизонт",
        theme="magazine",
        language=RUSSIAN,
        charset=WINDOWS_1251,
        categories=(
            ("kultura", "Культура"),
            ("nauka", "Наука"),
            ("gorod", "Город"),
            ("puteshestviya", "Путешествия"),
        ),
        home_page_size=3,
        category_page_size=2,
        has_lead=True,
        has_figure=True,
        hosts=frozenset({"huge"}),
    ),
)

_MESSAGES = {
    500: ("500 Internal Server Error", "Something went wrong on our side."),
    503: ("503 Service Unavailable", "The service is temporarily overloaded."),
    404: ("404 Not Found", "There is no page at this address."),
}


def site_names() -> list[str]:
    """Short names of the demo sites, in serving order."""
    return [spec.name for spec in SITES]


def build_web(seed: int = 2026, articles_per_site: int = 12, faults: Faults | None = None) -> list[SiteModel]:
    """Every demo site, generated for ``seed``."""
    return [build_site(spec, seed, articles_per_site, faults or Faults()) for spec in SITES]


def build_site(spec: SiteSpec, seed: int, articles_per_site: int, faults: Faults) -> SiteModel:
    """One site: every page rendered and encoded, gold attached to content pages.

    Content comes from random streams of its own, so faults add or replace pages but
    never change the others.
    """
    if articles_per_site < 1:
        raise ValueError(f"articles_per_site must be at least 1, got {articles_per_site}")
    theme_class = THEMES[spec.theme]
    categories = [Category(slug, name, theme_class.category_path(slug, 1)) for slug, name in spec.categories]
    articles = _write_articles(spec, theme_class, categories, seed, articles_per_site)
    indexes = _cross_link(spec, theme_class, articles, seed)
    topics, authors, archives = (
        _site_index(indexes, articles, kind) for kind in ("tag", "author", "archive")
    )
    popular = random.Random(f"{seed}/{spec.name}/popular").sample(articles, min(5, len(articles)))
    syndicated = _syndicated_copy(spec, articles[0], seed)
    home_links = [Link(theme_class.link_labels[kind], path) for kind, path in _home_link_paths(spec, faults)]
    home_links.append(Link(theme_class.link_labels["syndicated"], syndicated.path))
    footer_links = [Link(theme_class.link_labels["private"], PRIVATE_PATH)] if "private" in spec.hosts else []
    view = SiteView(spec, categories, popular, home_links, footer_links, topics, authors, archives)
    theme = theme_class(view)
    fault_articles = _fault_articles(spec, articles, seed, faults)

    model = SiteModel(spec, not_found=_notice(theme, spec, 404))
    model.add(Page("/robots.txt", ROBOTS_TXT, "text/plain; charset=utf-8"))
    for page in theme.assets(articles + list(fault_articles.values())):
        model.add(page)
    for listing in _listings(spec, theme_class, categories, articles, indexes):
        html = theme.list_page(listing)
        model.add(Page(listing.path, _encode(html, spec), _html_type(spec), gold=_list_gold(spec, listing)))
    for article in articles:
        related = [a for a in articles if a.category == article.category and a is not article][:4]
        html = theme.article_page(article, related)
        model.add(
            Page(
                article.path,
                _encode(html, spec),
                _html_type(spec),
                gold=_article_gold(spec, article),
            )
        )
    copy_gold = dict(_article_gold(spec, syndicated), near_duplicate_of=articles[0].path)
    model.add(
        Page(
            syndicated.path,
            _encode(theme.article_page(syndicated, []), spec),
            _html_type(spec),
            gold=copy_gold,
        )
    )
    _add_seed_lists(model, articles)  # before the faults: they list a page that answers 5xx too
    _add_faults(
        model, theme, fault_articles, faults, seed, _unlisted_indexes(articles, topics + authors + archives)
    )
    return model


def _unlisted_indexes(articles: list[Article], site_indexed: list[Link]) -> dict[str, list[str]]:
    """Article path -> the tag, author and month indexes it links that the site index
    does not: a crawl finds those only through their articles."""
    listed = {link.path for link in site_indexed}
    found = {}
    for article in articles:
        paths = [tag.path for tag in article.tags] + [article.author_path]
        paths += [article.archive.path] if article.archive else []
        found[article.path] = [path for path in paths if path not in listed]
    return found


def _syndicated_copy(spec: SiteSpec, original: Article, seed: int) -> Article:
    """The article as a partner republishes it: the same body under another byline, in a frame
    without related stories or comments (the pages differ, their main text does not)."""
    writer = TextWriter(spec.language, spec.charset, f"{seed}/{spec.name}/syndicated")
    return Article(
        key=f"{original.key}-syndicated",
        path=f"{SYNDICATED_DIR}{original.key}.html",
        title=original.title,
        author=writer.person(),
        published=original.published,
        category=original.category,
        summary=original.summary,
        blocks=original.blocks,
        author_path=original.author_path,
        tags=original.tags,
        archive=original.archive,
    )


def _add_seed_lists(model: SiteModel, articles: list[Article]) -> None:
    """A sitemap index naming a sitemap of every gold page and a Google News sitemap of
    the articles, an RSS 2.0 feed of the newest articles (robots.txt names the index)."""
    xml = "application/xml; charset=utf-8"
    model.add(Page(SITEMAP_INDEX_PATH, _sitemap_index([SITEMAP_PAGES_PATH, NEWS_SITEMAP_PATH]), xml))
    model.add(Page(SITEMAP_PAGES_PATH, _pages_sitemap(model), xml))
    model.add(Page(NEWS_SITEMAP_PATH, _news_sitemap(model.spec, articles), xml))
    model.add(Page(RSS_PATH, _rss(model.spec, articles[:RSS_ITEMS]), "application/rss+xml; charset=utf-8"))


_XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
_SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
_NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"


def _sitemap_index(paths: list[str]) -> bytes:
    entries = "".join(f"<sitemap><loc>{xml_escape(path)}</loc></sitemap>\n" for path in paths)
    return (f'{_XML_DECLARATION}<sitemapindex xmlns="{_SITEMAP_NS}">\n{entries}</sitemapindex>\n').encode()


def _pages_sitemap(model: SiteModel) -> bytes:
    entries = []
    for record in model.gold_records():
        lastmod = f"<lastmod>{record['published']}</lastmod>" if record.get("published") else ""
        entries.append(f"<url><loc>{xml_escape(record['url'])}</loc>{lastmod}</url>\n")
    return f'{_XML_DECLARATION}<urlset xmlns="{_SITEMAP_NS}">\n{"".join(entries)}</urlset>\n'.encode()


def _news_sitemap(spec: SiteSpec, articles: list[Article]) -> bytes:
    entries = "".join(
        f"<url><loc>{xml_escape(a.path)}</loc><news:news><news:publication>"
        f"<news:name>{xml_escape(spec.title)}</news:name><news:language>{spec.language.code}</news:language>"
        f"</news:publication><news:publication_date>{a.published_iso}</news:publication_date>"
        f"<news:title>{xml_escape(a.title)}</news:title></news:news></url>\n"
        for a in articles
    )
    return (
        f'{_XML_DECLARATION}<urlset xmlns="{_SITEMAP_NS}" xmlns:news="{_NEWS_NS}">\n{entries}</urlset>\n'
    ).encode()


def _rss(spec: SiteSpec, articles: list[Article]) -> bytes:
    items = "".join(
        f"<item><title>{xml_escape(a.title)}</title><link>{xml_escape(a.path)}</link>"
        f"<guid>{xml_escape(a.path)}</guid><pubDate>{format_datetime(a.published)}</pubDate>"
        f"<description>{xml_escape(a.summary)}</description></item>\n"
        for a in articles
    )
    return (
        f'{_XML_DECLARATION}<rss version="2.0"><channel><title>{xml_escape(spec.title)}</title>'
        f"<link>/</link><description>{xml_escape(spec.title)}</description>"
        f"<language>{spec.language.code}</language>\n{items}</channel></rss>\n"
    ).encode()


def _write_articles(
    spec: SiteSpec, theme: type[Theme], categories: list[Category], seed: int, count: int
) -> list[Article]:
    """``count`` articles, newest first, dealt round-robin to the categories."""
    structure = random.Random(f"{seed}/{spec.name}/structure")
    writer = TextWriter(spec.language, spec.charset, f"{seed}/{spec.name}")
    authors = [writer.person() for _ in range(max(MIN_AUTHORS, count // ARTICLES_PER_AUTHOR))]
    published = NEWEST.replace(tzinfo=utc_offset(spec.language))
    articles = []
    for number in range(1, count + 1):
        category = categories[(number - 1) % len(categories)]
        path = theme.article_path(number, category, published)
        articles.append(
            _write_article(writer, structure, spec, theme, number, path, category, published, authors)
        )
        published -= timedelta(minutes=structure.randint(3 * 60, 30 * 60))
    return articles


def _slug(name: str, fallback: str) -> str:
    """``name`` as a URL slug when it is ASCII (``fallback`` otherwise, or when empty)."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") if name.isascii() else ""
    return slug or fallback


def _cross_link(
    spec: SiteSpec, theme: type[Theme], articles: list[Article], seed: int
) -> list[tuple[str, str, Link]]:
    """Give each article its topics, author index, month index and maybe a body link to
    an older story of its category; the site's topic, author and month indexes as
    (kind, slug, link to page 1), newest month first."""
    links = random.Random(f"{seed}/{spec.name}/links")
    writer = TextWriter(spec.language, spec.charset, f"{seed}/{spec.name}/topics")
    names: list[str] = []
    while len(names) < max(MIN_TOPICS, round(len(articles) / ARTICLES_PER_TOPIC)):
        word = writer.word()
        if word and word not in names:
            names.append(word)
    indexes = [("tag", _slug(name, str(101 + n)), name) for n, name in enumerate(names)]
    authors = list(dict.fromkeys(a.author for a in articles))
    indexes += [("author", _slug(name, str(n + 1)), name) for n, name in enumerate(authors)]
    months = dict.fromkeys((a.published.year, a.published.month) for a in articles)
    indexes += [("archive", f"{year}/{month:02d}", theme.month_label(year, month)) for year, month in months]
    linked = [(kind, slug, Link(label, theme.index_path(kind, slug, 1))) for kind, slug, label in indexes]
    by_label = {(kind, link.label): link for kind, _, link in linked}
    topics = [link for kind, _, link in linked if kind == "tag"]
    stop = spec.language.full_stop
    for index, article in enumerate(articles):
        article.tags = _draw_topics(links, topics)
        article.author_path = by_label["author", article.author].path
        article.archive = by_label[
            "archive", theme.month_label(article.published.year, article.published.month)
        ]
        older = [a for a in articles[index + 1 : index + 13] if a.category == article.category]
        if older and links.random() < BODY_LINK_SHARE:
            target = links.choice(older)
            first = next(n for n, block in enumerate(article.blocks) if block.kind == "p")
            text = article.blocks[first].text
            phrase = text[: text.index(stop) + len(stop)] if stop in text else text
            article.blocks[first] = Block("p", text, Link(phrase, target.path))
    used = {tag for article in articles for tag in article.tags}
    return [(kind, slug, link) for kind, slug, link in linked if kind != "tag" or link in used]


def _draw_topics(chooser: random.Random, topics: list[Link]) -> list[Link]:
    """TOPICS_PER_ARTICLE distinct topics, topic ``r`` (1-based) drawn with weight 1/r."""
    weights = [1 / rank for rank in range(1, len(topics) + 1)]
    drawn: list[Link] = []
    while len(drawn) < TOPICS_PER_ARTICLE:
        topic = chooser.choices(topics, weights)[0]
        if topic not in drawn:
            drawn.append(topic)
    return drawn


def _write_article(
    writer: TextWriter,
    structure: random.Random,
    spec: SiteSpec,
    theme: type[Theme],
    number: int,
    path: str,
    category: Category,
    published: datetime,
    authors: list[str],
) -> Article:
    title = writer.headline()
    blocks = []
    if spec.has_lead:
        blocks.append(Block("lead", writer.paragraph(1, 2)))
        if spec.has_figure:
            blocks.append(Block("figure", writer.sentence(5, 10)))
    paragraphs = structure.randint(4, 7)
    heading_before = {3, 5} if paragraphs >= 6 else {3}
    for index in range(1, paragraphs + 1):
        if index in heading_before:
            heading_number = sum(block.kind == "h2" for block in blocks) + 1
            blocks.append(Block("h2", theme.subheading(heading_number, writer.headline())))
        blocks.append(Block("p", writer.paragraph()))
        if index == 1 and spec.has_figure and not spec.has_lead:
            blocks.append(Block("figure", writer.sentence(5, 10)))
    comments = [
        Comment(writer.person(), writer.sentence(5, 16), published + timedelta(hours=hours + 1))
        for hours in range(structure.randint(0, 4))
    ]
    return Article(
        key=f"{spec.name}-{number:05d}",
        path=path,
        title=title,
        author=structure.choice(authors),
        published=published,
        category=category,
        summary=writer.paragraph(1, 2),
        blocks=blocks,
        comments=comments,
    )


def _listings(
    spec: SiteSpec,
    theme: type[Theme],
    categories: list[Category],
    articles: list[Article],
    indexes: list[tuple[str, str, Link]],
) -> list[Listing]:
    """Home index pages, each category's, then each topic's, author's and month's index pages."""
    listings = _paginate(articles, spec.home_page_size, theme.home_path, theme.home_heading, category=None)
    for category in categories:
        listings += _paginate(
            [a for a in articles if a.category == category],
            spec.category_page_size,
            functools.partial(theme.category_path, category.slug),
            functools.partial(theme.category_heading, category),
            category=category,
        )
    for kind, slug, link in indexes:
        listings += _paginate(
            [a for a in articles if _indexed(a, kind, link)],
            2 * spec.home_page_size,
            functools.partial(theme.index_path, kind, slug),
            functools.partial(theme.index_heading, kind, link.label),
            category=None,
        )
    return listings


def _site_index(indexes: list[tuple[str, str, Link]], articles: list[Article], kind: str) -> list[Link]:
    """The ``kind`` indexes the site index links: the SITE_INDEX_LINKS with most articles
    (months: the newest)."""
    links = [link for k, _, link in indexes if k == kind]
    if kind != "archive":
        size = {link.path: sum(_indexed(a, kind, link) for a in articles) for link in links}
        links = sorted(links, key=lambda link: -size[link.path])
    return links[:SITE_INDEX_LINKS]


def _indexed(article: Article, kind: str, link: Link) -> bool:
    """Whether ``article`` is on the ``kind`` index that ``link`` opens."""
    if kind == "tag":
        return link in article.tags
    if kind == "author":
        return article.author_path == link.path
    return article.archive == link


def _paginate(
    articles: list[Article],
    size: int,
    path_of: Callable[[int], str],
    heading_of: Callable[[int], str],
    category: Category | None,
) -> list[Listing]:
    size = max(size, math.ceil(len(articles) / MAX_INDEX_PAGES))
    chunks = [articles[start : start + size] for start in range(0, len(articles), size)] or [[]]
    if len(chunks) > 1 and len(chunks[-1]) < MIN_LAST_PAGE:
        chunks[-2:] = [chunks[-2] + chunks[-1]]  # no near-empty last page: it joins the one before
    paths = [path_of(page) for page in range(1, len(chunks) + 1)]
    return [
        Listing(paths[page - 1], heading_of(page), chunk, page, paths, category)
        for page, chunk in enumerate(chunks, start=1)
    ]


def _home_link_paths(spec: SiteSpec, faults: Faults) -> list[tuple[str, str]]:
    """(kind, path) of the fault pages this site links from its home page."""
    wanted = {
        "hang": faults.hang,
        "huge": faults.huge,
        "pdf": faults.non_html,
        "png": faults.non_html,
        "redirect": faults.script_redirect,
        "stalled": faults.stalled,
        "stalled-script": faults.stalled,
    }
    paths = {
        "hang": HANG_PATH,
        "huge": HUGE_PATH,
        "pdf": PDF_PATH,
        "png": PNG_PATH,
        "redirect": REDIRECT_PATH,
        "stalled": STALLED_PATH,
        "stalled-script": STALLED_SCRIPT_PAGE_PATH,
    }
    return [(kind, paths[kind]) for kind in paths if wanted[kind] and kind in spec.hosts]


def _fault_articles(spec: SiteSpec, articles: list[Article], seed: int, faults: Faults) -> dict[str, Article]:
    """Article-shaped fault pages this site hosts (live ticker, huge longread), by kind."""
    structure = random.Random(f"{seed}/{spec.name}/fault-pages")
    writer = TextWriter(spec.language, spec.charset, f"{seed}/{spec.name}/fault-pages")
    newest = articles[0]

    def article(key: str, path: str, blocks: Callable[[], list[Block]]) -> Article:
        title, summary = writer.headline(), writer.sentence()
        return Article(
            key=f"{spec.name}-{key}",
            path=path,
            title=title,
            author=newest.author,
            published=newest.published,
            category=newest.category,
            summary=summary,
            blocks=blocks(),
        )

    def six_paragraphs() -> list[Block]:
        return [Block("p", writer.paragraph()) for _ in range(6)]

    extras = {}
    if faults.hang and "hang" in spec.hosts:
        extras["hang"] = article("live", HANG_PATH, six_paragraphs)
    if faults.stalled and "stalled" in spec.hosts:
        extras["stalled"] = article("newsroom", STALLED_PATH, six_paragraphs)
    if faults.huge and "huge" in spec.hosts:
        pool = [writer.paragraph(4, 8) for _ in range(60)]
        blocks: list[Block] = []
        size = 0
        while size < HUGE_PAGE_BYTES:
            if len(blocks) % 40 == 0:
                blocks.append(Block("h2", writer.headline()))
            text = structure.choice(pool)
            blocks.append(Block("p", text))
            size += len(text.encode(spec.charset.codec))
        extras["huge"] = article("longread", HUGE_PATH, lambda: blocks)
    if faults.stalled and "stalled-script" in spec.hosts:
        extras["stalled-script"] = article("wire", STALLED_SCRIPT_PAGE_PATH, six_paragraphs)
    return extras


def _add_faults(
    model: SiteModel,
    theme: Theme,
    fault_articles: dict[str, Article],
    faults: Faults,
    seed: int,
    unlisted_indexes: dict[str, list[str]],
) -> None:
    """Error pages, hanging/huge/non-HTML pages and the robots-blocked page. An article
    that is the last way into an index the site index does not list never fails: the
    error fault must not cut pages off the web (no crawl could reach them)."""
    spec = model.spec
    chooser = random.Random(f"{seed}/{spec.name}/errors")
    articles = sorted(
        path for path, page in model.pages.items() if page.gold and page.gold["page_type"] == "article"
    )
    wanted = round(faults.error_rate * len(articles))
    ways_in = Counter(index for path in articles for index in unlisted_indexes.get(path, ()))
    failing: list[str] = []
    for path in chooser.sample(articles, len(articles)) if wanted else []:
        if len(failing) == wanted:
            break
        indexes = unlisted_indexes.get(path, [])
        if all(ways_in[index] > 1 for index in indexes):
            ways_in.subtract(indexes)
            failing.append(path)
    for path in sorted(failing):
        status = chooser.choice((500, 503))
        error = _notice(theme, spec, status)
        model.pages[path] = Page(path, error.body, error.content_type, status=status)
        model.error_paths.append(path)
    if "hang" in fault_articles:
        whole = _encode(theme.article_page(fault_articles["hang"], []), spec)
        model.add(Page(HANG_PATH, whole[: len(whole) // 2], _html_type(spec), hang=True))
        model.hang_paths.append(HANG_PATH)
    if "stalled" in fault_articles:
        image = f'<img src="{STALLED_IMAGE_PATH}" alt="" width="640" height="360">\n'
        html = theme.article_page(fault_articles["stalled"], []).replace("</body>", image + "</body>", 1)
        model.add(Page(STALLED_PATH, _encode(html, spec), _html_type(spec)))
        model.add(Page(STALLED_IMAGE_PATH, b"", "image/png", hang=True))
        model.stalled_paths.append(STALLED_PATH)
    if "stalled-script" in fault_articles:
        # A parser-blocking script that never arrives, before the page's content: the
        # parser stops there and the render at the deadline shows only the page's top.
        script = f'<script src="{STALLED_SCRIPT_PATH}"></script>\n'
        html = re.sub(
            r"<body[^>]*>",
            lambda tag: tag[0] + script,
            theme.article_page(fault_articles["stalled-script"], []),
            count=1,
        )
        model.add(Page(STALLED_SCRIPT_PAGE_PATH, _encode(html, spec), _html_type(spec)))
        model.add(Page(STALLED_SCRIPT_PATH, b"", "text/javascript", hang=True))
        model.stalled_paths.append(STALLED_SCRIPT_PAGE_PATH)
    if "huge" in fault_articles:
        huge = theme.article_page(fault_articles["huge"], [])
        model.add(Page(HUGE_PATH, _encode(huge, spec), _html_type(spec)))
        model.huge_paths.append(HUGE_PATH)
    kinds = dict(_home_link_paths(spec, faults))
    if "redirect" in kinds:
        html = theme.notice_page("Moved", "This story has moved.").replace(
            "</body>", _DEAD_REDIRECT + "</body>", 1
        )
        model.add(Page(REDIRECT_PATH, _encode(html, spec), _html_type(spec)))
        model.script_redirect_paths.append(REDIRECT_PATH)
    if "pdf" in kinds:
        lines = [f"{spec.name}: annual report 2025", f"Generated for seed {seed}.", "Page 1 of 1"]
        model.add(Page(PDF_PATH, minimal_pdf(lines), "application/pdf"))
        model.non_html_paths.append(PDF_PATH)
    if "png" in kinds:
        chart = random.Random(f"{seed}/{spec.name}/chart")
        values = [chart.randint(10, 100) for _ in range(6)]
        model.add(Page(PNG_PATH, bar_chart_png(values), "image/png"))
        model.non_html_paths.append(PNG_PATH)
    if "private" in spec.hosts:
        title = theme.link_labels["private"]
        body = _encode(theme.notice_page(title, "Unpublished drafts for editors only."), spec)
        model.add(Page(PRIVATE_PATH, body, _html_type(spec)))
        model.robots_blocked_paths.append(PRIVATE_PATH)


def _notice(theme: Theme, spec: SiteSpec, status: int) -> Page:
    title, message = _MESSAGES[status]
    return Page("", _encode(theme.notice_page(title, message), spec), _html_type(spec), status=status)


def _html_type(spec: SiteSpec) -> str:
    return f"text/html; charset={spec.charset.label}"


def _encode(html: str, spec: SiteSpec) -> bytes:
    """``html`` in the site's charset; refuses text the browser would read differently."""
    body = html.encode(spec.charset.codec)
    if body.decode(spec.charset.browser_codec) != html:
        raise ValueError(f"{spec.name}: page text does not survive {spec.charset.label} unchanged")
    return body


def _article_gold(spec: SiteSpec, article: Article) -> dict[str, Any]:
    return {
        "url": article.path,
        "site": spec.name,
        "page_type": "article",
        "title": article.title,
        "text": "\n\n".join(block.text for block in article.blocks),
        "author": article.author,
        "published": article.published_iso,
        "language": spec.language.code,
    }


def _list_gold(spec: SiteSpec, listing: Listing) -> dict[str, Any]:
    shows_summary = THEMES[spec.theme].list_summaries
    items = [
        {"title": a.title, "url": a.path, "text": a.summary if shows_summary else ""}
        for a in listing.articles
    ]
    return {
        "url": listing.path,
        "site": spec.name,
        "page_type": "list",
        "title": listing.heading,
        "text": "\n\n".join(f"{i['title']}\n{i['text']}" if i["text"] else i["title"] for i in items),
        "items": items,
        "language": spec.language.code,
    }
