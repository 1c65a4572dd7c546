"""Bytes to text for HTML files: BOM, valid UTF-8, HTTP charset, <meta>, then detection.

Order of evidence:

1. a byte-order mark;
2. bytes that contain non-ASCII characters and are valid UTF-8 are UTF-8, whatever the
   page declares: a browser's serialized DOM (the rendered HTML of a capture) is UTF-8
   but keeps the page's original ``<meta charset="gbk">``, and real text in a legacy
   multi-byte or Cyrillic encoding is practically never valid UTF-8;
3. the HTTP charset (``declared_encoding``);
4. ``<meta charset>`` / ``<meta http-equiv="Content-Type">`` / the XML declaration;
5. detection among the legacy encodings of our users' languages (:func:`detect_encoding`).

Steps 1, 3 and 4 are w3lib's (Scrapy's own) rules, including its aliases
(gbk/gb2312 → gb18030, shift_jis → cp932, latin-1 → cp1252).
"""

from __future__ import annotations

import codecs
import unicodedata
from dataclasses import dataclass

from w3lib.encoding import (
    html_body_declared_encoding,
    http_content_type_encoding,
    read_bom,
    to_unicode,
)

#: Legacy encodings tried by detection, in order of preference on a tie.
#: Japanese comes before Chinese: Kana sit at the same bytes in EUC-JP and GB2312.
DETECTION_CANDIDATES = ("cp932", "euc_jp", "gb18030", "big5hkscs", "cp949", "cp1251", "koi8_r", "cp1252")

# Frequent characters of Chinese and Japanese running text (function words, the most
# common Han characters of both languages, common Hiragana). A right decoding of CJK
# text is dense in them; a wrong one yields rare characters.
_COMMON_CJK = frozenset(
    "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过"
    "发后作里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前"
    "开但因只从想实日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高间由问很最重"
    "并物手应战向头文体政美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老给世位次度门任常"
    "先海通教儿原东声提立及比员解水名真论处走义各入几口认条平系气题活尔更别打女变四神总何电数安少报"
    "才结反受目太量再感建务做接必场件计管期市直德资命山金指克许统区保至队形社便空决治展马科司五基眼"
    "书非则听白却界达光放强即像难且权思王象完设式色路记南品住告类求据程北边死张该交规万取拉格望觉术"
    "领共确传师观清今切院让识候带导争运笑飞风步改收根干造言联持组每济车亲极林服快办议往元英士证近失"
    "転本語会社円時間今日私彼女見聞読書言話出入来行帰買売食飲休始終使作思知持待住生死者物事場所東京都"
    "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんがぎ"
    "ぐげござじずぜぞだでどばびぶべぼぱっゃゅょアイウエオカキクケコサシスセソタチツテトナニヌネノハ"
    "ヒフヘホマミムメモラリルレロンーッ"
)
# Frequent Russian letters, lower case (running text is mostly lower case; a Cyrillic
# text read in the wrong Cyrillic code page comes out mostly upper case).
_COMMON_CYRILLIC = frozenset("оеаинтсрвлкмдпуяыьгзбчйжшхюцэщф")


#: File signatures of common non-HTML formats, with their names.
_BINARY_SIGNATURES = (
    (b"\x7fELF", "an ELF executable"),
    (b"%PDF-", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"MZ", "a Windows executable"),
)


def non_html_reason(body: bytes) -> str | None:
    """Why ``body`` is not an HTML document (a known binary signature, or NUL bytes in
    its first 4 KiB, which no text encoding of ours has), or None when it may be one."""
    for signature, name in _BINARY_SIGNATURES:
        if body.startswith(signature):
            return f"{name}, not HTML"
    if read_bom(body)[0] is None and b"\x00" in body[:4096]:
        return "binary data (NUL bytes), not HTML"
    return None


#: How an encoding was decided, in the order the evidence is weighed.
ENCODING_SOURCES = ("bom", "utf-8", "http", "meta", "detected", "default")


@dataclass(frozen=True)
class EncodingDecision:
    """The encoding of a document's bytes (a Python codec name) and the evidence that
    decided it (one of :data:`ENCODING_SOURCES`)."""

    encoding: str
    source: str


def decide_encoding(body: bytes, declared_encoding: str | None = None) -> EncodingDecision:
    """Which encoding ``body`` is in; ``declared_encoding`` is the HTTP charset if known."""
    bom_encoding, _ = read_bom(body)
    if bom_encoding is not None:
        return EncodingDecision(bom_encoding, "bom")
    if not body.isascii():
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            return EncodingDecision("utf-8", "utf-8")
    if declared_encoding and _known_codec(declared_encoding):
        http = http_content_type_encoding(f"text/html; charset={declared_encoding}")
        if http:
            return EncodingDecision(_byte_order(http), "http")
    meta = html_body_declared_encoding(body)
    if meta:
        return EncodingDecision(_byte_order(meta), "meta")
    detected = detect_encoding(body)
    if detected:
        return EncodingDecision(detected, "detected")
    return EncodingDecision("utf-8", "default")


def decode_html(body: bytes, declared_encoding: str | None = None) -> str:
    """Decode an HTML document; ``declared_encoding`` is the HTTP charset if known.

    Bytes the decided encoding cannot read become U+FFFD.
    """
    return decode_document(body, declared_encoding)[0]


def decode_document(body: bytes, declared_encoding: str | None = None) -> tuple[str, EncodingDecision]:
    """:func:`decode_html` that also says which encoding it used and why."""
    if not isinstance(body, (bytes, bytearray)):
        raise TypeError(f"decode_html needs bytes, got {type(body).__name__}")
    body = bytes(body)
    decision = decide_encoding(body, declared_encoding)
    if decision.source == "bom":
        body = body[len(read_bom(body)[1] or b"") :]
    return to_unicode(body, decision.encoding), decision


def _byte_order(encoding: str) -> str:
    """A declared UTF-16/32 without a BOM is big-endian (w3lib's rule)."""
    return encoding + "-be" if encoding in ("utf-16", "utf-32") else encoding


def detect_encoding(body: bytes) -> str | None:
    """The legacy encoding under which ``body`` reads most like real text, or None.

    Each candidate that decodes without error is scored by the share of its non-ASCII
    characters that are common letters of Chinese, Japanese or Russian (a wrong
    decoding produces rare characters, symbols and controls).
    """
    if body.isascii():
        return None
    sample = body[:200_000]
    best, best_score = None, float("-inf")
    for encoding in DETECTION_CANDIDATES:
        try:
            text = sample.decode(encoding)
        except UnicodeDecodeError:
            # A multi-byte character cut at the sample's end is not a decoding error.
            try:
                text = sample[:-3].decode(encoding)
            except UnicodeDecodeError:
                continue
        score = _plausibility(text)
        if score > best_score:
            best, best_score = encoding, score
    return best


def _plausibility(text: str) -> float:
    """Mean per-character score of the non-ASCII characters of ``text``."""
    total, count = 0.0, 0
    previous = " "
    for char in text:
        if char.isascii():
            previous = char
            continue
        count += 1
        after_latin = previous.isascii() and previous.isalpha()
        if char in _COMMON_CJK:
            total += 2.0
        elif "\u0400" <= char <= "\u04ff":
            # Russian words are all Cyrillic; Cyrillic glued to Latin letters is a
            # Latin text read in a Cyrillic code page.
            if after_latin:
                total -= 1.0
            elif char in _COMMON_CYRILLIC:
                total += 2.0
            else:
                total += 0.5
        else:
            category = unicodedata.category(char)
            if category[0] == "L":
                # An accented Latin letter inside a Latin word is ordinary Western text.
                total += 1.5 if after_latin and char <= "\u024f" else 0.25
            elif category in ("Cc", "Co", "Cn", "So") or "\uff61" <= char <= "\uff9f":
                total -= 2.0
        previous = char
    return total / count if count else 0.0


def _known_codec(name: str) -> bool:
    try:
        codecs.lookup(name.strip().strip("\"'"))
    except LookupError:
        return False
    return True
