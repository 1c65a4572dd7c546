"""Горизонт: a Russian magazine served in windows-1251 with a tile grid on list pages.

The article body after its first blocks, the "read also" box and the comments are
rendered by script on DOMContentLoaded from JSON data islands, so a rendered crawl sees
text the raw HTML only carries as data. List pages mix in a partner tile (an ad that
looks like an item).
"""

from __future__ import annotations

from datetime import datetime

from crawler.demo.markup import esc, join, svg_picture
from crawler.demo.model import Article, Block, Category, Listing
from crawler.demo.themes.base import Theme, json_for_script

#: Article blocks present in the raw HTML (at least up to the figure); the rest arrive by script.
STATIC_BLOCKS = 3

STYLE = """
* { box-sizing: border-box; }
body { margin: 0; background: #fff; color: #111;
  font-family: "PT Sans", "DejaVu Sans", Arial, sans-serif; }
a { color: inherit; text-decoration: none; }
.mag-header { display: flex; align-items: center; justify-content: space-between;
  padding: 22px 48px;
  border-bottom: 1px solid #111; }
.mag-logo { font-size: 44px; font-weight: 900; letter-spacing: .06em; text-transform: uppercase; }
.mag-logo span { color: #e63b2e; }
.mag-nav a { margin-left: 26px; font-size: 15px; text-transform: uppercase; letter-spacing: .08em; }
.mag-nav a.active { border-bottom: 3px solid #e63b2e; }
.mag-main { max-width: 1260px; margin: 0 auto; padding: 28px 48px 60px; }
.mag-heading { font-size: 56px; font-weight: 900; margin: 10px 0 28px; letter-spacing: -.02em; }
.tiles { display: grid; grid-template-columns: repeat(3, 1fr); gap: 36px 28px; }
.tile svg { width: 100%; height: auto; display: block; }
.tile-rubric { display: inline-block; margin-top: 12px; font-size: 12px; text-transform: uppercase;
  letter-spacing: .12em; color: #e63b2e; font-weight: bold; }
.tile-title { font-size: 23px; line-height: 1.2; margin: 8px 0; font-weight: 800; }
.tile-lead { font-size: 15px; line-height: 1.5; color: #444; margin: 0 0 8px; }
.tile time { font-size: 12px; color: #888; }
.tile--partner { background: #f4f1ea; padding: 14px; }
.tile--partner .tile-rubric { color: #777; }
.pagination { margin: 48px 0 0; font-size: 18px; }
.pagination a, .pagination span { margin-right: 14px; }
.pagination .current { font-weight: 900; border-bottom: 3px solid #e63b2e; }
.partner-block { margin: 48px 0 0; background: #111; color: #fff; padding: 28px; font-size: 20px; }
.partner-block small { display: block; font-size: 11px; color: #aaa; text-transform: uppercase; }
.story { max-width: 760px; margin: 0 auto; }
.story-rubric { color: #e63b2e; text-transform: uppercase; font-weight: bold; letter-spacing: .12em;
  font-size: 13px; }
.story-title { font-size: 52px; line-height: 1.05; font-weight: 900; margin: 12px 0 18px;
  letter-spacing: -.02em; }
.story-meta { font-size: 14px; color: #666; margin-bottom: 26px; }
.story-meta .author { color: #111; font-weight: bold; }
.article-body { font-family: "PT Serif", "DejaVu Serif", Georgia, serif; font-size: 20px;
  line-height: 1.65; }
.article-body .lead { font-family: "PT Sans", Arial, sans-serif; font-size: 25px; line-height: 1.4;
  font-weight: bold; }
.article-body h2 { font-family: "PT Sans", Arial, sans-serif; font-size: 30px; margin: 40px 0 12px;
  }
.article-body figure { margin: 30px -120px; }
.article-body figure svg { width: 100%; height: auto; display: block; }
.article-body figcaption { font-family: Arial, sans-serif; font-size: 13px; color: #777;
  margin-top: 8px; }
.share-bar { display: flex; gap: 10px; margin: 34px 0; }
.share-bar button { border: 2px solid #111; background: #fff; padding: 8px 16px; font-weight: bold;
  }
.read-also { max-width: 1000px; margin: 56px auto 0; border-top: 4px solid #111; }
.read-also h2, .comments h2 { font-size: 26px; font-weight: 900; }
.read-also ul { list-style: none; padding: 0; display: grid; grid-template-columns: repeat(3, 1fr);
  gap: 20px; }
.read-also li { font-size: 18px; font-weight: bold; border-top: 2px solid #e63b2e;
  padding-top: 10px; }
.comments { max-width: 760px; margin: 40px auto 0; }
.comment { border-bottom: 1px solid #ddd; padding: 12px 0; font-size: 15px; }
.comment b { display: block; }
.subscribe { background: #e63b2e; color: #fff; margin-top: 60px; padding: 36px 48px; }
.subscribe input { padding: 10px; width: 320px; border: 0; }
.subscribe button { padding: 10px 20px; border: 0; background: #111; color: #fff; }
.mag-footer { background: #111; color: #bbb; padding: 36px 48px 90px; font-size: 13px; }
.mag-footer a { color: #fff; margin-right: 18px; }
.consent { position: fixed; bottom: 16px; left: 16px; width: 420px; background: #fff;
  border: 2px solid #111;
  padding: 16px; font-size: 13px; z-index: 20; }
.consent button { margin-top: 8px; background: #111; color: #fff; border: 0; padding: 6px 14px; }
"""

RENDER_SCRIPT = """
document.addEventListener('DOMContentLoaded', function () {
  function data(id) { return JSON.parse(document.getElementById(id).textContent); }
  var body = document.querySelector('.article-body');
  data('article-rest').forEach(function (block) {
    var node;
    if (block.kind === 'h2') { node = document.createElement('h2'); }
    else { node = document.createElement('p'); }
    node.textContent = block.text;
    body.appendChild(node);
  });
  var also = document.getElementById('read-also-list');
  data('read-also-data').forEach(function (story) {
    var item = document.createElement('li');
    var link = document.createElement('a');
    link.href = story.url;
    link.textContent = story.title;
    item.appendChild(link);
    also.appendChild(item);
  });
  var comments = document.getElementById('comment-list');
  data('comments-data').forEach(function (comment) {
    var box = document.createElement('div');
    box.className = 'comment';
    var name = document.createElement('b');
    name.textContent = comment.author;
    var text = document.createElement('span');
    text.textContent = comment.text;
    box.appendChild(name);
    box.appendChild(text);
    comments.appendChild(box);
  });
});
"""

CONSENT_SCRIPT = """
document.getElementById('consent-ok').addEventListener('click', function () {
  document.getElementById('consent').style.display = 'none';
});
"""

MONTHS = (
    "января",
    "февраля",
    "марта",
    "апреля",
    "мая",
    "июня",
    "июля",
    "августа",
    "сентября",
    "октября",
    "ноября",
    "декабря",
)

#: Month names as an archive heading says them (nominative).
ARCHIVE_MONTHS = (
    "Январь",
    "Февраль",
    "Март",
    "Апрель",
    "Май",
    "Июнь",
    "Июль",
    "Август",
    "Сентябрь",
    "Октябрь",
    "Ноябрь",
    "Декабрь",
)


def _display_date(moment: datetime) -> str:
    return f"{moment.day} {MONTHS[moment.month - 1]} {moment.year}, {moment:%H:%M}"


class MagazineTheme(Theme):
    """Bold black-and-red magazine: three-column tile grid, wide hero pictures."""

    brand_colour = "#e63b2e"
    link_labels = {
        "hang": "Прямая трансляция",
        "huge": "Лонгрид: все материалы года",
        "pdf": "Печатная версия номера (PDF)",
        "png": "Инфографика номера",
        "private": "Редакция",
        "syndicated": "Перепечатка",
    }
    index_labels = {
        "topics": "Темы",
        "authors": "Авторы",
        "archive": "Архив",
        "more_by": "Все тексты: {name}",
    }
    index_headings = {
        "tag": "Тема: {name}",
        "author": "Автор: {name}",
        "archive": "Архив: {name}",
        "page": "{heading}, страница {page}",
    }

    @staticmethod
    def home_path(page: int) -> str:
        return "/" if page == 1 else f"/?page={page}"

    @staticmethod
    def category_path(slug: str, page: int) -> str:
        return f"/rubric/{slug}/" if page == 1 else f"/rubric/{slug}/?page={page}"

    @staticmethod
    def article_path(number: int, category: Category, published: datetime) -> str:
        return f"/{category.slug}/{number + 24000}-{published:%Y%m%d}/"

    @staticmethod
    def index_path(kind: str, slug: str, page: int) -> str:
        return f"/{kind}/{slug}/" if page == 1 else f"/{kind}/{slug}/?page={page}"

    @staticmethod
    def month_label(year: int, month: int) -> str:
        return f"{ARCHIVE_MONTHS[month - 1]} {year}"

    @staticmethod
    def home_heading(page: int) -> str:
        return "Свежие материалы" if page == 1 else f"Свежие материалы, страница {page}"

    @staticmethod
    def category_heading(category: Category, page: int) -> str:
        return category.name if page == 1 else f"{category.name}, страница {page}"

    # --- Chrome -----------------------------------------------------------------------
    def _top(self, active: str | None) -> str:
        nav = "".join(
            f'<a href="{c.path}"' + (' class="active"' if c.slug == active else "") + f">{esc(c.name)}</a>"
            for c in self.view.categories
        )
        return (
            '<header class="mag-header"><a class="mag-logo" href="/">Гори<span>зонт</span></a>'
            f'<nav class="mag-nav">{nav}</nav></header>'
        )

    def _bottom(self, extra_links: str = "", script: str = "") -> str:
        links = "".join(f'<a href="{link.path}">{esc(link.label)}</a>' for link in self.view.footer_links)
        return join(
            [
                '<section class="subscribe"><h2>Лучшие тексты недели — по пятницам</h2>'
                '<form action="/" method="get">'
                '<input type="email" name="email" placeholder="Ваш e-mail">'
                '<button type="submit">Подписаться</button></form></section>',
                self.site_index(),
                '<footer class="mag-footer"><p><a href="/">Главная</a>'
                + "".join(f'<a href="{c.path}">{esc(c.name)}</a>' for c in self.view.categories)
                + links
                + extra_links
                + "</p>",
                f"<p>&copy; 2025 Журнал «{esc(self.spec.title)}». 18+. Свидетельство о регистрации "
                "СМИ ЭЛ № ФС 77-00000.</p></footer>",
                '<div class="consent" id="consent">Мы используем файлы cookie, чтобы сайт работал '
                "лучше. Продолжая пользоваться сайтом, вы соглашаетесь с этим."
                '<br><button id="consent-ok" type="button">Хорошо</button></div>',
                f"<script>{CONSENT_SCRIPT}{script}</script>",
                "</body>\n</html>\n",
            ]
        )

    def _head(self, title: str, canonical: str | None, extra: str = "") -> str:
        return self.head(title, canonical, extra + f"<style>{STYLE}</style>\n")

    # --- Pages ------------------------------------------------------------------------
    def list_page(self, listing: Listing) -> str:
        tiles = [
            f'<article class="tile"><a href="{a.path}">{svg_picture(a.key, 400, 260)}</a>'
            f'<a class="tile-rubric" href="{a.category.path}">{esc(a.category.name)}</a>'
            f'<h2 class="tile-title"><a href="{a.path}">{esc(a.title)}</a></h2>'
            f'<p class="tile-lead">{esc(a.summary)}</p>'
            f"{self.time(a.published, _display_date(a.published))}</article>"
            for a in listing.articles
        ]
        if len(tiles) >= 3:
            tiles.insert(
                2,
                '<article class="tile tile--partner"><a href="https://partner.example/offer">'
                f"{svg_picture('partner', 400, 260)}</a>"
                '<span class="tile-rubric">Партнёрский материал</span>'
                '<h2 class="tile-title">'
                '<a href="https://partner.example/offer">Как выбрать ипотеку '
                "и не переплатить</a></h2>"
                '<p class="tile-lead">Рассказываем вместе с банком-партнёром.</p></article>',
            )
        extra = (
            "".join(f'<a href="{link.path}">{esc(link.label)}</a>' for link in self.view.home_links)
            if listing.is_home
            else ""
        )
        return join(
            [
                self._head(f"{listing.heading} — {self.spec.title}", listing.path),
                "<body>",
                self._top(listing.category.slug if listing.category else None),
                '<main class="mag-main">',
                f'<h1 class="mag-heading">{esc(listing.heading)}</h1>',
                '<div class="tiles">',
                join(tiles),
                "</div>",
                self.pagination(listing, "Назад", "Дальше"),
                '<aside class="partner-block"><small>Реклама'
                "</small>Курсы английского со скидкой 30% "
                "для читателей «Горизонта»</aside>",
                "</main>",
                self._bottom(extra),
            ]
        )

    def article_page(self, article: Article, related: list[Article]) -> str:
        meta = (
            f'<meta property="og:title" content="{esc(article.title)}">\n'
            f'<meta property="og:description" content="{esc(article.summary)}">\n'
            '<meta property="og:type" content="article">\n'
            f'<meta property="article:published_time" content="{article.published_iso}">\n'
            f'<meta property="article:author" content="{esc(article.author)}">\n'
        )
        figures = [i for i, block in enumerate(article.blocks) if block.kind == "figure"]
        split = max([STATIC_BLOCKS] + [i + 1 for i in figures])
        static = article.blocks[:split]
        rest = [{"kind": b.kind, "text": b.text} for b in article.blocks[split:]]
        also = [{"title": a.title, "url": a.path} for a in related]
        comments = [{"author": c.author, "text": c.text} for c in article.comments]
        return join(
            [
                self._head(f"{article.title} — {self.spec.title}", article.path, meta),
                "<body>",
                self._top(article.category.slug),
                '<main class="mag-main"><article class="story">',
                f'<a class="story-rubric" href="{article.category.path}">{esc(article.category.name)}</a>',
                f'<h1 class="story-title">{esc(article.title)}</h1>',
                '<div class="story-meta">Текст: '
                f'<a class="author" href="{article.author_path}">{esc(article.author)}</a> · '
                f"{self.time(article.published, _display_date(article.published))}</div>",
                '<div class="article-body">',
                join(self._block(article, block) for block in static),
                "</div>",
                f'<script type="application/json" id="article-rest">{json_for_script(rest)}</script>',
                self.article_links(article),
                '<div class="share-bar"><button type="button">ВКонтакте</button>'
                '<button type="button">Telegram</button>'
                '<button type="button">Одноклассники</button>'
                '<button type="button">Скопировать ссылку</button></div>',
                "</article>",
                '<section class="read-also"><h2>Читайте также</h2><ul id="read-also-list"></ul></section>',
                f'<script type="application/json" id="read-also-data">{json_for_script(also)}</script>',
                '<section class="comments"><h2>Комментарии</h2><div id="comment-list"></div></section>',
                f'<script type="application/json" id="comments-data">{json_for_script(comments)}</script>',
                "</main>",
                self._bottom(script=RENDER_SCRIPT),
            ]
        )

    def _block(self, article: Article, block: Block) -> str:
        if block.kind == "lead":
            return f'<p class="lead">{esc(block.text)}</p>'
        if block.kind == "h2":
            return f"<h2>{esc(block.text)}</h2>"
        if block.kind == "figure":
            return (
                f"<figure>{svg_picture(article.key, 1000, 520)}"
                f"<figcaption>{esc(block.text)}</figcaption></figure>"
            )
        return f"<p>{self.inline(block)}</p>"

    def notice_page(self, title: str, message: str) -> str:
        return join(
            [
                self._head(f"{title} — {self.spec.title}", None),
                "<body>",
                self._top(None),
                f'<main class="mag-main"><h1 class="mag-heading">{esc(title)}'
                f"</h1><p>{esc(message)}</p></main>",
                self._bottom(),
            ]
        )
