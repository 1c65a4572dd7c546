"""Posts in many languages from the Debian FAQ (Debian's ``debian-faq`` and
``debian-faq-LANG`` packages: the same DocBook book translated, HTML under
``/usr/share/doc/debian/FAQ``), for the multilingual extraction benchmark
(``benchmarks/multilingual.py``): each section of the book, its heading and its prose,
is one post, so that the styled sites' themes wrap real Russian, Chinese, Japanese,
Korean, German or French text whose every paragraph is known.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from crawler.styled.generator import Post, new_post
from pipelines.extraction.dom import HtmlElement, parse_html
from pipelines.extraction.encoding import decode_html
from pipelines.extraction.lengths import normalize_space, text_length

#: Where Debian installs the FAQ.
FAQ_ROOT = Path("/usr/share/doc/debian/FAQ")
#: A section's prose must be at least this long (words; CJK characters) to make a post.
MIN_POST_LENGTH = 60
#: A paragraph shorter than this (words; CJK characters) is a label, not prose.
MIN_PARAGRAPH_LENGTH = 4
#: Languages written in another script than Latin: a section of theirs in mostly Latin
#: letters is one the translators left in English.
NON_LATIN = frozenset({"ru", "uk", "bg", "el", "ja", "ko", "zh-cn", "zh-tw", "ar", "he", "fa", "hi", "th"})
#: Characters that Markdown (with the tables extension, as Pelican and MkDocs run it)
#: may turn into markup: written as numeric character references, which every Markdown
#: passes through and every HTML reader decodes.
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_{}\[\]()#+\-.!<>&|]")


class FaqUnavailable(FileNotFoundError):
    """No Debian FAQ in the asked language under the given folder."""


def faq_chapters(root: Path, language: str) -> list[Path]:
    """The chapter files of the FAQ in ``language`` (``en`` lies at the root as
    ``*.en.html``, the others in ``LANG/*.LANG.html``), in name order."""
    folder, pattern = (root, "*.en.html") if language == "en" else (root / language, f"*.{language}.html")
    chapters = sorted(p for p in folder.glob(pattern) if not p.name.startswith(("index.", "faqinfo.")))
    if not chapters:
        raise FaqUnavailable(
            f"no Debian FAQ in {language!r} under {root} (apt install debian-faq"
            f"{'' if language == 'en' else '-' + language})"
        )
    return chapters


def faq_posts(root: Path, language: str, seed: int) -> list[Post]:
    """One post per translated FAQ section with at least ``MIN_POST_LENGTH`` of prose
    (its ``<p>`` and list items, code left out), shuffled by ``seed``. A section left in
    English goes: half its paragraphs as in the English FAQ (when installed), or, in a
    language of ``NON_LATIN``, mostly Latin letters."""
    rng = random.Random(seed)
    english = _english_paragraphs(root) if language != "en" else frozenset()
    posts = []
    for chapter, number, title, paragraphs in _sections(root, language):
        if sum(text_length(p) for p in paragraphs) < MIN_POST_LENGTH:
            continue
        if 2 * sum(p in english for p in paragraphs) >= len(paragraphs) or (
            language in NON_LATIN and _latin_share(" ".join(paragraphs)) > 0.5
        ):
            continue
        markdown = "\n\n".join(markdown_text(p) for p in paragraphs)
        posts.append(new_post(rng, f"{chapter}-{number}", title, paragraphs, markdown))
    rng.shuffle(posts)
    return posts


def _sections(root: Path, language: str) -> list[tuple[str, int, str, tuple[str, ...]]]:
    """Each FAQ section in ``language``: chapter name, number, heading, prose."""
    found = []
    for chapter in faq_chapters(root, language):
        tree = parse_html(decode_html(chapter.read_bytes()))
        if tree is None:
            continue
        for number, section in enumerate(tree.xpath('//div[@class="section"][.//h2]'), start=1):
            title = normalize_space(section.xpath("string(.//h2[1])"))
            if title:
                found.append((chapter.name.split(".")[0], number, title, tuple(_prose(section))))
    return found


def _english_paragraphs(root: Path) -> frozenset[str]:
    try:
        return frozenset(p for *_, paragraphs in _sections(root, "en") for p in paragraphs)
    except FaqUnavailable:
        return frozenset()


def _latin_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum(c.isascii() for c in letters) / len(letters) if letters else 0.0


def _prose(section: HtmlElement) -> list[str]:
    """The section's paragraphs and list items that hold no other paragraph, in order."""
    found = []
    for block in section.iter("p", "li", "dd"):
        if block.find(".//p") is not None or any(a.tag == "pre" for a in block.iterancestors()):
            continue
        text = normalize_space(block.text_content())
        if text_length(text) >= MIN_PARAGRAPH_LENGTH:
            found.append(text)
    return found


def markdown_text(text: str) -> str:
    """Plain text as one Markdown paragraph that renders back to the same text."""
    return _MARKDOWN_SPECIAL.sub(lambda match: f"&#{ord(match.group())};", " ".join(text.split()))
