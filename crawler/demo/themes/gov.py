"""云溪市人民政府: a Chinese government notice board served in GBK.

Dense dated link lists on index pages, a centred notice with an info line on article
pages, ArticleTitle/PubDate/ContentSource meta tags, and a view counter set by script.
"""

from __future__ import annotations

from datetime import datetime

from crawler.demo.markup import esc, join
from crawler.demo.model import Article, Block, Category, Link, Listing
from crawler.demo.themes.base import Theme

STYLE = """
* { box-sizing: border-box; }
body { margin: 0; background: #eef1f5; color: #222;
  font-family: "Noto Sans CJK SC", "Microsoft YaHei",
  SimSun, sans-serif; font-size: 14px; }
a { color: #222; text-decoration: none; }
.wrap { width: 1000px; margin: 0 auto; }
.gov-top { background: #f7f7f7; border-bottom: 1px solid #ddd; font-size: 12px; color: #666; }
.gov-top .wrap { display: flex; justify-content: space-between; padding: 6px 0; }
.gov-banner { background: linear-gradient(180deg, #c4161c 0%, #a40e13 100%); height: 120px; }
.gov-banner .wrap { display: flex; align-items: center; height: 120px; }
.emblem { width: 78px; height: 78px; border-radius: 50%; background: #f5c400; color: #c4161c;
  font-size: 44px; text-align: center; line-height: 78px; margin-right: 18px; }
.gov-name { color: #fff; font-size: 36px; font-weight: bold; letter-spacing: 6px; }
.gov-name small { display: block; font-size: 13px; letter-spacing: 1px; font-weight: normal;
  opacity: .85; }
.gov-search { margin-left: auto; }
.gov-search input { width: 180px; padding: 5px; border: 0; }
.gov-search button { background: #f5c400; border: 0; padding: 5px 12px; }
.gov-nav { background: #1d4f91; }
.gov-nav .wrap { display: flex; }
.gov-nav a { color: #fff; padding: 11px 26px; font-size: 16px; display: block; }
.gov-nav a.on { background: #0f3870; }
.gov-body { display: flex; gap: 20px; margin: 16px auto; }
.column-menu { width: 220px; background: #fff; border-top: 3px solid #1d4f91; }
.column-menu h3 { background: #1d4f91; color: #fff; margin: 0; padding: 10px 16px; font-size: 16px;
  }
.column-menu a { display: block; padding: 10px 18px; border-bottom: 1px solid #eee; }
.column-menu a.on { color: #c4161c; font-weight: bold; }
.column-main { flex: 1; background: #fff; padding: 16px 24px 28px; min-height: 600px; }
.position { font-size: 12px; color: #666; border-bottom: 1px solid #e5e5e5; padding-bottom: 8px; }
.position a { color: #666; }
.column-title { font-size: 18px; color: #1d4f91; margin: 14px 0; padding-left: 10px;
  border-left: 4px solid #c4161c; }
.notice-list { list-style: none; margin: 0; padding: 0; }
.notice-list li { display: flex; justify-content: space-between; padding: 10px 4px;
  border-bottom: 1px dashed #d8d8d8; }
.notice-list li::before { content: "\\25A0"; color: #c4161c; font-size: 8px; margin: 4px 8px 0 0; }
.notice-list a { flex: 1; }
.notice-list time { color: #888; font-size: 13px; }
.pagination { text-align: center; margin-top: 24px; color: #555; }
.pagination a, .pagination span { display: inline-block; border: 1px solid #ccc; padding: 3px 9px;
  margin: 0 2px; }
.pagination .current { background: #1d4f91; color: #fff; border-color: #1d4f91; }
.page-count { margin-right: 8px; }
.article { background: #fff; padding: 20px 60px 40px; margin: 16px auto; }
.article-title { text-align: center; font-size: 26px; color: #1d4f91; margin: 26px 0 14px;
  line-height: 1.5; }
.article-info { text-align: center; color: #777; font-size: 13px; border-bottom: 1px solid #e5e5e5;
  padding-bottom: 12px; }
.article-info span { margin: 0 10px; }
.article-content { font-size: 17px; line-height: 2.0; margin-top: 24px; }
.article-content p { text-indent: 2em; margin: 0 0 12px; }
.article-content h2 { font-size: 17px; margin: 18px 0 8px; text-indent: 2em; }
.article-tools { text-align: right; margin: 30px 0 10px; color: #555; }
.article-tools a { margin-left: 12px; }
.related { border-top: 2px solid #1d4f91; margin-top: 20px; padding-top: 10px; }
.related h3 { font-size: 15px; color: #1d4f91; margin: 0 0 8px; }
.related li { line-height: 2; }
.links-bar { background: #fff; margin: 16px auto; padding: 12px 20px; }
.links-bar select { width: 190px; margin-right: 12px; }
.gov-footer { background: #1d4f91; color: #d6e2f3; text-align: center; font-size: 12px;
  line-height: 2; padding: 20px 0 30px; }
.gov-footer a { color: #fff; margin: 0 8px; }
"""

VIEW_COUNTER_SCRIPT = """
document.addEventListener('DOMContentLoaded', function () {
  var counter = document.getElementById('view-count');
  counter.textContent = String(1000 + document.title.length * 37);
});
"""

_NUMBERS = "一二三四五六七八九十"


def _display_date(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d}"


def _display_time(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M}"


class GovTheme(Theme):
    """Red banner, blue menu bar, column menu on the left, table-like notice lists."""

    brand_colour = "#c4161c"
    link_labels = {
        "hang": "政务直播",
        "huge": "历年公告汇编",
        "pdf": "附件：2025年政府工作报告（PDF）",
        "png": "图解：政策要点",
        "private": "内部办公",
        "syndicated": "转载：最新通知",
    }
    index_labels = {
        "topics": "主题分类",
        "authors": "发布人",
        "archive": "信息归档",
        "more_by": "{name}发布的信息",
    }
    index_headings = {
        "tag": "主题：{name}",
        "author": "{name}发布的信息",
        "archive": "{name}信息",
        "page": "{heading}（第{page}页）",
    }
    list_summaries = False

    @staticmethod
    def home_path(page: int) -> str:
        return "/" if page == 1 else f"/index_{page - 1}.html"

    @staticmethod
    def category_path(slug: str, page: int) -> str:
        return f"/{slug}/index.html" if page == 1 else f"/{slug}/index_{page - 1}.html"

    @staticmethod
    def article_path(number: int, category: Category, published: datetime) -> str:
        return f"/{category.slug}/{published:%Y%m}/t{published:%Y%m%d}_{7000000 + number}.html"

    @staticmethod
    def index_path(kind: str, slug: str, page: int) -> str:
        folder = f"/{kind}/{slug.replace('/', '')}"
        return f"{folder}/index.html" if page == 1 else f"{folder}/index_{page - 1}.html"

    @staticmethod
    def home_heading(page: int) -> str:
        return "最新信息" if page == 1 else f"最新信息（第{page}页）"

    @staticmethod
    def category_heading(category: Category, page: int) -> str:
        return category.name if page == 1 else f"{category.name}（第{page}页）"

    @staticmethod
    def subheading(number: int, text: str) -> str:
        """Subheadings of notices are numbered 一、二、三、…"""
        return f"{_NUMBERS[(number - 1) % len(_NUMBERS)]}、{text}"

    # --- Chrome -----------------------------------------------------------------------
    def _top(self, active: str | None) -> str:
        nav = ['<a href="/"' + (' class="on"' if active is None else "") + ">首页</a>"]
        nav += [
            f'<a href="{c.path}"' + (' class="on"' if c.slug == active else "") + f">{esc(c.name)}</a>"
            for c in self.view.categories
        ]
        nav.append('<a href="/">互动交流</a>')
        return join(
            [
                '<div class="gov-top"><div class="wrap"><span>欢迎访问'
                f"{esc(self.spec.title)}门户网站</span>"
                "<span>无障碍浏览 | 长者模式 | 简体版</span></div></div>",
                '<div class="gov-banner"><div class="wrap"><div class="emblem">★</div>'
                f'<div class="gov-name">{esc(self.spec.title)}'
                "<small>YUNXI MUNICIPAL PEOPLE'S GOVERNMENT</small></div>"
                '<form class="gov-search" action="/">'
                '<input type="text" name="q" placeholder="请输入关键词">'
                '<button type="submit">搜索</button></form></div></div>',
                '<div class="gov-nav"><div class="wrap">' + "".join(nav) + "</div></div>",
            ]
        )

    def _bottom(self, script: str = "") -> str:
        related_sites = "".join(
            f"<option>{name}</option>" for name in ("国务院部门网站", "省政府网站", "市县政府网站")
        )
        return join(
            [
                self.site_index(),
                '<div class="wrap links-bar">相关链接：'
                f"<select><option>相关网站</option>{related_sites}</select>"
                "<select><option>本市政府部门</option></select></div>",
                '<div class="gov-footer"><p><a href="/">关于我们</a>|<a href="/">网站地图</a>|'
                '<a href="/">联系我们</a>|<a href="/">隐私声明</a></p>'
                f"<p>主办单位：{esc(self.spec.title)}办公室　承办单位：云溪市大数据中心</p>"
                "<p>网站标识码：3301000099　备案号：云ICP备05001234号　"
                "公安机关备案号：33010002000123</p></div>",
                f"<script>{script}</script>" if script else "",
                "</body>\n</html>\n",
            ]
        )

    def _head(self, title: str, canonical: str | None, extra: str = "") -> str:
        return self.head(title, canonical, extra + f"<style>{STYLE}</style>\n")

    def _menu(self, active: str | None, extra_links: list[Link]) -> str:
        links = "".join(
            f'<a href="{c.path}"' + (' class="on"' if c.slug == active else "") + f">{esc(c.name)}</a>"
            for c in self.view.categories
        )
        links += "".join(f'<a href="{link.path}">{esc(link.label)}</a>' for link in extra_links)
        return f'<div class="column-menu"><h3>栏目导航</h3>{links}</div>'

    # --- Pages ------------------------------------------------------------------------
    def list_page(self, listing: Listing) -> str:
        rows = "".join(
            f'<li><a href="{a.path}" title="{esc(a.title)}">{esc(a.title)}</a>'
            f"{self.time(a.published, _display_date(a.published))}</li>"
            for a in listing.articles
        )
        position = '<a href="/">首页</a>'
        if listing.category is not None:
            position += f' &gt; <a href="{listing.category.path}">{esc(listing.category.name)}</a>'
        pages = ""
        if len(listing.page_paths) > 1:
            pages = self.pagination(listing, "上一页", "下一页").replace(
                '<nav class="pagination">',
                f'<nav class="pagination"><span class="page-count">共{len(listing.page_paths)}页</span>',
            )
        active = listing.category.slug if listing.category else None
        return join(
            [
                self._head(f"{listing.heading}_{self.spec.title}", listing.path),
                "<body>",
                self._top(active),
                '<div class="wrap gov-body">',
                self._menu(active, self.view.home_links if listing.is_home else []),
                '<div class="column-main">',
                f'<div class="position">当前位置：{position}</div>',
                f'<h1 class="column-title">{esc(listing.heading)}</h1>',
                f'<ul class="notice-list">{rows}</ul>',
                pages,
                "</div></div>",
                self._bottom(),
            ]
        )

    def article_page(self, article: Article, related: list[Article]) -> str:
        meta = (
            f'<meta name="ArticleTitle" content="{esc(article.title)}">\n'
            f'<meta name="PubDate" content="{_display_time(article.published)}">\n'
            f'<meta name="ContentSource" content="{esc(self.spec.title)}办公室">\n'
            f'<meta name="ColumnName" content="{esc(article.category.name)}">\n'
        )
        related_links = "".join(f'<li><a href="{a.path}">{esc(a.title)}</a></li>' for a in related)
        return join(
            [
                self._head(f"{article.title}_{self.spec.title}", article.path, meta),
                "<body>",
                self._top(article.category.slug),
                '<div class="wrap article">',
                '<div class="position">当前位置：<a href="/">首页</a> &gt; '
                f'<a href="{article.category.path}">{esc(article.category.name)}'
                "</a> &gt; 正文</div>",
                f'<h1 class="article-title">{esc(article.title)}</h1>',
                '<div class="article-info">'
                f"<span>发布时间：{self.time(article.published, _display_time(article.published))}"
                "</span>"
                f"<span>来源：{esc(self.spec.title)}办公室</span>"
                f'<span>作者：<a class="author" href="{article.author_path}">{esc(article.author)}</a></span>'
                '<span>浏览次数：<span id="view-count">-</span></span>'
                '<span>【字体：<a href="#">大</a> <a href="#">中'
                '</a> <a href="#">小</a>】</span></div>',
                '<div class="article-content" id="zoom">',
                join(self._block(block) for block in article.blocks),
                "</div>",
                self.article_links(article),
                '<div class="article-tools">'
                '<a href="#">【打印本页】</a><a href="#">【关闭窗口】</a>'
                '<a href="#">【我要纠错】</a></div>',
                f'<div class="related"><h3>相关信息</h3><ul>{related_links}</ul></div>',
                "</div>",
                self._bottom(VIEW_COUNTER_SCRIPT),
            ]
        )

    def _block(self, block: Block) -> str:
        if block.kind == "h2":
            return f"<h2>{esc(block.text)}</h2>"
        return f"<p>{self.inline(block)}</p>"

    def notice_page(self, title: str, message: str) -> str:
        return join(
            [
                self._head(f"{title}_{self.spec.title}", None),
                "<body>",
                self._top(""),
                '<div class="wrap article">',
                f'<h1 class="article-title">{esc(title)}</h1><p>{esc(message)}</p>',
                "</div>",
                self._bottom(),
            ]
        )
