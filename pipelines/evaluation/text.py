"""Text normalization and tokenization shared by every metric, applied the same way to
the extraction and to the gold.

Tokens are runs of word characters (``\\w+``), lowercased, except that Chinese and
Japanese characters (``CJK_CHARS``: CJK ideographs, hiragana, katakana, the ranges
that extraction's text lengths use) are one token each: those
scripts do not separate words with spaces, so a ``\\w+`` run would be a whole sentence.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from pipelines.scripts import CJK_CHARS

_TOKEN = re.compile(rf"[{CJK_CHARS}]|[^\W{CJK_CHARS}]+")
_SPACES = re.compile(r"[^\S\n]+")
_LINE_EDGES = re.compile(r" ?\n ?")
_BLANK_LINES = re.compile(r"\n{2,}")

SHINGLE_SIZE = 4


def normalize_text(text: str | None) -> str:
    """NFKC, lowercase, spaces collapsed, lines stripped, runs of blank lines made one.

    Line and paragraph breaks are kept (they do not change any score, but keep diffs
    readable); ``None`` becomes ``""``.
    """
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text).lower().replace("\r\n", "\n").replace("\r", "\n")
    text = _LINE_EDGES.sub("\n", _SPACES.sub(" ", text))
    return _BLANK_LINES.sub("\n\n", text).strip()


def tokens(text: str | None) -> list[str]:
    """Word tokens of the normalized text (CJK characters one token each).

    Only :func:`normalize_text`'s NFKC and lowercasing touch tokens (the rest of it
    rewrites whitespace, which no token holds), so only those run: the same tokens, in
    about half the time (the ensemble tokenizes every candidate and the page)."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).lower()) if text else []


def shingles(words: Sequence[str], size: int = SHINGLE_SIZE) -> list[tuple[str, ...]]:
    """Overlapping ``size``-token shingles; a text shorter than ``size`` is one shingle
    (none when empty), as in the ScrapingHub article-extraction benchmark."""
    return [tuple(words[i : i + size]) for i in range(max(1, len(words) - size + 1)) if words[i : i + size]]
