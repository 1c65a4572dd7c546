"""Language-aware text length: words for space-separated scripts, characters for CJK."""

import random
import re

import pytest

from pipelines.extraction.dom import body_of, parse_html
from pipelines.extraction.lengths import normalize_space, subtree_lengths, text_length
from pipelines.scripts import CJK_CHARS


@pytest.mark.parametrize(
    ("text", "length"),
    [
        ("The quick brown fox jumps.", 5),
        ("  spaced   out\n\ttext ", 3),
        ("Привет, как дела?", 3),
        ("Hello — world!!! ...", 2),
        ("", 0),
        ("。、！？", 0),
    ],
)
def test_space_separated_text_counts_words(text, length):
    assert text_length(text) == length


def test_chinese_counts_characters_not_whitespace_words():
    sentence = "我们今天去公园散步。"  # one "word" between spaces, nine characters
    assert len(sentence.split()) == 1
    assert text_length(sentence) == 9


def test_japanese_counts_kana_and_kanji_characters():
    assert text_length("日本語のテキストです") == 10
    assert text_length("ｶﾀｶﾅ") == 4  # half-width katakana


def test_mixed_script_adds_words_and_characters():
    # "iPhone", "15" are words; は, 人, 気 are characters.
    assert text_length("iPhone 15は人気") == 5


def test_texts_with_and_without_cjk_count_as_the_definition_says():
    """The fast path for texts without CJK characters gives the defining count: each CJK
    character one unit, each run of other word characters one."""
    pieces = [
        "word",
        "Wort_2",
        "don't",
        "e-mail",
        "слово",
        "단어",
        "١٢٣",
        "—",
        "…",
        " ",
        "\n",
        "語",
        "カナ",
        "ｶ",
    ]
    rng = random.Random(7)
    for _ in range(500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        defined = re.findall(rf"[{CJK_CHARS}]|[^\W{CJK_CHARS}]+", text)
        assert text_length(text) == len(defined), text


def test_normalize_space():
    assert normalize_space("  a \n b\t\tc  ") == "a b c"


def test_subtree_lengths_count_preformatted_text_outside_links():
    root = parse_html(
        '<html><body><div id="d"><p>one two</p><pre>a b <b>c</b> <a href="/x">d e</a></pre> f</div></body></html>'
    )
    lengths = subtree_lengths(body_of(root))
    div = root.get_element_by_id("d")
    assert (lengths[div], lengths.unlinked(div), lengths.preformatted[div]) == (8, 6, 3)
    assert lengths.preformatted[div.find("pre")] == 3 and div.find("p") not in lengths.preformatted
