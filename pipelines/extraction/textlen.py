"""Language-aware text length: words for space-separated scripts, characters for CJK.

Chinese and Japanese do not separate words with spaces, so counting whitespace-separated
words would make a paragraph of Chinese "one word" long. Every Han, Hiragana or
Katakana character counts as one unit instead; every run of other word characters
(Latin, Cyrillic, Hangul, digits, ...) counts as one word. Mixed text adds both.
Punctuation counts for nothing.
"""

from __future__ import annotations

import re

#: Scripts written without spaces between words: CJK ideographs (incl. extension A and
#: compatibility ideographs), Hiragana, Katakana (full and half width).
CJK_CHARS = (
    "\u3040-\u309f"  # Hiragana
    "\u30a0-\u30ff"  # Katakana
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # half-width Katakana
)

_UNITS = re.compile(rf"[{CJK_CHARS}]|[^\W{CJK_CHARS}]+")
_SPACES = re.compile(r"\s+")


def text_length(text: str) -> int:
    """Length of ``text`` in words, counting each CJK character as one word."""
    return len(_UNITS.findall(text))


def normalize_space(text: str) -> str:
    """Collapse every whitespace run to one space and strip the ends."""
    return _SPACES.sub(" ", text).strip()
