"""Peer extractors as registered extractors: ``trafilatura``, ``readability`` and
``justext``, on the same Page as ours (a crawl with ``PAGESIGHT_EXTRACTOR=trafilatura``,
``scrapy evaluate --compare``, the benchmarks, and the default ``ensemble``'s candidates).
Their packages are pinned in requirements.txt; each is imported in ``from_settings``,
which names the package to install when it is missing. They find text only: no items,
the page type is the one given (article when none).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import re
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any, ClassVar, Self

import lxml.html
from lxml import etree

from pipelines.config import SettingsLike
from pipelines.evaluation.text import tokens
from pipelines.extraction.dom import BLOCK_TAGS, xml_compatible
from pipelines.extraction.page import ARTICLE, Extraction, Page
from pipelines.extraction.registry import ExtractorUnavailable, configured_options, package_version, register
from pipelines.scripts import mostly_unspaced

logger = logging.getLogger(__name__)

_BLANK_LINES = re.compile(r"\n\s*\n")


def import_peer(name: str, module: str, package: str) -> ModuleType:
    """Import a peer's module; :class:`ExtractorUnavailable` naming the package if missing."""
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        raise ExtractorUnavailable(
            f"extractor {name!r} needs the {package} package, which is not installed: "
            f"pip install -r requirements.txt"
        ) from None


#: trafilatura's memoized string helpers (``functools.lru_cache``), by module: the
#: ``utils`` ones are keyed by whole text nodes (after a 4 MB page, ``trim``'s 1,024 entries
#: held 46.7 MiB of the crawl process: tracemalloc, session 46's soak); ``_vector_to_add``
#: by the text's tokens (up to 16,384 lists of 64 ints for the near-duplicate simhash): the
#: entries added during a 4 MB page keep Python's allocator from returning the arenas the
#: page's freed objects leave almost empty. Extracting the demo web's 4 MB page after 30
#: articles (``pagesight.api.extract``, then this and ``malloc_trim``) took the process's
#: anonymous memory from 134 to 197 MiB; emptying ``_vector_to_add`` too, to 156 MiB.
_TRAFILATURA_STRING_CACHES = {
    "trafilatura.utils": ("trim", "line_processing", "return_printables_and_spaces"),
    "trafilatura.deduplication": ("_vector_to_add",),
}


def release_string_caches() -> None:
    """Empty trafilatura's string caches, which keep big pages' texts alive. Not
    ``trafilatura.meta.reset_caches()``: that also drops jusText's merged stoplist, which
    costs about 65 MiB to build again. A crawl calls this every few pages
    (``crawler.extensions.GlibcHeapExtension``): in two 1,121-page soaks side by side the
    crawl process held 1,070-1,100 MiB after the 4 MB pages instead of 1,157-1,192, at the
    same speed."""
    for module_name, names in _TRAFILATURA_STRING_CACHES.items():
        try:
            module = __import__(module_name, fromlist=["_"])
        except ImportError:
            continue
        for name in names:
            cached = getattr(module, name, None)
            if cached is not None and hasattr(cached, "cache_clear"):
                cached.cache_clear()


def text_extraction(
    name: str,
    page: Page,
    text: str | None,
    title: str | None = None,
    author: str | None = None,
    published: str | None = None,
    language: str | None = None,
) -> Extraction | None:
    """A peer's text as an Extraction (Markdown is the plain text), or None when empty."""
    if not text or not text.strip():
        logger.info("%s found no main content on %s", name, page.url or "<page>")
        return None
    return Extraction(
        name,
        page.page_type or ARTICLE,
        title or None,
        text,
        text,
        author=author or None,
        published=published or None,
        language=language or None,
    )


class PeerExtractor:
    """What every peer shares: its package imported once at build time (a missing one is
    :class:`ExtractorUnavailable` naming it), its options, its version for provenance.
    Subclasses set ``name``, ``package`` (the distribution), ``module_name`` and ``Options``."""

    name: ClassVar[str]
    package: ClassVar[str]
    module_name: ClassVar[str]
    Options: ClassVar[type[Any]]

    def __init__(self, module: ModuleType, options: Any):
        self.module = module
        self.options = options
        self.version = package_version(self.package)

    @classmethod
    def from_settings(cls, settings: SettingsLike | None = None) -> Self:
        module = import_peer(cls.name, cls.module_name, cls.package)
        return cls(module, configured_options(cls.name, cls.Options(), settings))


@register
class TrafilaturaExtractor(PeerExtractor):
    """trafilatura's ``extract`` (text and its title, author, date)."""

    name: ClassVar[str] = "trafilatura"
    package: ClassVar[str] = "trafilatura"
    module_name: ClassVar[str] = "trafilatura"

    @dataclass(frozen=True)
    class Options:
        """``with_metadata``: also the title, author and date (trafilatura's metadata and
        htmldate). Off, the text is the same and comes in half the time (Dragnet
        validation, 150 pages: 49 ms a page against 101, the same text on every page): the
        ensemble's candidate runs so, its metadata coming from the metadata module."""

        include_comments: bool = False
        include_tables: bool = True
        favor_precision: bool = False
        favor_recall: bool = False
        with_metadata: bool = True

    @classmethod
    def from_settings(cls, settings: SettingsLike | None = None) -> Self:
        extractor = super().from_settings(settings)
        preload_all_stoplists()
        preload_date_locales()
        return extractor

    def extract(self, page: Page) -> Extraction | None:
        found = self.module.extract(
            xml_compatible(page.html),
            url=page.url or None,
            output_format="json",
            with_metadata=self.options.with_metadata,
            include_comments=self.options.include_comments,
            include_tables=self.options.include_tables,
            favor_precision=self.options.favor_precision,
            favor_recall=self.options.favor_recall,
        )
        data = json.loads(found) if found else {}
        # trafilatura's JSON keeps the comments apart from the text, where its plain text
        # output appends them: with include_comments they follow the text here too.
        parts = (data.get("text"), data.get("comments") if self.options.include_comments else None)
        return text_extraction(
            self.name,
            page,
            "\n".join(part for part in parts if part),
            title=data.get("title"),
            author=data.get("author"),
            published=data.get("date"),
            language=data.get("language"),
        )


@register
class ReadabilityExtractor(PeerExtractor):
    """readability-lxml's ``Document.summary`` made plain text (see :func:`html_fragment_text`)."""

    name: ClassVar[str] = "readability"
    package: ClassVar[str] = "readability-lxml"
    module_name: ClassVar[str] = "readability"

    @dataclass(frozen=True)
    class Options:
        """``with_metadata``: also the title, for which readability parses the page again,
        and links made absolute against the page's URL, which the text drops. Off, the
        text is the same in less time: the ensemble's candidate runs so."""

        min_text_length: int = 25
        retry_length: int = 250
        with_metadata: bool = True

    def extract(self, page: Page) -> Extraction | None:
        document = self.module.Document(
            xml_compatible(page.html),
            url=(page.url or None) if self.options.with_metadata else None,
            min_text_length=self.options.min_text_length,
            retry_length=self.options.retry_length,
        )
        text = html_fragment_text(document.summary(html_partial=True))
        title = document.short_title() if self.options.with_metadata else None
        return text_extraction(self.name, page, text, title=title)


#: Latin characters of text a character of Chinese or Japanese script stands for, by which
#: jusText's length thresholds (characters) are divided on such a page: the English
#: Debian FAQ's sections are 2.44 times as long as their Chinese translations (1.63 the
#: Japanese, which keep more English words).
UNSPACED_CHARACTER_WIDTH = 2.5
#: A letter of Korean's alphabet (Hangul syllables, jamo, compatibility jamo). Korean is
#: written with spaces, but its particles join the word before them, so jusText's Korean
#: stoplist finds few stopwords.
HANGUL_LETTER = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]")
#: :data:`UNSPACED_CHARACTER_WIDTH` for Korean: the English FAQ's sections are 1.56 times
#: as long as the Korean.
HANGUL_CHARACTER_WIDTH = 1.6


def unstopped_width(text: str) -> float | None:
    """The Latin characters one character of ``text`` stands for when the text is mostly
    in a script jusText's stoplists do not serve (Chinese, Japanese, Korean); None when
    they do."""
    if mostly_unspaced(tokens(text)):
        return UNSPACED_CHARACTER_WIDTH
    letters = [c for c in text if c.isalpha()]
    if sum(1 for c in letters if HANGUL_LETTER.match(c)) > 0.5 * len(letters):
        return HANGUL_CHARACTER_WIDTH
    return None


@register
class JustextExtractor(PeerExtractor):
    """jusText's non-boilerplate paragraphs, with the union of all its stoplists; on a
    page mostly in Chinese or Japanese script, for which jusText has no stoplist, or in
    Korean (:func:`unstopped_width`), where it would find (almost) no stopword and call
    every paragraph boilerplate, its language-independent mode: no stoplist, both
    stopword thresholds 0, so length and link density decide, the length thresholds
    divided by the script's character width."""

    name: ClassVar[str] = "justext"
    package: ClassVar[str] = "jusText"
    module_name: ClassVar[str] = "justext"

    @dataclass(frozen=True)
    class Options:
        length_low: int = 70
        length_high: int = 200

    @classmethod
    def from_settings(cls, settings: SettingsLike | None = None) -> Self:
        extractor = super().from_settings(settings)
        preload_all_stoplists()
        return extractor

    def extract(self, page: Page) -> Extraction | None:
        html = xml_compatible(page.html).encode("utf-8")
        paragraphs = self.paragraphs(html, all_stoplists())
        if width := unstopped_width(" ".join(p.text for p in paragraphs)):
            paragraphs = self.paragraphs(
                html,
                frozenset(),
                length_low=round(self.options.length_low / width),
                length_high=round(self.options.length_high / width),
                stopwords_low=0.0,
                stopwords_high=0.0,
            )
        text = "\n\n".join(p.text for p in paragraphs if not p.is_boilerplate)
        return text_extraction(self.name, page, text)

    def paragraphs(self, html: bytes, stoplist: frozenset[str], **thresholds: float) -> list[Any]:
        """jusText's classified paragraphs of the page (the length thresholds: the
        options' unless given; the stopword thresholds: jusText's defaults unless given)."""
        lengths = {"length_low": self.options.length_low, "length_high": self.options.length_high}
        found: list[Any] = self.module.justext(html, stoplist, encoding="utf-8", **(lengths | thresholds))
        return found


@cache
def all_stoplists() -> frozenset[str]:
    """jusText needs the page's language; the union of all its stoplists is a
    language-neutral stand-in (it has none for Chinese or Japanese: see
    :class:`JustextExtractor`)."""
    import justext

    return frozenset().union(*(justext.get_stoplist(lang) for lang in justext.get_stoplists()))


def preload_all_stoplists() -> None:
    """Build :func:`all_stoplists` and jusText's lower-cased copy of it (its cached
    ``define_stoplist``) now, and give them to trafilatura's jusText fallback, which
    otherwise builds its own copy of the same words (``trafilatura.external.JT_STOPLIST``)
    the first time it runs on a page: the crawl passes no language, so it always takes
    the merged stoplist. Built when the extractor is, they are in a long crawl's memory
    from its first page instead of a step midway (in a 5,000-page soak, near page 2,080);
    measured: 23.4 + 15.0 MiB for ours, 12.8 + 15.7 MiB more for trafilatura's copy,
    which is now never built."""
    import justext.core

    stoplist = all_stoplists()
    justext.core.define_stoplist(stoplist)
    with contextlib.suppress(ImportError):  # trafilatura is optional here
        trafilatura_external: Any = importlib.import_module("trafilatura.external")
        trafilatura_external.JT_STOPLIST = stoplist


#: A string no dateparser locale reads, so that it tries them all.
UNREADABLE_DATE = "qzxv wkpj"


def preload_date_locales() -> None:
    """Compile now the regexes dateparser compiles for each locale it tries and keeps for
    the process's life. trafilatura's date search (htmldate) hands dateparser the strings
    its own patterns miss, and dateparser tries locale after locale until one reads the
    string; the first string that sent it through most of them was a step of 40.5 MiB in
    the crawl process at page 3,068 of a 5,000-page soak (replaying the feed's extraction
    reproduces it). A string no locale reads compiles them all at once: 40.3 MiB, 1.4 s."""
    from htmldate.extractors import get_external_parser

    get_external_parser().get_date_data(UNREADABLE_DATE)


def html_fragment_text(fragment: str) -> str:
    """Plain text of an HTML fragment: block elements become paragraphs separated by
    one blank line, ``<br>`` a line break, spaces collapsed."""
    if not fragment.strip():
        return ""
    try:
        root = lxml.html.fragment_fromstring(fragment, create_parent="div")
    except (AssertionError, etree.ParserError):  # lxml asserts on a document without a body
        return ""
    for br in root.iter("br"):
        br.tail = "\n" + (br.tail or "")
    for block in root.iter(*BLOCK_TAGS):
        block.text = "\n\n" + (block.text or "")
        block.tail = "\n\n" + (block.tail or "")
    paragraphs = []
    for paragraph in _BLANK_LINES.split(root.text_content()):
        lines = [" ".join(line.split()) for line in paragraph.split("\n")]
        if text := "\n".join(line for line in lines if line):
            paragraphs.append(text)
    return "\n\n".join(paragraphs)
