"""Extractions no corpus wants, whatever the quality estimate says: too short to be a page's
main content, or a page's stand-in text (a script placeholder, an error or a bot check).

The learned estimate (:mod:`models.quality.model`) was fitted on pages whose extractions are
real content, and it gave 0.84 to a page whose whole text was "hi" and 0.82 to "Please
enable JavaScript to view this page." Users filter corpora on ``extraction_quality``, so
such an extraction's estimate is capped below :data:`DEGENERATE_CEILING` instead.
"""

from __future__ import annotations

import re

from pipelines.evaluation.text import tokens

#: The highest ``extraction_quality`` a degenerate extraction keeps.
DEGENERATE_CEILING = 0.19
#: Fewer tokens than this (the project's tokenizer: CJK counts characters) is no main content.
MIN_TOKENS = 20
#: A stand-in text is short: one that runs longer than this is a page that mentions one.
PLACEHOLDER_MAX_TOKENS = 60
#: What stand-in texts say, in the languages of the project's tests and demo web.
PLACEHOLDER = re.compile(
    r"enable javascript|javascript (?:is |must be )?(?:disabled|required|turned off|not enabled)"
    r"|turn on javascript|browser (?:does not|doesn't) support|update your browser"
    r"|access denied|forbidden|not found|page (?:does not|doesn't) exist|no longer available"
    r"|service unavailable|internal server error|bad gateway|gateway time-?out|too many requests"
    r"|checking your browser|just a moment|verify (?:that )?you are (?:a )?human|are you a robot"
    r"|captcha|unusual traffic|site can'?t be reached|temporarily unavailable|loading\.\.\."
    r"|javascript を有効|请启用|請啟用|включите javascript|javascript aktivieren|activez javascript",
    re.IGNORECASE,
)


def degenerate_reason(text: str | None) -> str | None:
    """Why ``text`` is no page's main content, or None when it may be."""
    words = tokens(text or "")
    if len(words) < MIN_TOKENS:
        return f"fewer than {MIN_TOKENS} tokens"
    if len(words) <= PLACEHOLDER_MAX_TOKENS and PLACEHOLDER.search(text or ""):
        return "a script placeholder or an error message"
    return None


def capped_quality(quality: float, text: str | None) -> float:
    """``quality``, capped at :data:`DEGENERATE_CEILING` for a degenerate ``text``."""
    return min(quality, DEGENERATE_CEILING) if degenerate_reason(text) else quality
