"""Peer extractors (trafilatura, readability, jusText) run on stored HTML for
``scrapy evaluate --compare``. They are optional dependencies (requirements-bench.txt):
each is imported only when asked for."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import lxml.html

#: ``extract(html, url) -> text or None``
PeerExtractor = Callable[[str, str], str | None]

_BLOCK_TAGS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "dd",
        "div",
        "dl",
        "dt",
        "figcaption",
        "figure",
        "footer",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "li",
        "main",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "td",
        "th",
        "tr",
        "ul",
    ]
)
_BLANK_LINES = re.compile(r"\n\s*\n")


class PeerUnavailable(RuntimeError):
    """A peer extractor whose package is not installed, or an unknown name."""


def load_peer(name: str) -> PeerExtractor:
    """The extractor called ``name``; raises :class:`PeerUnavailable` with what to do."""
    factories: dict[str, Callable[[], PeerExtractor]] = {
        "trafilatura": _trafilatura,
        "readability": _readability,
        "justext": _justext,
    }
    if name not in factories:
        raise PeerUnavailable(f"unknown peer extractor {name!r}; known: {', '.join(sorted(factories))}")
    return factories[name]()


def _missing(name: str, package: str) -> PeerUnavailable:
    return PeerUnavailable(
        f"peer extractor {name!r} needs the {package} package, which is not installed: "
        f"pip install -r requirements-bench.txt"
    )


def _trafilatura() -> PeerExtractor:
    try:
        import trafilatura
    except ImportError:
        raise _missing("trafilatura", "trafilatura") from None

    def extract(html: str, url: str) -> str | None:
        return trafilatura.extract(html, url=url, output_format="txt", include_comments=False)

    return extract


def _readability() -> PeerExtractor:
    try:
        from readability import Document
    except ImportError:
        raise _missing("readability", "readability-lxml") from None

    def extract(html: str, url: str) -> str | None:
        return html_fragment_text(Document(html, url=url).summary(html_partial=True))

    return extract


def _justext() -> PeerExtractor:
    try:
        import justext
    except ImportError:
        raise _missing("justext", "jusText") from None

    def extract(html: str, url: str) -> str | None:
        paragraphs = justext.justext(html.encode("utf-8"), _all_stoplists(), encoding="utf-8")
        return "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)

    return extract


@cache
def _all_stoplists() -> frozenset[str]:
    """jusText needs the page's language; the union of all its stoplists is a
    language-neutral stand-in (it still finds no stopwords in Chinese or Japanese)."""
    import justext

    return frozenset().union(*(justext.get_stoplist(lang) for lang in justext.get_stoplists()))


def html_fragment_text(fragment: str) -> str:
    """Plain text of an HTML fragment: block elements become paragraphs separated by
    one blank line, ``<br>`` a line break, spaces collapsed."""
    if not fragment.strip():
        return ""
    root = lxml.html.fragment_fromstring(fragment, create_parent="div")
    for br in root.iter("br"):
        br.tail = "\n" + (br.tail or "")
    for block in root.iter(*_BLOCK_TAGS):
        block.text = "\n\n" + (block.text or "")
        block.tail = "\n\n" + (block.tail or "")
    paragraphs = []
    for paragraph in _BLANK_LINES.split(root.text_content()):
        lines = [" ".join(line.split()) for line in paragraph.split("\n")]
        if text := "\n".join(line for line in lines if line):
            paragraphs.append(text)
    return "\n\n".join(paragraphs)
