"""Seeded text of the demo web: languages, charsets, and the Faker-backed writer."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from datetime import timedelta, timezone
from functools import lru_cache

from faker import Faker


@dataclass(frozen=True)
class Language:
    """A site language: Faker locale, tags, time zone and how words and sentences join."""

    code: str  # ISO 639-1, the gold record's ``language``
    html_lang: str  # value of <html lang>
    faker_locale: str
    utc_offset_hours: int
    word_separator: str  # between words of a sentence
    sentence_separator: str  # between sentences of a paragraph
    full_stop: str


ENGLISH = Language("en", "en", "en_US", -5, " ", " ", ".")
JAPANESE = Language("ja", "ja", "ja_JP", 9, "", "", "。")
CHINESE = Language("zh", "zh-CN", "zh_CN", 8, "", "", "。")
RUSSIAN = Language("ru", "ru", "ru_RU", 3, " ", " ", ".")


@dataclass(frozen=True)
class Charset:
    """How a site's pages are encoded and declared.

    ``label`` goes into the Content-Type header and <meta charset>; ``codec`` encodes
    the pages; ``browser_codec`` is the Python codec that decodes like the browser's
    (WHATWG) decoder for ``label`` — text keeps only characters both agree on, so
    the gold text is what Chromium and Python both read.
    """

    label: str
    codec: str
    browser_codec: str


UTF_8 = Charset("utf-8", "utf-8", "utf-8")
SHIFT_JIS = Charset("Shift_JIS", "shift_jis", "cp932")
GBK = Charset("GBK", "gbk", "gb18030")
WINDOWS_1251 = Charset("windows-1251", "cp1251", "cp1251")


@lru_cache(maxsize=65536)
def _round_trips(char: str, charset: Charset) -> bool:
    try:
        return char.encode(charset.codec).decode(charset.browser_codec) == char
    except (UnicodeEncodeError, UnicodeDecodeError):
        return False


def charset_safe(text: str, charset: Charset) -> str:
    """``text`` without the characters ``charset`` cannot carry unambiguously."""
    return "".join(char for char in text if _round_trips(char, charset))


def utc_offset(language: Language) -> timezone:
    """The fixed time zone a site in ``language`` publishes in."""
    return timezone(timedelta(hours=language.utc_offset_hours))


_SPACES = re.compile(r"\s+")


class TextWriter:
    """Headlines, paragraphs and names in one language, deterministic for a seed."""

    def __init__(self, language: Language, charset: Charset, seed: str) -> None:
        self.language = language
        self.charset = charset
        self.random = random.Random(f"{seed}/text")
        self._faker = Faker(language.faker_locale)
        self._faker.seed_instance(seed)

    def clean(self, text: str) -> str:
        """Whitespace-normalized, charset-safe text."""
        return _SPACES.sub(" ", charset_safe(text, self.charset)).strip()

    def _words(self, count: int) -> str:
        words = [self._faker.word() for _ in range(count)]
        return self.language.word_separator.join(words)

    def word(self) -> str:
        """One word (a topic's name), charset-safe; may be empty after cleaning."""
        return self.clean(self._faker.word())

    def sentence(self, min_words: int = 6, max_words: int = 14) -> str:
        """One sentence with its full stop."""
        words = self._words(self.random.randint(min_words, max_words))
        if self.language.word_separator:
            words = words[:1].upper() + words[1:]
        return self.clean(words + self.language.full_stop)

    def headline(self) -> str:
        """A headline: a short sentence without its full stop."""
        return self.sentence(4, 9)[: -len(self.language.full_stop)]

    def paragraph(self, min_sentences: int = 3, max_sentences: int = 6) -> str:
        """A paragraph of several sentences."""
        count = self.random.randint(min_sentences, max_sentences)
        return self.clean(self.language.sentence_separator.join(self.sentence() for _ in range(count)))

    def person(self) -> str:
        """A person's name as the locale writes it."""
        if self.language.code == "ru":
            if self.random.random() < 0.5:
                first, last = self._faker.first_name_male(), self._faker.last_name_male()
            else:
                first, last = self._faker.first_name_female(), self._faker.last_name_female()
            return self.clean(f"{first} {last}")
        return self.clean(self._faker.name())
