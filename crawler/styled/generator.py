"""Build styled static sites (one theme each) from WCXB dev training text, and list their
pages with labels and split roles (see the package docstring)."""

from __future__ import annotations

import datetime
import json
import logging
import random
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from models.common.splits import TRAIN, load_split
from pipelines.evaluation.wcxb import read_wcxb

logger = logging.getLogger(__name__)

PAGES_NAME = "pages.jsonl"
ARTICLE, LISTING = "article", "listing"
CATEGORIES = ("News", "Travel", "Food", "Science", "Culture", "Business", "Health", "Technology")
TAGS = ("analysis", "guide", "interview", "opinion", "review", "update", "events", "tips")
AUTHORS = ("Alex Morgan", "Sam Lee", "Jordan Price")


@dataclass(frozen=True)
class Theme:
    """One generator with one of its themes, and the split role of every site in it."""

    name: str
    generator: str  # pelican | ablog | material
    theme: str
    role: str
    palette: str = ""  # mkdocs-material colour scheme


#: Held-out and validation themes are fixed here: a held-out theme (in any palette) is
#: never trained on. The order deals the text: keep it, or the sites change.
THEMES: tuple[Theme, ...] = (
    Theme("pelican-notmyidea", "pelican", "notmyidea", "train"),
    Theme("ablog-alabaster", "ablog", "alabaster", "train"),
    Theme("ablog-classic", "ablog", "classic", "train"),
    Theme("ablog-nature", "ablog", "nature", "train"),
    Theme("ablog-pyramid", "ablog", "pyramid", "train"),
    Theme("ablog-rtd", "ablog", "sphinx_rtd_theme", "train"),
    Theme("material-indigo", "material", "material", "heldout", palette="default"),
    Theme("ablog-furo", "ablog", "furo", "validation"),
    Theme("ablog-pydata", "ablog", "pydata_sphinx_theme", "heldout"),
    Theme("material-slate", "material", "material", "heldout", palette="slate"),
)


@dataclass(frozen=True)
class Post:
    """A blog post made of one WCXB training page's gold title and text."""

    slug: str
    title: str
    date: datetime.date
    author: str
    category: str
    tags: tuple[str, ...]
    paragraphs: tuple[str, ...]
    markdown: str


@dataclass(frozen=True)
class StyledPage:
    """A generated page: its path under the sites folder, label, site, theme and role."""

    path: str
    label: str
    site: str
    theme: str
    role: str


def training_posts(wcxb_root: Path, seed: int) -> list[Post]:
    """Posts from the article pages of WCXB dev's training domains, shuffled by ``seed``."""
    split = load_split()
    rng = random.Random(seed)
    posts = []
    records = [
        r
        for r in read_wcxb(wcxb_root)
        if r.page_type == ARTICLE and split.role(r.domain) == TRAIN and len(r.gold_text) >= 400
    ]
    for record in records:
        paragraphs = tuple(p.strip() for p in record.gold_text.split("\n") if p.strip())
        title = (record.ground_truth.get("title") or "").strip() or " ".join(paragraphs[0].split()[:8])
        posts.append(
            new_post(
                rng,
                f"{_slug(title)[:60].strip('-') or 'post'}-{record.file_id}",
                title,
                paragraphs,
                (record.ground_truth.get("main_content_markdown") or "").strip() or "\n\n".join(paragraphs),
            )
        )
    rng.shuffle(posts)
    return posts


def new_post(rng: random.Random, slug: str, title: str, paragraphs: tuple[str, ...], markdown: str) -> Post:
    """A post of this text with a date, author, category and tags drawn from ``rng``."""
    return Post(
        slug=slug,
        title=title,
        date=datetime.date(2023, 1, 1) + datetime.timedelta(days=rng.randrange(900)),
        author=rng.choice(AUTHORS),
        category=rng.choice(CATEGORIES[:4]),
        tags=tuple(rng.sample(TAGS[:5], rng.choice((1, 2)))),
        paragraphs=paragraphs,
        markdown=markdown,
    )


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _run(args: list[str], cwd: Path) -> None:
    """Run a generator; its output is logged only when it fails."""
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(
            f"{' '.join(args[:3])} failed in {cwd}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )


# --- Pelican -------------------------------------------------------------------------


def build_pelican(theme: Theme, name: str, posts: list[Post], src: Path, out: Path, language: str) -> None:
    content = src / "content"
    content.mkdir(parents=True)
    for post in posts:
        meta = (
            f"Title: {post.title}\nDate: {post.date.isoformat()}\nCategory: {post.category}\n"
            f"Tags: {', '.join(post.tags)}\nAuthor: {post.author}\nSlug: {post.slug}\n\n"
        )
        (content / f"{post.slug}.md").write_text(meta + post.markdown + "\n", encoding="utf-8")
    (src / "pelicanconf.py").write_text(
        textwrap.dedent(f"""\
            SITENAME = {name!r}
            SITEURL = ""
            RELATIVE_URLS = True
            PATH = "content"
            TIMEZONE = "UTC"
            DEFAULT_LANG = {language!r}
            THEME = {theme.theme!r}
            DEFAULT_PAGINATION = 5
            ARTICLE_URL = ARTICLE_SAVE_AS = "posts/{{slug}}.html"
            FEED_ALL_ATOM = FEED_ALL_RSS = CATEGORY_FEED_ATOM = TRANSLATION_FEED_ATOM = None
            AUTHOR_FEED_ATOM = AUTHOR_FEED_RSS = None
            LINKS = (("About", "#"), ("Contact", "#"))
            SOCIAL = ()
            """),
        encoding="utf-8",
    )
    _run([sys.executable, "-m", "pelican", "content", "-s", "pelicanconf.py", "-o", str(out), "-q"], src)


def pelican_label(path: str) -> str | None:
    if re.fullmatch(r"posts/[^/]+\.html", path):
        return ARTICLE
    if re.fullmatch(r"index\d*\.html|archives\.html|(category|tag|author)/[^/]+\.html", path):
        return LISTING
    return None


# --- Sphinx with ABlog ---------------------------------------------------------------


def _rst_text(text: str) -> str:
    """Plain text as literal reStructuredText (every punctuation mark escaped)."""
    return re.sub(r"([^\w\s])", r"\\\1", " ".join(text.split()))


#: Sphinx themes that render ABlog's pages with their own ``page.html``: ABlog puts its
#: ``page.html`` (which extends ``layout.html``) before the theme's, and Furo's
#: ``layout.html`` is an error page ("This page was generated by inheriting from
#: layout.html"), so every page of the site would be that error.
OWN_PAGE_TEMPLATE = frozenset({"furo"})


def build_ablog(theme: Theme, name: str, posts: list[Post], src: Path, out: Path, language: str) -> None:
    (src / "posts").mkdir(parents=True)
    templates = ""
    if theme.theme in OWN_PAGE_TEMPLATE:
        (src / "_templates").mkdir()
        (src / "_templates" / "page.html").write_text(f'{{%- extends "{theme.theme}/page.html" %}}\n')
        templates = 'templates_path = ["_templates"]'
    for post in posts:
        title = _rst_text(post.title)
        body = "\n\n".join(_rst_text(p) for p in post.paragraphs)
        (src / "posts" / f"{post.slug}.rst").write_text(
            f".. post:: {post.date.isoformat()}\n   :tags: {', '.join(post.tags)}\n"
            f"   :category: {post.category}\n   :author: {post.author}\n\n"
            f"{title}\n{'=' * len(title)}\n\n{body}\n",
            encoding="utf-8",
        )
    heading = f"Welcome to {name}"
    (src / "index.rst").write_text(
        f"{heading}\n{'=' * len(heading)}\n\n.. postlist:: 8\n   :excerpts:\n\n"
        ".. toctree::\n   :hidden:\n   :glob:\n\n   posts/*\n",
        encoding="utf-8",
    )
    (src / "conf.py").write_text(
        textwrap.dedent(f"""\
            project = {name!r}
            author = "PageSight"
            extensions = ["ablog"]
            html_theme = {theme.theme!r}
            language = {language!r}
            blog_title = {name!r}
            blog_path = "blog"
            blog_post_pattern = "posts/*"
            blog_feed_archives = False
            post_auto_excerpt = 1
            exclude_patterns = ["_build"]
            {templates}
            """),
        encoding="utf-8",
    )
    _run([sys.executable, "-m", "sphinx", "-b", "html", "-q", ".", str(out)], src)


def ablog_label(path: str) -> str | None:
    if re.fullmatch(r"posts/[^/]+\.html", path):
        return ARTICLE
    if re.fullmatch(r"index\.html|blog\.html|blog/(archive|drafts)\.html", path):
        return LISTING if path != "blog/drafts.html" else None
    if re.fullmatch(r"blog/(\d{4}|(category|tag|author)/[^/]+)\.html", path):
        return LISTING
    return None


# --- MkDocs with mkdocs-material's blog plugin ---------------------------------------


def build_material(theme: Theme, name: str, posts: list[Post], src: Path, out: Path, language: str) -> None:
    docs = src / "docs"
    (docs / "posts").mkdir(parents=True)
    (docs / "index.md").write_text(f"# {name}\n", encoding="utf-8")
    authors = {_slug(a): a for a in AUTHORS}
    (docs / ".authors.yml").write_text(
        "authors:\n"
        + "".join(
            f"  {key}:\n    name: {value}\n    description: Writer\n    avatar: ''\n"
            for key, value in authors.items()
        ),
        encoding="utf-8",
    )
    for post in posts:
        first, _, rest = post.markdown.partition("\n\n")
        (docs / "posts" / f"{post.slug}.md").write_text(
            f"---\ndate: {post.date.isoformat()}\nslug: {post.slug}\nauthors:\n  - {_slug(post.author)}\n"
            f"categories:\n  - {post.category}\n---\n\n# {post.title}\n\n{first}\n\n<!-- more -->\n\n{rest}\n",
            encoding="utf-8",
        )
    config = {
        "site_name": name,
        "theme": {
            "name": "material",
            "font": False,
            "palette": {"scheme": theme.palette},
            "language": MATERIAL_LANGUAGES.get(language, language),
        },
        "plugins": [{"blog": {"blog_dir": ".", "post_url_format": "{slug}", "pagination_per_page": 5}}],
    }
    (src / "mkdocs.yml").write_text(json.dumps(config, indent=1), encoding="utf-8")
    _run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(out)], src)


def material_label(path: str, slugs: frozenset[str] = frozenset()) -> str | None:
    parts = path.split("/")
    if len(parts) == 2 and parts[1] == "index.html" and parts[0] in slugs:
        return ARTICLE
    if re.fullmatch(r"index\.html|page/\d+/index\.html|(archive|category)/.+/index\.html", path):
        return LISTING
    return None


#: mkdocs-material's names of the languages whose BCP 47 tag differs from ours.
MATERIAL_LANGUAGES = {"zh-cn": "zh", "zh-tw": "zh-TW", "pt-br": "pt-BR"}

BUILDERS: dict[str, Callable[[Theme, str, list[Post], Path, Path, str], None]] = {
    "pelican": build_pelican,
    "ablog": build_ablog,
    "material": build_material,
}


def site_pages(theme: Theme, site: str, site_dir: Path, posts: list[Post]) -> list[StyledPage]:
    """The labelled pages of one built site, by the generator's URL scheme."""
    slugs = frozenset(p.slug for p in posts)
    pages = []
    for html in sorted(site_dir.rglob("*.html")):
        path = html.relative_to(site_dir).as_posix()
        if theme.generator == "material":
            label = material_label(path, slugs)
        else:
            label = (pelican_label if theme.generator == "pelican" else ablog_label)(path)
        if label is not None:
            url_path = path.removesuffix("index.html")
            pages.append(StyledPage(f"{site}/{url_path}", label, site, theme.name, theme.role))
    return pages


def build_sites(
    wcxb_root: Path,
    out: Path,
    *,
    themes: Iterable[Theme] = THEMES,
    sites_per_theme: int = 2,
    posts_per_site: int = 12,
    seed: int = 2026,
) -> list[StyledPage]:
    """Build ``sites_per_theme`` sites of every theme under ``out/sites`` from the
    training articles of WCXB dev and write ``out/pages.jsonl``; no post text is used
    twice."""
    posts = training_posts(wcxb_root, seed)
    return build_post_sites(
        posts,
        out,
        themes=themes,
        sites_per_theme=sites_per_theme,
        posts_per_site=posts_per_site,
        source=wcxb_root,
    )


def build_post_sites(
    posts: list[Post],
    out: Path,
    *,
    themes: Iterable[Theme] = THEMES,
    sites_per_theme: int = 2,
    posts_per_site: int = 12,
    language: str = "en",
    source: Path | str = "posts",
) -> list[StyledPage]:
    """:func:`build_sites` from any ``posts`` (in order, none used twice) written in
    ``language`` (a BCP 47 tag, given to each generator); a site's name carries the
    language unless it is English. ``source`` names the posts in an error."""
    themes = list(themes)
    needed = len(themes) * sites_per_theme * posts_per_site
    if len(posts) < needed:
        raise ValueError(f"{source}: {len(posts)} posts, {needed} needed")
    suffix = "" if language == "en" else f"-{language}"
    pages: list[StyledPage] = []
    taken = 0
    for theme in themes:
        for index in range(1, sites_per_theme + 1):
            site = f"{theme.name}{suffix}-{index}.styled.test"
            chosen = posts[taken : taken + posts_per_site]
            taken += posts_per_site
            site_dir = out / "sites" / site
            BUILDERS[theme.generator](theme, site, chosen, out / "src" / site, site_dir, language)
            found = site_pages(theme, site, site_dir, chosen)
            logger.info("%s: %d pages", site, len(found))
            pages += found
    with (out / PAGES_NAME).open("w", encoding="utf-8") as lines:
        for page in pages:
            lines.write(json.dumps(asdict(page)) + "\n")
    return pages


def read_styled_pages(root: Path) -> list[StyledPage]:
    """The pages a ``build_sites`` folder lists."""
    with (root / PAGES_NAME).open(encoding="utf-8") as lines:
        return [StyledPage(**json.loads(line)) for line in lines if line.strip()]
