"""Multilingual extraction benchmark: real text in Russian, Chinese, Japanese, Korean,
German, French and English inside real themes, every body paragraph known.

    .venv/bin/python benchmarks/multilingual.py --work DATA/multilingual \\
        [--faq /usr/share/doc/debian/FAQ] [--languages en,ru,zh-cn,ja,ko,de,fr] \\
        [--extractors iawce,ensemble,ensemble-fast,trafilatura,readability,justext] \\
        [--themes pelican-notmyidea,...] [--posts-per-site 5] [--auto] [--out results.json]

Text: the Debian FAQ and its translations (``apt install debian-faq debian-faq-ru
debian-faq-zh-cn debian-faq-ja debian-faq-ko debian-faq-de debian-faq-fr``), one post
per translated section (``crawler/styled/faq.py``). Pages: the styled-site generators of
the page-type model (``crawler/styled``, ``pip install -r requirements-data.txt``:
Pelican, Sphinx with ABlog, MkDocs with mkdocs-material; all ten themes unless
``--themes``, one site each per language, the generator told the language), built once
under ``--work`` and reused. Only the post pages are scored (a
listing's gold is not known here); their gold is the post's paragraphs (the title is
left out, as in WCXB's gold).

Measures, per language and extractor, on the raw HTML files (no browser):
- word F1 as in ``benchmarks/extract.py`` (each CJK character one token), mean per page;
- snippet F under trafilatura's pooled definition (``pooled_snippet_prf``): body
  snippets are each paragraph's first ``SNIPPET_TOKENS`` tokens, boilerplate snippets
  every other text of the page (menus, sidebars, other posts' titles and excerpts,
  footers) of at least ``MIN_BOILERPLATE_TOKENS`` tokens that the body does not hold;
- the median milliseconds per page and its ratio to trafilatura's (same run).

Our extractors get the true page type (article) unless ``--auto`` adds runs without one.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from statistics import fmean, median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from extract import SPEED_REFERENCE, available_extractor  # benchmarks/extract.py

from crawler.styled import THEMES, StyledPage, Theme, read_styled_pages
from crawler.styled.faq import FAQ_ROOT, FaqUnavailable, faq_posts
from crawler.styled.generator import ARTICLE, Post, build_post_sites
from pipelines.evaluation.metrics import SnippetCounts, pooled_snippet_prf, snippet_counts, word_prf
from pipelines.evaluation.text import tokens
from pipelines.extraction import Extraction, Extractor, Page, available_extractors, decode_html
from pipelines.extraction.dom import parse_html
from pipelines.extraction.peers import PeerExtractor

LANGUAGES = ("en", "ru", "zh-cn", "ja", "ko", "de", "fr")
DEFAULT_EXTRACTORS = ("iawce", "ensemble", "ensemble-fast", "trafilatura", "readability", "justext")
#: Tokens of a paragraph's start that make its body snippet.
SNIPPET_TOKENS = 10
#: A text of the page outside the body is a boilerplate snippet from this many tokens on.
MIN_BOILERPLATE_TOKENS = 3
#: The FAQ sections are shuffled with this seed before the sites deal them out.
SEED = 2026


@dataclass
class BenchPage:
    """One post page: language, site, its file and URL, the gold paragraphs and the
    snippets (body, boilerplate)."""

    language: str
    site: str
    path: Path
    url: str
    gold: str
    body_snippets: list[str]
    boilerplate_snippets: list[str]


def build_language(
    faq: Path, language: str, work: Path, posts_per_site: int, themes: list[Theme]
) -> list[BenchPage]:
    """The post pages of ``language``'s sites in ``themes`` under ``work/language``
    (built unless a ``pages.jsonl`` is there already; ValueError when it lacks a theme)."""
    posts = {post.slug: post for post in faq_posts(faq, language, SEED)}
    folder = work / language
    if (folder / "pages.jsonl").is_file():
        wanted = {theme.name for theme in themes}
        pages = [page for page in read_styled_pages(folder) if page.theme in wanted]
        if missing := wanted - {page.theme for page in pages}:
            raise ValueError(f"{folder} was built without {', '.join(sorted(missing))}: give a new --work")
    else:
        pages = build_post_sites(
            list(posts.values()),
            folder,
            themes=themes,
            sites_per_theme=1,
            posts_per_site=posts_per_site,
            language=language,
            source=f"Debian FAQ ({language})",
        )
    return [bench_page(language, folder / "sites", page, posts) for page in pages if page.label == ARTICLE]


def post_slug(page: StyledPage) -> str:
    """The slug of a post page (``posts/SLUG.html`` or ``SLUG/``)."""
    path = page.path.removeprefix(f"{page.site}/").rstrip("/")
    return path.rsplit("/", 1)[-1].removesuffix(".html")


def bench_page(language: str, sites: Path, page: StyledPage, posts: dict[str, Post]) -> BenchPage:
    post = posts[post_slug(page)]
    path = sites / page.path
    if page.path.endswith("/"):
        path = path / "index.html"
    gold = "\n".join(post.paragraphs)
    body = [" ".join(tokens(p)[:SNIPPET_TOKENS]) for p in post.paragraphs]
    return BenchPage(
        language,
        page.site,
        path,
        f"http://{page.path}",
        gold,
        [s for s in body if s],
        boilerplate_snippets(path.read_bytes(), gold),
    )


def boilerplate_snippets(html: bytes, gold: str) -> list[str]:
    """The page's texts (each text node, whitespace collapsed) of at least
    ``MIN_BOILERPLATE_TOKENS`` tokens that ``gold`` does not hold, once each."""
    body_text = f" {' '.join(tokens(gold))} "
    root = parse_html(decode_html(html))
    if root is None:
        return []
    for code in root.iter("script", "style", "noscript", "template"):
        code.drop_tree()
    found: dict[str, None] = {}
    for text in root.xpath("//body//text()"):
        words = tokens(str(text))
        snippet = " ".join(words)
        if len(words) >= MIN_BOILERPLATE_TOKENS and f" {snippet} " not in body_text:
            found[snippet] = None
    return list(found)


@dataclass
class Run:
    label: str
    extract: Callable[[str, str], Extraction | None]


def build_runs(names: list[str], auto: bool) -> list[Run]:
    """Each extractor with the true page type, and ours also without one when ``auto``
    (peers take no page type)."""
    runs = []
    for name in names:
        extractor = available_extractor(name, None)
        if extractor is None:
            continue
        modes: list[tuple[str, str | None]] = [(name, ARTICLE)]
        if auto and not isinstance(extractor, PeerExtractor):
            modes.append((f"{name} [auto type]", None))
        runs += [Run(label, partial(_extract, extractor, page_type)) for label, page_type in modes]
    return runs


def _extract(extractor: Extractor, page_type: str | None, html: str, url: str) -> Extraction | None:
    return extractor.extract(Page(html, url, page_type))


def run_benchmark(pages: list[BenchPage], runs: list[Run]) -> dict[str, list[dict[str, float]]]:
    """Per run, per page (in order): word P/R/F1, ms and snippet counts."""
    scores: dict[str, list[dict[str, float]]] = {run.label: [] for run in runs}
    for page in pages:
        html = decode_html(page.path.read_bytes())
        gold = tokens(page.gold)
        for run in runs:
            begin = time.perf_counter()
            found = run.extract(html, page.url)
            elapsed = (time.perf_counter() - begin) * 1000
            words = tokens(found.text if found else None)
            prf = word_prf(words, gold)
            counts = snippet_counts(words, page.body_snippets, page.boilerplate_snippets)
            scores[run.label].append(
                {"precision": prf.precision, "recall": prf.recall, "f1": prf.f1, "ms": elapsed}
                | counts.__dict__
            )
    return scores


def summarize(
    pages: list[BenchPage], rows: list[dict[str, float]], languages: list[str]
) -> dict[str, dict[str, float]]:
    """Per language and overall: pages, mean word P/R/F1, pooled snippet P/R/F, median ms."""
    summary = {}
    for language in [*languages, "all"]:
        chosen = [row for page, row in zip(pages, rows, strict=True) if language in ("all", page.language)]
        if not chosen:
            continue
        snippets = pooled_snippet_prf(
            SnippetCounts(
                *(int(row[k]) for k in ("with_found", "with_total", "without_found", "without_total"))
            )
            for row in chosen
        )
        summary[language] = {
            "pages": len(chosen),
            **{key: fmean(row[key] for row in chosen) for key in ("precision", "recall", "f1")},
            "snippet_precision": snippets.precision,
            "snippet_recall": snippets.recall,
            "snippet_f": snippets.f1,
            "median_ms": median(row["ms"] for row in chosen),
        }
    return summary


def markdown_tables(summaries: dict[str, dict[str, dict[str, float]]], languages: list[str]) -> str:
    """Word F1 per language, then pooled snippet F per language, one row per run; the
    median time and its ratio to trafilatura's on all pages."""
    columns = [*languages, "all"]
    reference = summaries.get(SPEED_REFERENCE, {}).get("all", {}).get("median_ms")
    out = []
    for title, key in (("word F1", "f1"), ("snippet F (pooled)", "snippet_f")):
        header = [title, *columns] + (["median ms", "× trafilatura"] if key == "f1" else [])
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for label, summary in summaries.items():
            cells = [label] + [f"{summary[c][key]:.3f}" if c in summary else "–" for c in columns]
            if key == "f1":
                ms = summary["all"]["median_ms"]
                cells += [f"{ms:.1f}", f"{ms / reference:.2f}" if reference else "–"]
            lines.append("| " + " | ".join(cells) + " |")
        out.append("\n".join(lines))
    return "\n\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="folder for the built sites (reused)")
    parser.add_argument("--faq", type=Path, default=FAQ_ROOT, help=f"Debian FAQ folder (default {FAQ_ROOT})")
    parser.add_argument("--languages", default=",".join(LANGUAGES), help="comma-separated (default: all)")
    parser.add_argument(
        "--extractors",
        default=",".join(DEFAULT_EXTRACTORS),
        help=f"comma-separated registered extractors: {', '.join(available_extractors())}",
    )
    parser.add_argument(
        "--themes",
        default=",".join(t.name for t in THEMES),
        help=f"comma-separated styled-site themes (default: all): {', '.join(t.name for t in THEMES)}",
    )
    parser.add_argument("--posts-per-site", type=int, default=5, help="posts in each site (default 5)")
    parser.add_argument("--auto", action="store_true", help="also run our extractors without a page type")
    parser.add_argument("--out", type=Path, help="write summaries and per-page scores as JSON here")
    args = parser.parse_args(argv)

    languages = [lang.strip() for lang in args.languages.split(",") if lang.strip()]
    known = {theme.name: theme for theme in THEMES}
    try:
        themes = [known[name.strip()] for name in args.themes.split(",") if name.strip()]
    except KeyError as error:
        raise SystemExit(f"unknown theme {error}; known: {', '.join(known)}") from None
    pages: list[BenchPage] = []
    for language in languages:
        try:
            found = build_language(args.faq, language, args.work, args.posts_per_site, themes)
        except (FaqUnavailable, ValueError) as error:
            raise SystemExit(str(error)) from None
        print(f"{language}: {len(found)} post pages", file=sys.stderr)
        pages += found
    runs = build_runs([n.strip() for n in args.extractors.split(",") if n.strip()], args.auto)
    per_page = run_benchmark(pages, runs)
    summaries = {label: summarize(pages, rows, languages) for label, rows in per_page.items()}
    print(markdown_tables(summaries, languages))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        pages_out = [{"language": p.language, "site": p.site, "url": p.url} for p in pages]
        args.out.write_text(
            json.dumps({"summaries": summaries, "pages": pages_out, "per_page": per_page}, indent=1),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
