"""Writing systems the text code treats apart: the scripts written without spaces between
words, whose every character counts as one word (extraction's text lengths) and as one
token (the evaluation's). A leaf module, so both packages import it without importing
each other.
"""

import re
from collections.abc import Sequence

#: Character ranges of the scripts written without spaces between words (the one
#: definition; regex class syntax).
HIRAGANA = "\u3040-\u309f"
KATAKANA = (
    "\u30a0-\u30ff"  # Katakana
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\uff66-\uff9f"  # half-width Katakana
)
HAN = (
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0002fa1f"  # CJK extensions B-F and compatibility supplement
)
CJK_CHARS = HIRAGANA + KATAKANA + HAN
#: One character of those scripts.
CJK_CHARACTER = re.compile(f"[{CJK_CHARS}]")

#: Share of a text's tokens in those scripts above which :func:`mostly_unspaced` holds.
UNSPACED_SHARE = 0.5


def mostly_unspaced(words: Sequence[str]) -> bool:
    """Whether most of a text's tokens (``pipelines.evaluation.text.tokens``, one a CJK
    character) are characters of a script written without spaces (Chinese, Japanese)."""
    unspaced = sum(1 for word in words if CJK_CHARACTER.fullmatch(word))
    return unspaced > UNSPACED_SHARE * len(words)
