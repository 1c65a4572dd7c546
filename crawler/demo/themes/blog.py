"""さくら日和: a Japanese personal blog served in Shift_JIS, with a profile sidebar and
PR boxes (its ads) in the sidebar and in the middle of every entry."""

from __future__ import annotations

from datetime import datetime

from crawler.demo.markup import esc, join, palette
from crawler.demo.model import Article, Block, Category, Listing
from crawler.demo.themes.base import Theme

STYLE = """
body { margin: 0; background: #fbf6ef; color: #3b3330; font-family: "Noto Sans CJK JP",
  "Hiragino Kaku Gothic ProN", sans-serif; }
a { color: #c0587e; }
#blog-header { text-align: center; padding: 36px 0 24px;
  background: linear-gradient(180deg, #f9d9e3 0%, #fbf6ef 100%); }
.blog-title { font-size: 34px; font-weight: bold; margin: 0; letter-spacing: .1em; }
.blog-title a { color: #7a3b52; text-decoration: none; }
.blog-desc { color: #8a7a74; font-size: 14px; margin: 8px 0 0; }
.global-nav { background: #fff; border-top: 1px solid #eadfd6; border-bottom: 1px solid #eadfd6; }
.global-nav ul { list-style: none; display: flex; justify-content: center; margin: 0; padding: 0; }
.global-nav a { display: block; padding: 12px 22px; color: #5b4a44; text-decoration: none;
  font-size: 14px; }
#container { display: flex; gap: 28px; max-width: 1120px; margin: 28px auto; }
#main { flex: 1; min-width: 0; }
#sidebar { width: 300px; flex-shrink: 0; }
.page-heading { font-size: 20px; border-left: 6px solid #e891ad; padding-left: 12px;
  margin: 0 0 18px; }
.entry-list { display: grid; grid-template-columns: 1fr 1fr; gap: 20px; }
.entry-card { background: #fff; border-radius: 10px; overflow: hidden;
  box-shadow: 0 2px 6px rgba(120, 80, 60, .12); }
.thumb { display: block; height: 170px; }
.entry-card-body { padding: 14px 16px 18px; }
.entry-card-body time { color: #a08f88; font-size: 12px; }
.entry-card-title { font-size: 17px; margin: 6px 0 8px; line-height: 1.5; }
.entry-card-title a { color: #3b3330; text-decoration: none; }
.entry-card-summary { font-size: 13px; line-height: 1.8; color: #6b5d58; margin: 0 0 8px; }
.more { font-size: 12px; }
.pagination { text-align: center; margin: 30px 0; }
.pagination a, .pagination span { display: inline-block; min-width: 34px; padding: 6px 0;
  margin: 0 3px;
  border-radius: 17px; background: #fff; }
.pagination .current { background: #e891ad; color: #fff; }
.breadcrumb { font-size: 12px; color: #8a7a74; margin-bottom: 12px; }
.entry { background: #fff; border-radius: 10px; padding: 32px 40px; }
.entry-header time { color: #a08f88; font-size: 13px; }
.entry-title { font-size: 28px; line-height: 1.5; margin: 8px 0 12px; }
.entry-meta { font-size: 13px; color: #8a7a74; }
.social-buttons { display: flex; gap: 8px; margin: 16px 0 24px; }
.social-buttons span { color: #fff; font-size: 12px; padding: 5px 14px; border-radius: 4px; }
.sb-hatena { background: #00a4de; } .sb-x { background: #111; } .sb-line { background: #06c755; }
.sb-fb { background: #1877f2; }
.entry-content { font-size: 16px; line-height: 2.0; }
.entry-content h2 { font-size: 20px; background: #fdf0f4; border-left: 6px solid #e891ad;
  padding: 8px 14px; margin: 36px 0 16px; }
.entry-content figure { margin: 24px 0; }
.entry-content .photo { height: 340px; border-radius: 8px; }
.entry-content figcaption { font-size: 12px; color: #8a7a74; text-align: center; }
.pr-box { border: 1px dashed #d9c8bf; padding: 12px; margin: 24px 0; text-align: center;
  font-size: 13px; color: #8a7a74; }
.pr-box .pr-inner { height: 120px; margin-top: 6px;
  background: linear-gradient(90deg, #ffe082, #ffab91);
  display: flex; align-items: center; justify-content: center; color: #5d4037; font-size: 18px; }
.entry-footer { margin-top: 28px; font-size: 13px; color: #8a7a74; }
.related-entries, .comment-box, .contact-box { background: #fff; border-radius: 10px;
  padding: 20px 28px;
  margin-top: 22px; }
.related-entries h2, .comment-box h2, .contact-box h2 { font-size: 16px; margin-top: 0; }
.comment { border-bottom: 1px dotted #e0d4cc; padding: 10px 0; font-size: 14px; }
.contact-box input, .contact-box textarea { width: 100%; margin: 4px 0 10px; padding: 6px; }
.contact-box button { background: #e891ad; color: #fff; border: 0; padding: 8px 24px;
  border-radius: 18px; }
.widget { background: #fff; border-radius: 10px; padding: 18px 20px; margin-bottom: 22px;
  font-size: 14px; }
.widget h3 { font-size: 15px; margin: 0 0 12px; color: #7a3b52; }
.widget ul { padding-left: 18px; margin: 0; line-height: 1.9; }
.avatar { width: 96px; height: 96px; border-radius: 50%; margin: 0 auto 10px;
  background: radial-gradient(circle at 40% 35%, #ffe0e8 0, #f4a7bd 45%, #c0587e 100%); }
.profile { text-align: center; }
#blog-footer { text-align: center; font-size: 12px; color: #a08f88; padding: 30px 0 40px; }
"""


def _display_date(moment: datetime) -> str:
    return f"{moment.year}年{moment.month}月{moment.day}日 {moment.hour:02d}:{moment.minute:02d}"


def _thumb_style(key: str) -> str:
    dark, light, accent = palette(key)
    return f"background: linear-gradient(135deg, {accent} 0%, {light} 55%, {dark} 100%);"


class BlogTheme(Theme):
    """Pastel two-column blog: card grid on list pages, one long entry on article pages."""

    brand_colour = "#e891ad"
    link_labels = {
        "hang": "ライブ配信中",
        "huge": "全記事まとめ（1ページ版）",
        "pdf": "配布資料（PDF）",
        "png": "旅の写真（PNG）",
        "private": "管理画面",
        "syndicated": "転載記事",
    }
    index_labels = {
        "topics": "タグ",
        "authors": "書いた人",
        "archive": "アーカイブ",
        "more_by": "{name}の記事一覧",
    }
    index_headings = {
        "tag": "タグ：{name}",
        "author": "{name}の記事",
        "archive": "{name}の記事",
        "page": "{heading}（{page}ページ目）",
    }

    @staticmethod
    def home_path(page: int) -> str:
        return "/" if page == 1 else f"/page/{page}/"

    @staticmethod
    def category_path(slug: str, page: int) -> str:
        return f"/category/{slug}/" if page == 1 else f"/category/{slug}/page/{page}/"

    @staticmethod
    def article_path(number: int, category: Category, published: datetime) -> str:
        return f"/entry/{published:%Y/%m/%d}/{number:06d}"

    @staticmethod
    def home_heading(page: int) -> str:
        return "新着記事" if page == 1 else f"新着記事（{page}ページ目）"

    @staticmethod
    def category_heading(category: Category, page: int) -> str:
        return f"カテゴリー：{category.name}" + ("" if page == 1 else f"（{page}ページ目）")

    # --- Chrome -----------------------------------------------------------------------
    def _top(self) -> str:
        items = "".join(f'<li><a href="{c.path}">{esc(c.name)}</a></li>' for c in self.view.categories)
        return join(
            [
                '<header id="blog-header">',
                f'<p class="blog-title"><a href="/">{esc(self.spec.title)}</a></p>',
                '<p class="blog-desc">旅と料理と、ちいさな毎日の記録</p></header>',
                f'<nav class="global-nav"><ul><li><a href="/">トップ</a></li>{items}'
                '<li><a href="/">お問い合わせ</a></li></ul></nav>',
            ]
        )

    def _sidebar(self, extra: str = "") -> str:
        popular = "".join(f'<li><a href="{a.path}">{esc(a.title)}</a></li>' for a in self.view.popular)
        categories = "".join(f'<li><a href="{c.path}">{esc(c.name)}</a></li>' for c in self.view.categories)
        return join(
            [
                '<aside id="sidebar">',
                '<div class="widget profile"><div class="avatar"></div>'
                "<h3>プロフィール</h3><p>週末は旅に出て、平日は台所に立つ会社員です。"
                "写真とレシピを少しずつ書いています。</p></div>",
                '<div class="widget pr-box"><span class="pr-label">PR</span>'
                '<div class="pr-inner">いま人気の旅行プラン</div></div>',
                f'<div class="widget"><h3>人気記事</h3><ul>{popular}</ul></div>',
                f'<div class="widget"><h3>カテゴリー</h3><ul>{categories}</ul></div>',
                extra,
                "</aside>",
            ]
        )

    def _bottom(self) -> str:
        return join(
            [
                self.site_index(),
                f'<footer id="blog-footer">&copy; 2025 {esc(self.spec.title)} '
                "Powered by Sakura Blog</footer>",
                "</body>\n</html>\n",
            ]
        )

    def _head(self, title: str, canonical: str | None, extra: str = "") -> str:
        return self.head(title, canonical, extra + f"<style>{STYLE}</style>\n")

    # --- Pages ------------------------------------------------------------------------
    def list_page(self, listing: Listing) -> str:
        cards = [
            '<div class="entry-card">'
            f'<a class="thumb" href="{a.path}" style="{_thumb_style(a.key)}"'
            ' aria-hidden="true"></a><div class="entry-card-body">'
            f"{self.time(a.published, _display_date(a.published))}"
            f'<h2 class="entry-card-title"><a href="{a.path}">{esc(a.title)}</a></h2>'
            f'<p class="entry-card-summary">{esc(a.summary)}</p>'
            f'<a class="more" href="{a.path}">続きを読む</a></div></div>'
            for a in listing.articles
        ]
        extra = ""
        if listing.is_home and self.view.home_links:
            links = "".join(
                f'<li><a href="{link.path}">{esc(link.label)}</a></li>' for link in self.view.home_links
            )
            extra = f'<div class="widget"><h3>お知らせ</h3><ul>{links}</ul></div>'
        return join(
            [
                self._head(f"{listing.heading} - {self.spec.title}", listing.path),
                "<body>",
                self._top(),
                '<div id="container"><div id="main">',
                f'<h1 class="page-heading">{esc(listing.heading)}</h1>',
                '<div class="entry-list">',
                join(cards),
                "</div>",
                self.pagination(listing, "&lt; 前へ", "次へ &gt;"),
                "</div>",
                self._sidebar(extra),
                "</div>",
                self._bottom(),
            ]
        )

    def article_page(self, article: Article, related: list[Article]) -> str:
        meta = (
            f'<meta name="author" content="{esc(article.author)}">\n'
            f'<meta name="description" content="{esc(article.summary)}">\n'
            f'<meta property="og:title" content="{esc(article.title)}">\n'
            '<meta property="og:type" content="article">\n'
        )
        body = []
        middle = len(article.blocks) // 2
        for index, block in enumerate(article.blocks):
            if index == middle:
                body.append(
                    '<div class="pr-box"><span class="pr-label">スポンサーリンク</span>'
                    '<div class="pr-inner">はじめての方限定 20%オフクーポン配布中</div></div>'
                )
            body.append(self._block(article, block))
        related_links = "".join(f'<li><a href="{a.path}">{esc(a.title)}</a></li>' for a in related)
        comments = (
            "".join(
                f'<div class="comment"><b>{esc(c.author)}</b> '
                f"{self.time(c.posted, _display_date(c.posted))}<p>{esc(c.text)}</p></div>"
                for c in article.comments
            )
            or "<p>コメントはまだありません。</p>"
        )
        return join(
            [
                self._head(f"{article.title} - {self.spec.title}", article.path, meta),
                "<body>",
                self._top(),
                '<div id="container"><div id="main">',
                f'<div class="breadcrumb"><a href="/">トップ</a> &gt; '
                f'<a href="{article.category.path}">{esc(article.category.name)}</a> &gt; '
                f"{esc(article.title)}</div>",
                '<article class="entry"><header class="entry-header">',
                self.time(article.published, _display_date(article.published)),
                f'<h1 class="entry-title">{esc(article.title)}</h1>',
                f'<p class="entry-meta">書いた人：<a class="author" href="{article.author_path}">'
                f"{esc(article.author)}</a>"
                " ／ カテゴリー："
                f'<a href="{article.category.path}">{esc(article.category.name)}</a></p>',
                '<div class="social-buttons"><span class="sb-hatena">B! ブックマーク</span>'
                '<span class="sb-x">ポスト</span><span class="sb-fb">シェア</span>'
                '<span class="sb-line">LINEで送る</span></div>',
                "</header>",
                '<div class="entry-content">',
                join(body),
                "</div>",
                self.article_links(article),
                '<footer class="entry-footer">この記事が気に入ったら、読者登録をお願いします。</footer>',
                "</article>",
                f'<section class="related-entries"><h2>関連記事</h2><ul>{related_links}</ul></section>',
                f'<section class="comment-box"><h2>コメント</h2>{comments}</section>',
                '<section class="contact-box"><h2>お問い合わせ</h2><form action="/" method="get">'
                '<label>お名前<input type="text" name="name"></label>'
                '<label>メールアドレス<input type="email" name="mail"></label>'
                '<label>内容<textarea name="body"></textarea></label>'
                '<button type="submit">送信</button></form></section>',
                "</div>",
                self._sidebar(),
                "</div>",
                self._bottom(),
            ]
        )

    def _block(self, article: Article, block: Block) -> str:
        if block.kind == "h2":
            return f"<h2>{esc(block.text)}</h2>"
        if block.kind == "figure":
            return (
                f'<figure><div class="photo" style="{_thumb_style(article.key)}"></div>'
                f"<figcaption>{esc(block.text)}</figcaption></figure>"
            )
        return f"<p>{self.inline(block)}</p>"

    def notice_page(self, title: str, message: str) -> str:
        return join(
            [
                self._head(f"{title} - {self.spec.title}", None),
                "<body>",
                self._top(),
                '<div id="container"><div id="main"><div class="entry">',
                f'<h1 class="entry-title">{esc(title)}</h1><p>{esc(message)}</p>',
                "</div></div></div>",
                self._bottom(),
            ]
        )
